"""The prose gate (`prose.wrong_fact`) and the facts check read the same sentences the same way:
a count or date the check reports, the gate rejects; a sentence the gate lets through has no
count or date the check reports. They differ only in policy: the gate also rejects a figure or
date it cannot confirm (neither the form's nor a statutory threshold) unless the part may quote
it, which the check leaves alone. Table: (form, quotable text, sentence, gate rejects, check's
codes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.outline.gates import wrong_fact
from app.route.claims import CHECK, GATE, read_claims, read_facts
from app.route.facts import check_facts, form_facts
from app.route.form import decision_from_values

HERE = Path(__file__).parent
FORM = json.loads((HERE / "facts_fixtures" / "filing-guide.facts.json").read_text("utf-8"))
CONTRACT = {**FORM, "individuals_count": "150000", "sensitive_count": "0"}
DATED = {**FORM, "contract_effective_date": "2025-04-01"}
CLAUSE = (
    "关键信息基础设施运营者以外的数据处理者自当年1月1日起累计向境外提供100万人以上个人信息"
    "（不含敏感个人信息）或者1万人以上敏感个人信息的，应当申报数据出境安全评估。"
)
COUNT_CODES = ("facts.number_mismatch", "facts.count_flips_route")
# the rows marked `apart` disagreed before the one reader (app/route/claims.py): the gate let the
# sentence through and the check reported it, or the reverse

CASES = [
    # the form's counts, in any form: neither objects
    (FORM, CLAUSE, "贵公司累计向境外提供120万人个人信息。", False, []),
    (FORM, CLAUSE, "贵公司出境敏感个人信息8千人。", False, []),
    # a statutory threshold is always allowed, quoted or not
    (FORM, CLAUSE, "达到100万人以上个人信息的，应当申报。", False, []),
    (FORM, "", "不满10万人个人信息的，免予申报。", False, []),  # apart
    # a count that is not the form's: both object
    (FORM, CLAUSE, "贵公司累计出境约200万人的个人信息。", True, ["facts.number_mismatch"]),
    (CONTRACT, "", "贵公司累计向境外提供20万人个人信息。", True, ["facts.number_mismatch"]),
    # policy: a figure the gate cannot confirm (a hypothetical, a date no field names) is
    # rejected by the gate unless the part may quote it; the check leaves it alone
    (FORM, CLAUSE, "若贵公司累计出境超过200万人，仍应申报安全评估。", True, []),
    (FORM, CLAUSE, "自2022年1月1日起累计计算。", True, []),
    (
        FORM,
        "若贵公司累计出境超过200万人",
        "若贵公司累计出境超过200万人，仍应申报安全评估。",
        False,
        [],
    ),
    # a threshold the clause states, written as the client's count: the form says 150,000
    (
        CONTRACT,
        CLAUSE,
        "贵公司累计向境外提供100万人个人信息。",
        True,
        ["facts.count_flips_route"],
    ),  # apart
    # each count its own category: 120万 is the individuals', 8000 the sensitive count
    (FORM, CLAUSE, "贵公司向境外提供120万人个人信息和8000人敏感个人信息。", False, []),  # apart
    # 其中 8000人: part of the total, the sensitive count
    (FORM, CLAUSE, "贵公司出境120万人，其中8000人。", False, []),  # apart
    # a bound the form's count satisfies
    (FORM, "", "贵公司累计出境逾100万人个人信息。", False, []),  # apart
    # a date of the form, next to another field's words: 4月1日 is the contract's, not the filing's
    (DATED, CLAUSE, "拟于2025年4月1日提交申报。", True, ["facts.number_mismatch"]),  # apart
    # a population the transfer is drawn from, and the parts of a total after 其中, are not the
    # client's count: the check leaves them, the gate cannot confirm them (round 5, #41)
    (FORM, CLAUSE, "贵公司平台注册用户90万人。", True, []),
    (FORM, CLAUSE, "贵公司出境个人信息120万人，其中App提供70万人、小程序提供50万人。", True, []),
    # counts that add up to the form's, listed in one sentence: both accept them
    (FORM, CLAUSE, "贵公司通过App向境外提供70万人，通过小程序向境外提供50万人。", False, []),
    # a share said to be sensitive, and a counting period, are count claims too
    (
        FORM,
        CLAUSE,
        "贵公司出境120万人，其中半数为敏感个人信息。",
        True,
        ["facts.number_mismatch"],
    ),  # apart
    (
        FORM,
        CLAUSE,
        "贵公司上一年度向境外提供了120万人个人信息。",
        True,
        ["facts.number_mismatch"],
    ),  # apart
]


def _gate(values: dict[str, str], known: str, text: str) -> bool:
    return bool(wrong_fact(text, read_facts(values, known=known)))


def _check(values: dict[str, str], text: str) -> list[str]:
    facts = form_facts(values, decision_from_values(values))
    assert facts is not None
    return [f.code for f in check_facts(text, facts) if f.code in COUNT_CODES]


@pytest.mark.parametrize(("values", "known", "text", "gate", "check"), CASES)
def test_the_gate_and_the_check_agree(
    values: dict[str, str], known: str, text: str, gate: bool, check: list[str]
) -> None:
    rejected, reported = _gate(values, known, text), _check(values, text)
    assert (rejected, reported) == (gate, check)
    assert rejected or not reported  # what the check reports, the gate never lets through


@pytest.mark.parametrize(("values", "known", "text", "gate", "check"), CASES)
def test_each_claim_is_judged_once(
    values: dict[str, str], known: str, text: str, gate: bool, check: list[str]
) -> None:
    """The gate's and the check's findings are the same claims, read once; what only the gate
    rejects is what it could not confirm (its policy)."""
    facts = form_facts(values, decision_from_values(values))
    assert facts is not None
    claims = read_claims(text, facts)
    checked = CHECK.flagged(claims, facts.known)
    gated = GATE.flagged(claims, read_facts(values, known=known).known)
    assert set(checked) <= set(gated)
    assert all(c.verdict == "unconfirmed" for c in gated if c not in checked)
    spans = [(f.start, f.end) for f in check_facts(text, facts) if f.code in COUNT_CODES]
    assert spans == [(c.start, c.end) for c in checked]
    gated_spans = [(f.start, f.end) for f in wrong_fact(text, read_facts(values, known=known))]
    assert gated_spans == [(c.start, c.end) for c in gated[:1]]
