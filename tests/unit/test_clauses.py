"""The clause library: `when:` conditions (table-driven), the reasons a clause is refused, and
every shipped clause loading, rendering from the form and passing the checks with 0 findings
under facts for which it is chosen."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.cli import main
from app.drafting.checking import check
from app.drafting.context import DraftContext, checking_context, decide_route
from app.outline.clause_checks import ClauseContext, refusal
from app.outline.clauses import ClauseFileError, parse_clauses, pick
from app.outline.compose import assemble
from app.outline.conditions import ConditionError, condition_facts, parse_condition
from app.outline.prepare import load_outlines, plan_for
from app.prompts import load_library, validate_values
from app.validation import load_catalogue

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
FACTS: dict[str, object] = {
    "route": "standard_contract_or_certification",
    "route_rule": "individuals_contract",
    "ciio": False,
    "important": False,
    "individuals": 150_000,
    "sensitive": 0,
    "exemption": "无",
    "term_months": "",
    "individuals_count": "150,000",
}

# the transfer forms' scenarios: each route (and each rule of the route engine) once
TRANSFER = {
    "assessment-individuals": {},
    "assessment-sensitive": {"sensitive_count": "20000"},
    "assessment-ciio": {"is_ciio": "是"},
    "assessment-important": {"important_data": "是"},
    "assessment-important-ciio": {"important_data": "是", "is_ciio": "是"},
    "contract-individuals": {"individuals_count": "150000", "sensitive_count": "0"},
    "contract-sensitive": {"individuals_count": "5000", "sensitive_count": "800"},
    "exempt-below": {"individuals_count": "5000", "sensitive_count": ""},
    "exempt-hr": {"exemption": "依法实施跨境人力资源管理"},
    "exempt-foreign": {"exemption": "境外收集的个人信息经境内处理后出境"},
    "exempt-trade": {
        "exemption": "国际贸易等活动中收集和产生的数据，不含个人信息或者重要数据",
        "individuals_count": "0",
        "sensitive_count": "0",
    },
    "exempt-ftz": {"exemption": "自由贸易试验区内向境外提供负面清单外的数据"},
    "exempt-ciio-no-pi": {"is_ciio": "是", "individuals_count": "0", "sensitive_count": "0"},
    "contract-2026": {
        "individuals_count": "150000",
        "sensitive_count": "0",
        "filing_date": "2026-12-02",
        "contract_effective_date": "2026-12-02",
    },
    "assessment-ciio-2026": {"is_ciio": "是", "filing_date": "2026-12-02"},
}
ASK_ALL = (
    "安全事件、返还、转委托、审计、出境、主管部门、记录、违约、争议"  # every continuation topic
)
SCENARIOS: dict[str, dict[str, dict[str, str]]] = {
    "cross-border-filing-guide": TRANSFER,
    "standard-contract-filing": TRANSFER,
    "self-assessment-report": TRANSFER,
    "pia-report": TRANSFER,
    "confidentiality-agreement-points": {
        "entrusted": {},
        "sharing": {"scenario": "数据共享", "industry": "金融", "term_months": ""},
        "other": {"scenario": "技术服务", "industry": "制造业"},
        "abroad": {"receiving_abroad": "是", "receiving_party": "Mingchuan Global Pte. Ltd."},
    },
    "clause-continuation": {
        "dpa": {},
        "nda": {"contract_type": "保密协议"},
        "other": {"contract_type": "采购合同", "instructions": ""},
        # every topic of the library, for each kind of contract and each side
        **{
            f"{kind}-{side}": {"contract_type": kind, "party_role": side, "instructions": ASK_ALL}
            for kind in ("数据处理协议", "保密协议", "采购合同")
            for side in ("甲方", "乙方")
        },
    },
}


@pytest.mark.parametrize(
    ("when", "holds"),
    [
        (None, True),
        ({}, True),
        ({"route": "standard_contract_or_certification"}, True),
        ({"route": "security_assessment"}, False),
        ({"route": ["exempt", "standard_contract_or_certification"]}, True),
        ({"route": {"not": "security_assessment"}}, True),
        ({"route": {"not": ["security_assessment", "standard_contract_or_certification"]}}, False),
        ({"individuals": {"at_least": 100_000}}, True),
        ({"individuals": {"at_least": 150_001}}, False),
        ({"individuals": {"below": 1_000_000}}, True),
        ({"individuals_count": {"at_least": 150_000}}, True),  # a form count, read as a number
        ({"sensitive": 0}, True),
        ({"ciio": False, "important": False}, True),
        ({"ciio": True}, False),
        ({"term_months": {"filled": False}}, True),
        ({"term_months": {"filled": True}}, False),
        ({"any_of": [{"ciio": True}, {"individuals": {"at_least": 100_000}}]}, True),
        ({"any_of": [{"ciio": True}, {"important": True}]}, False),
        ({"none_of": [{"route": "exempt"}]}, True),
        ({"none_of": [{"route": "exempt"}, {"sensitive": 0}]}, False),
        ({"route": "standard_contract_or_certification", "sensitive": {"at_least": 1}}, False),
    ],
)
def test_conditions(when: dict[str, Any] | None, holds: bool) -> None:
    assert parse_condition(when, FACTS).holds(FACTS) is holds


@pytest.mark.parametrize(
    ("when", "reason"),
    [
        ({"rout": "exempt"}, "unknown fact 'rout'"),
        ({"individuals": {"more_than": 5}}, "one of not, at_least, below, filled"),
        ({"individuals": {"at_least": "many"}}, "needs a whole number"),
        ({"term_months": {"filled": "yes"}}, "true or false"),
        ({"any_of": []}, "needs a list"),
        ({"any_of": [{"nope": 1}]}, "unknown fact 'nope'"),
        (["route"], "must be a mapping"),
    ],
)
def test_conditions_refused(when: object, reason: str) -> None:
    with pytest.raises(ConditionError, match=reason):
        parse_condition(when, FACTS)


def _clause(text: str, cites: list[dict[str, Any]] | None = None, **extra: Any) -> Any:
    raw = {"id": "x.y", "part": "p", "text": text, "cites": cites or [], "author": "a",
           "approved": "2025-01-01", "version": "1"} | extra  # fmt: skip
    return parse_clauses(yaml.safe_dump({"clauses": [raw]}, allow_unicode=True))[0]


CTX = ClauseContext(
    parts=frozenset({"p"}),
    facts=("route", "company_name"),
    render_context={"company_name": "甲公司", "route": None},
    doc_date=dt.date(2025, 3, 1),
    catalogue=load_catalogue(),
)
SCC, CBDF, SAM = "个人信息出境标准合同办法", "促进和规范数据跨境流动规定", "数据出境安全评估办法"


@pytest.mark.parametrize(
    ("clause", "reason"),
    [
        (
            _clause(
                "通过评估的结果有效期为3年，可以依照《促进和规范数据跨境流动规定》第七条在有效期届满前60个工作日内申请延长评估结果有效期。",
                [{"statute": CBDF, "article": 7}],
            ),
            "citation.content_mismatch",
        ),
        (
            _clause(
                "通过评估的结果有效期为2年，依照《数据出境安全评估办法》第十四条在有效期届满60个工作日前重新申报评估。",
                [{"statute": SAM, "article": 14}],
            ),
            "citation.superseded",
        ),
        (
            _clause(
                "标准合同生效之日起15个工作日内，应当依照《个人信息出境标准合同办法》第七条向所在地省级网信部门备案。",
                [{"statute": SCC, "article": 7}],
            ),
            "citation.figure_mismatch",  # the article says 10个工作日 in the same place
        ),
        (
            _clause(
                "应当依照《个人信息出境标准合同办法》第七条备案，并于30日内书面通知个人。",
                [{"statute": SCC, "article": 7}],
            ),
            "figure '30日' is not in any of its cited articles",
        ),
        (
            _clause(
                "依照《个人信息出境标准合同办法》第三十条备案。", [{"statute": SCC, "article": 30}]
            ),
            "there is no article 30",
        ),
        (
            _clause("备案。", [{"statute": SCC, "article": 7, "paragraph": 1, "item": 3}]),
            "has no paragraph 1, item 3",
        ),
        (
            _clause(
                "依照《中华人民共和国合同法》第六十条履行。",
                [{"statute": "中华人民共和国合同法", "article": 60}],
            ),
            "not held in the statute texts",
        ),
        (_clause("甲公司应当依照《个人信息出境标准合同办法》第七条备案。"), "without declaring it"),
        (_clause("甲公司应当备案。", [{"statute": SCC, "article": 7}]), "does not cite it"),
        (_clause("{{ compny_name }}应当备案。"), "unknown placeholder(s) compny_name"),
        (_clause("{{ company_name.__class__ }}应当备案。"), "does not render: SecurityError"),
        (_clause("{% if %}"), "does not render: TemplateSyntaxError"),
        (_clause("好。", when={"rout": "exempt"}), "when: unknown fact 'rout'"),
        (_clause("好。", part="q"), "part 'q' is not a generated part"),
    ],
)
def test_a_clause_is_refused_with_its_reason(clause: Any, reason: str) -> None:
    found = refusal(clause, CTX)
    assert found is not None and reason in found, found


def test_a_good_clause_passes() -> None:
    text = "{{ company_name }}应当在标准合同生效之日起10个工作日内，依照《个人信息出境标准合同办法》第七条向所在地省级网信部门备案。"
    assert refusal(_clause(text, [{"statute": SCC, "article": 7}]), CTX) is None


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("clauses: [", "not valid YAML"),
        ("clauses: [{id: a}]", "clauses.0.part"),
        (
            "clauses:\n"
            + "  - {id: a, part: p, text: t, author: x, approved: 2025-01-01, version: '1'}\n" * 2,
            "used twice: a",
        ),
    ],
)
def test_a_broken_clause_file_is_refused(source: str, reason: str) -> None:
    with pytest.raises(ClauseFileError, match=reason):
        parse_clauses(source)


@pytest.fixture(scope="module")
def shipped() -> tuple[Any, Any]:
    library = load_library(PROMPTS)
    return library, load_outlines(PROMPTS, library.types)


def test_every_shipped_clause_loads(shipped: tuple[Any, Any]) -> None:
    _, outlines = shipped
    assert outlines.errors == []
    for outline in outlines.outlines.values():
        assert outline.clause_errors == (), outline.clause_errors
        assert outline.clauses


@pytest.mark.parametrize("type_id", sorted(SCENARIOS))
def test_every_clause_is_chosen_renders_and_has_no_findings(
    shipped: tuple[Any, Any], type_id: str
) -> None:
    """Under each scenario every generated part gets a clause; the assembled draft (clauses in
    place of the model's prose) has 0 findings (citations, numbering, facts); and every clause
    of the library is chosen by some scenario."""
    library, outlines = shipped
    doc, outline = library.types[type_id], outlines.outlines[type_id]
    used: set[str] = set()
    for name, changes in SCENARIOS[type_id].items():
        values = validate_values(doc, {**doc.example_values(), **changes})
        plan = plan_for(outline, doc, values, route=decide_route(doc, values))
        generated = [s for s in plan.steps if s.generated]
        assert all(s.clause is not None for s in generated), (name, generated)
        used |= {s.clause.id for s in generated if s.clause}
        text, _ = assemble(plan.steps, {s.index: s.clause.text for s in generated if s.clause})
        context: DraftContext = replace(checking_context(doc, values), plan=plan)
        findings = check(context, text).findings
        assert findings == (), (name, [(f.code, f.message_zh) for f in findings])
        assert "{{" not in text and "{%" not in text
    assert used == {c.id for c in outline.clauses}


def test_pick_takes_the_first_clause_whose_conditions_hold(shipped: tuple[Any, Any]) -> None:
    library, outlines = shipped
    doc = library.types["standard-contract-filing"]
    clauses = outlines.outlines[doc.id].clauses
    for changes, expected in (
        ({}, "scc.eligibility.contract"),
        ({"individuals_count": "2000000"}, "scc.eligibility.assessment"),
        ({"individuals_count": "10"}, "scc.eligibility.exempt"),
    ):
        values = validate_values(doc, {**doc.example_values(), **changes})
        facts = condition_facts(values, decide_route(doc, values))
        chosen = pick(clauses, "eligibility", facts)
        assert chosen is not None and chosen.id == expected


def test_clauses_cli(shipped: tuple[Any, Any], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clauses", "check"]) == 0
    assert "cross-border-filing-guide" in capsys.readouterr().out
    assert main(["clauses", "list", "--type", "standard-contract-filing"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(ln.startswith("standard-contract-filing\tscc.") for ln in lines)
    assert main(["clauses", "list", "--type", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert "nope" in err and len(err.splitlines()) == 1


def test_clauses_check_refuses_a_bad_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A copied type whose clause cites an article that does not say what the clause says:
    `lexspec clauses check` names the clause and exits 2; the other clauses still load."""

    bad = {"id": "scc.bad", "part": "steps", "author": "a", "approved": "2025-01-01",
           "version": "1", "cites": [{"statute": SCC, "article": 9}],
           "text": "依照《个人信息出境标准合同办法》第九条，应当在标准合同生效之日起10个工作日内备案。"}  # fmt: skip
    assert _clauses_check_with(tmp_path, monkeypatch, "standard-contract-filing", bad) == 2
    captured = capsys.readouterr()
    assert "clause scc.bad" in captured.err and "standard-contract-filing: 10" in captured.out


CSL = "中华人民共和国网络安全法"
LOCALISATION = "依照《中华人民共和国网络安全法》第三十七条，关键信息基础设施的运营者在境内运营中收集和产生的个人信息和重要数据应当在境内存储。"  # fmt: skip


@pytest.mark.parametrize(
    ("statute", "article", "signed_off", "today", "stale"),
    [
        # the amended 网络安全法 (in force 2026-01-01) rewords 第三十七条 and 第三十九条
        (CSL, 37, "2025-06-01", "2026-12-02", True),
        (CSL, 39, "2025-06-01", "2026-12-02", True),
        (CSL, 37, "2026-01-01", "2026-12-02", False),  # signed on the day it took effect
        (CSL, 37, "2025-06-01", "2025-12-31", False),  # not yet in force today
        # a text that came into force after the sign-off: the 认证办法 (2026-01-01)
        ("个人信息出境认证办法", 8, "2025-12-01", "2026-12-02", True),
        ("个人信息出境认证办法", 8, "2026-12-02", "2026-12-02", False),
        # unchanged since: the PIPL
        ("中华人民共和国个人信息保护法", 39, "2022-01-01", "2026-12-02", False),
    ],
)  # fmt: skip
def test_a_clause_signed_off_before_a_change_of_its_article_is_stale(
    statute: str, article: int, signed_off: str, today: str, stale: bool
) -> None:
    import datetime as dt

    from app.outline.clause_checks import stale_citations
    from app.outline.clauses import clause_from_dict

    clause = clause_from_dict(
        {
            "id": "x",
            "part": "p",
            "text": "t",
            "author": "a",
            "approved": "2020-01-01",
            "version": "1",
            "signed_off": signed_off,
            "cites": [{"statute": statute, "article": article}],
        }
    )
    found = stale_citations(clause, dt.date.fromisoformat(today))
    assert bool(found) is stale
    assert all(f"article {article}" in line and "x: signed off" in line for line in found)


def test_a_clause_without_signed_off_is_signed_off_on_its_approval() -> None:
    from app.outline.clauses import clause_from_dict

    raw = {"id": "x", "part": "p", "text": "t", "author": "a", "approved": "2025-02-10",
           "version": "1"}  # fmt: skip
    assert str(clause_from_dict(raw).sign_off) == "2025-02-10"
    assert str(clause_from_dict({**raw, "signed_off": "2026-12-02"}).sign_off) == "2026-12-02"


def test_every_shipped_clause_is_signed_off_after_the_2026_changes(
    shipped: tuple[Any, Any],
) -> None:
    import datetime as dt

    _, outlines = shipped
    assert len(outlines.outlines) == 6  # every shipped type, clause continuation too
    for outline in outlines.outlines.values():
        for clause in outline.clauses:
            assert clause.signed_off is not None and clause.signed_off >= dt.date(2026, 1, 1), (
                clause.id
            )


def test_clauses_check_flags_a_clause_signed_before_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A clause relying on the 2016 网络安全法 第三十七条, signed off before the amended law took
    effect: it still loads, and `lexspec clauses check` names it and exits 2."""

    guide = "cross-border-filing-guide"
    old = {"id": "guide.old", "part": "why-route", "author": "a", "approved": "2025-06-01",
           "version": "1", "signed_off": "2025-06-01", "when": {"route_rule": "ciio"},
           "cites": [{"statute": CSL, "article": 37}], "text": LOCALISATION}  # fmt: skip
    assert _clauses_check_with(tmp_path, monkeypatch, guide, old) == 2
    captured = capsys.readouterr()
    count = len(
        yaml.safe_load((tmp_path / guide / "clauses.yaml").read_text(encoding="utf-8"))["clauses"]
    )
    assert f"{guide}: {count} clause(s) loaded" in captured.out  # flagged, not refused
    assert "guide.old: signed off 2025-06-01" in captured.err and "article 37" in captured.err


def _clauses_check_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, type_id: str, clause: dict[str, Any]
) -> int:
    """`lexspec clauses check` over a copy of the shipped prompts of `type_id` with one clause
    added to its library; returns the exit code."""
    import shutil

    from app.config import Settings
    from app.context import Context

    shutil.copytree(PROMPTS / type_id, tmp_path / type_id)
    path = tmp_path / type_id / "clauses.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["clauses"].append(clause)
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return main(["clauses", "check"], context=Context(Settings(prompts_dir=tmp_path)))
