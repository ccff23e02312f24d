"""Fidelity gates: tables of (text, expected codes), and the recorded adaptations
(tests/fixtures/adaptations.yaml): every bad one is refused, every good one passes."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from app.outline.fidelity import (
    MIN_SIMILARITY,
    ellipsis,
    faithful,
    form_field,
    legal_terms,
    lost_term,
    must_keep,
    prose_form,
    similarity,
    stray_chars,
    unfinished,
)
from app.outline.gates import gate_findings
from app.route.claims import read_facts

RECORDED = yaml.safe_load(
    (Path(__file__).parent.parent / "fixtures" / "adaptations.yaml").read_text(encoding="utf-8")
)
CLAUSE = (
    "依照《个人信息出境标准合同办法》第七条，贵公司应当在标准合同生效之日起10个工作日内向所在地"
    "省级网信部门备案，提交标准合同和个人信息保护影响评估报告。"
)


def _refusals(text: str, clause: str, *, truncated: bool = False) -> set[str]:
    """Every gate an adapted part with this text fails (the prose, form and fidelity gates)."""
    facts = read_facts({}, known=clause)
    found = (
        *gate_findings(text, "", facts, truncated=truncated),
        *prose_form(text, facts.known, clause),
        *faithful(text, clause, must_keep(clause)),
    )
    return {f.code for f in found}


def test_must_keep_derives_citations_and_terms() -> None:
    keep = must_keep(CLAUSE, ["生效之日"])
    assert "《个人信息出境标准合同办法》" in keep
    assert "第七条" in keep
    assert {"标准合同", "个人信息保护影响评估", "备案", "省级网信部门"} <= set(keep)
    assert "生效之日" in keep  # declared by the clause
    assert len(keep) == len(set(keep))


def test_legal_terms_are_unique_and_longest_first() -> None:
    terms = legal_terms()
    assert len(terms) == len(set(terms)) and terms
    assert [len(t) for t in terms] == sorted((len(t) for t in terms), reverse=True)


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        (CLAUSE, False),
        (CLAUSE.replace("第七条", "第八条"), True),
        (CLAUSE.replace("《个人信息出境标准合同办法》", "该办法"), True),
        (CLAUSE.replace("个人信息保护影响评估报告", "评估报告"), True),
        (CLAUSE.replace("，", "， "), False),  # whitespace does not matter
    ],
)
def test_lost_term(text: str, missing: bool) -> None:
    assert bool(lost_term(text, must_keep(CLAUSE))) is missing


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("8.3 合同类型：数据处理协议", True),
        ("公司名称：… 其中，跨境流动规定：161……", True),
        ("乙方应当及时通知甲方。\n通知方式：书面", True),
        ("乙方应当依照本协议第八条的约定，及时书面通知甲方。", False),
        ("依照《数据安全法》第三十条：重要数据的处理者应当开展风险评估。", False),  # 《》 in it
    ],
)
def test_form_field(text: str, found: bool) -> None:
    assert bool(form_field(text)) is found


def test_form_field_a_label_the_clause_writes_is_allowed() -> None:
    assert form_field("注意：乙方应当书面通知甲方。", "注意：乙方应当通知甲方。") == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("乙方应当书面通知甲方。", False),
        ("乙方应当书面通知甲方（见第八条）", False),
        ("乙方应当书面通知甲方", True),
        ("这是一个面诚的许可条意，…可用……", True),  # issue 30: ends on an ellipsis
        ("", False),
    ],
)
def test_unfinished(text: str, found: bool) -> None:
    assert bool(unfinished(text)) is found


@pytest.mark.parametrize(
    ("text", "known", "found"),
    [
        ("乙方应当通知甲方……", "", True),
        ("乙方应当通知甲方...", "", True),
        ("乙方应当通知甲方。", "", False),
        ("清单见附件……", "清单见附件……", False),  # the clause writes it
    ],
)
def test_ellipsis(text: str, known: str, found: bool) -> None:
    assert bool(ellipsis(text, known)) is found


@pytest.mark.parametrize(
    ("text", "known", "found"),
    [
        ("乙方应当于2025-04-01前（含当日）书面通知甲方；比例不超过5%。", "", False),
        ("接收方 Senze Europe GmbH 应当保密。", "Senze Europe GmbH（德国）", False),
        ("用户APP账号属于个人信息。", "", False),  # an acronym
        ("乙方应当通知甲方★。", "", True),
        ("乙方应当通知甲方😀。", "", True),
        ("乙方应当 please 通知甲方。", "", True),  # a Latin word the facts do not have
        ("乙方应当通知甲方┃。", "", True),
    ],
)
def test_stray_chars(text: str, known: str, found: bool) -> None:
    assert bool(stray_chars(text, known)) is found


def test_similarity_is_a_share_of_the_clause() -> None:
    assert similarity(CLAUSE, CLAUSE) == 100
    assert similarity("合同类型：数据处理协议", CLAUSE) < MIN_SIMILARITY
    assert 0 <= similarity("", CLAUSE) <= 100


@pytest.mark.parametrize("case", RECORDED["bad"], ids=lambda c: c["kind"][:40])
def test_recorded_bad_adaptations_are_refused(case: dict[str, object]) -> None:
    refused = _refusals(str(case["text"]), str(case["clause"]), truncated=bool(case["truncated"]))
    assert refused, case["text"]
    # a bad adaptation is refused as unfaithful, not only on its form
    assert refused & {"prose.unfaithful", "prose.lost_term", "prose.instruction_echo"}


@pytest.mark.parametrize("case", RECORDED["good"], ids=lambda c: c["kind"][:40])
def test_recorded_good_adaptations_pass(case: dict[str, object]) -> None:
    assert _refusals(str(case["text"]), str(case["clause"])) == set()


def test_threshold_lies_between_the_recorded_sets() -> None:
    bad = [similarity(c["text"], c["clause"]) for c in RECORDED["bad"]]
    good = [similarity(c["text"], c["clause"]) for c in RECORDED["good"]]
    assert max(bad) < MIN_SIMILARITY < min(good)


def test_a_clause_may_declare_terms_to_keep() -> None:
    from app.outline.clauses import parse_clauses

    source = (
        "clauses:\n  - id: x.one\n    part: core\n    text: 乙方应当在生效之日起通知甲方。\n"
        "    author: 组\n    approved: 2025-01-01\n    version: '1.0'\n    must_keep: [生效之日]\n"
        "  - id: x.two\n    part: core\n    text: 乙方应当通知甲方。\n"
        "    author: 组\n    approved: 2025-01-01\n    version: '1.0'\n"
    )
    one, two = parse_clauses(source)
    assert one.must_keep == ("生效之日",) and two.must_keep == ()
    keep = must_keep(one.text, one.must_keep)
    assert lost_term("乙方应当及时通知甲方。", keep)
    assert not lost_term("乙方应当自生效之日起及时通知甲方。", keep)
