"""Every document type × every route the engine returns: the draft the app writes (its fixed
parts and the vetted clauses that stand in for model prose) prescribes only the procedure of the
route the facts lead to, and carries each point a competent guide contains, with its citation."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from app.drafting.checking import check
from app.drafting.context import checking_context, decide_route
from app.outline.compose import assemble
from app.outline.prepare import load_outlines, plan_for
from app.prompts import load_library, validate_values

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
GUIDE, CONTRACT = "cross-border-filing-guide", "standard-contract-filing"
TRANSFER_TYPES = (GUIDE, CONTRACT)
OTHER_TYPES = ("confidentiality-agreement-points", "clause-continuation")
SA, SC, EX = "security_assessment", "standard_contract_or_certification", "exempt"
NO = "无"

# rule id -> (route, form facts: is_ciio, important_data, individuals, sensitive, exemption)
PATTERNS: dict[str, tuple[str, tuple[str, str, str, str, str]]] = {
    "ciio": (SA, ("是", "否", "5000", "0", NO)),
    "important_data": (SA, ("否", "是", "500", "0", NO)),
    "individuals_assessment": (SA, ("否", "否", "1200000", "0", NO)),
    "sensitive_assessment": (SA, ("否", "否", "50000", "20000", NO)),
    "individuals_contract": (SC, ("否", "否", "150000", "0", NO)),
    "sensitive_contract": (SC, ("否", "否", "500", "800", NO)),
    "below_thresholds": (EX, ("否", "否", "5000", "0", NO)),
    "ciio_no_personal_information": (EX, ("是", "否", "0", "0", NO)),
    "exemption": (EX, ("否", "否", "2000000", "0", "订立、履行个人作为一方当事人的合同")),
    "foreign_collected": (EX, ("否", "否", "300000", "0", "境外收集的个人信息经境内处理后出境")),
    "trade_no_personal_information": (
        EX,
        ("否", "否", "0", "0", "国际贸易等活动中收集和产生的数据，不含个人信息或者重要数据"),
    ),
    "free_trade_zone": (
        EX,
        ("否", "否", "2000000", "0", "自由贸易试验区内向境外提供负面清单外的数据"),
    ),
}
VOLUME_RULES = {
    "individuals_assessment",
    "sensitive_assessment",
    "individuals_contract",
    "sensitive_contract",
    "below_thresholds",
}

# what prescribes a route's procedure: shown only where the facts lead to that route
PROCEDURE: dict[str, tuple[str, ...]] = {
    SC: (
        "10个工作日内",
        "标准合同生效日期",
        "《个人信息出境标准合同办法》第七条",
        "重新订立标准合同",
        "个人信息出境认证办法",
        "备案时限",
    ),
    SA: (
        "数据出境安全评估申报书",
        "风险自评估报告",
        "45个工作日",
        "复评",
        "重新申报评估",
        "延长3年",
    ),
    EX: ("适用免予申报情形的事实依据", "应留存的记录"),
}
COUNTING_MISTAKE = re.compile(r"当年新增|自当年1月1日起累计计算|自当年1月1日起累计的口径")


@pytest.fixture(scope="module")
def library():  # type: ignore[no-untyped-def]
    return load_library(PROMPTS)


@pytest.fixture(scope="module")
def outlines(library):  # type: ignore[no-untyped-def]
    return load_outlines(PROMPTS, library.types).outlines


DATE_FIELDS = ("filing_date", "contract_effective_date")
DAYS = ("example", "2026-12-02")  # the examples' 2025 dates, and a date after the 2026 changes


def draft(
    library, outlines, type_id: str, rule: str = "", day: str = "example"
) -> tuple[str, str, str]:  # type: ignore[no-untyped-def]
    """(the rule decided, the draft the app writes with each generated part as its vetted clause,
    the document's date)."""
    doc = library.types[type_id]
    changes: dict[str, str] = {}
    if day != "example":
        changes |= {f.name: day for f in doc.fields if f.name in DATE_FIELDS}
    if rule:
        ciio, important, people, sensitive, exemption = PATTERNS[rule][1]
        changes |= {
            "is_ciio": ciio,
            "important_data": important,
            "individuals_count": people,
            "sensitive_count": sensitive,
            "exemption": exemption,
        }
    values = validate_values(doc, {**doc.example_values(), **changes})
    decision = decide_route(doc, values)
    plan = plan_for(outlines[type_id], doc, values, route=decision)
    prose = {s.index: s.clause.text if s.clause else "" for s in plan.steps if s.generated}
    text, _ = assemble(plan.steps, prose)
    context = replace(checking_context(doc, values), plan=plan)
    return (decision.rule if decision else ""), text, context


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("rule", sorted(PATTERNS))
@pytest.mark.parametrize("type_id", TRANSFER_TYPES)
def test_no_part_prescribes_another_routes_procedure(library, outlines, type_id, rule, day) -> None:  # type: ignore[no-untyped-def]
    decided, text, _ = draft(library, outlines, type_id, rule, day)
    route = PATTERNS[rule][0]
    assert decided == rule
    for other, phrases in PROCEDURE.items():
        if other == route:
            continue
        shown = [p for p in phrases if p in text]
        assert shown == [], f"{type_id} on {rule} prescribes the {other} procedure: {shown}"
    if rule not in VOLUME_RULES:
        assert not COUNTING_MISTAKE.search(text), f"{type_id} on {rule}: head counts decide nothing"


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("rule", sorted(PATTERNS))
@pytest.mark.parametrize("type_id", TRANSFER_TYPES)
def test_every_route_passes_every_check(library, outlines, type_id, rule, day) -> None:  # type: ignore[no-untyped-def]
    """Citations against the texts on the document's date, numbering, and the facts and route."""
    _, text, context = draft(library, outlines, type_id, rule, day)
    findings = check(context, text).findings
    assert [(f.code, f.message_en) for f in findings] == []


@pytest.mark.parametrize("type_id", OTHER_TYPES)
def test_types_without_a_route_prescribe_no_route(library, outlines, type_id) -> None:  # type: ignore[no-untyped-def]
    decided, text, _ = draft(library, outlines, type_id)
    assert decided == ""
    for phrases in PROCEDURE.values():
        assert [p for p in phrases if p in text] == []
