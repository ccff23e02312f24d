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
GUIDE, CHECKLIST = "cross-border-filing-guide", "standard-contract-filing"
TRANSFER_TYPES = (GUIDE, CHECKLIST)
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
    "no_personal_information": (EX, ("是", "否", "0", "0", NO)),
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


# --- the points each route's draft carries: (point, words of the sentence, its citation) -----
PIPL, RULES, SAM = (
    "《中华人民共和国个人信息保护法》",
    "《促进和规范数据跨境流动规定》",
    "《数据出境安全评估办法》",
)
NDSR, SCC, PIC = (
    "《网络数据安全管理条例》",
    "《个人信息出境标准合同办法》",
    "《个人信息出境认证办法》",
)
PERSONAL = [
    ("separate consent", "并取得个人的单独同意", f"{PIPL}第三十九条"),
    (
        "impact assessment before the transfer",
        "向境外提供个人信息的，应当事前进行个人信息保护影响评估",
        f"{PIPL}第五十五条第一款第四项",
    ),
    ("what the assessment covers, kept 3 years", "对个人权益的影响及安全风险", f"{PIPL}第五十六条"),
    ("the duties stay on every route", "均应当按照法律、行政法规的规定履行告知", f"{RULES}第十条"),
]
SENSITIVE = [
    ("sensitive: separate consent", "处理敏感个人信息应当取得个人的单独同意", f"{PIPL}第二十九条")
]
ASSESSMENT = [
    ("completeness check", "5个工作日内完成完备性查验", f"{SAM}第七条"),
    ("acceptance", "7个工作日内，确定是否受理", f"{SAM}第七条第二款"),
    (
        "45-working-day review and its extension",
        "45个工作日内完成数据出境安全评估；情况复杂或者需要补充、更正材料的，可以适当延长",
        f"{SAM}第十二条",
    ),
    ("re-review", "申请复评，复评结果为最终结论", f"{SAM}第十三条"),
    (
        "no transfer before the assessment is passed",
        "评估通过前不得开始出境",
        f"{PIPL}第三十八条第一款第一项",
    ),
    ("re-filing triggers", "应当重新申报评估", f"{SAM}第十四条"),
    ("extension only on a condition", "未发生需要重新申报数据出境安全评估情形的", f"{RULES}第九条"),
    ("within the assessed scope", "不得超出评估时明确的数据出境目的", f"{NDSR}第三十八条"),
]
VOLUME_ASSESSMENT = [
    (
        "localisation and assessment by volume",
        "处理个人信息达到国家网信部门规定数量的",
        f"{PIPL}第四十条",
    )
]
IMPORTANT = [
    (
        "what counts as important data",
        "未被相关部门、地区告知或者公开发布为重要数据的",
        f"{RULES}第二条",
    ),
    ("important data is assessed", "重要数据确需向境外提供的", f"{NDSR}第三十七条"),
    (
        "the exemptions do not cover it",
        "不包括重要数据，重要数据不因人数不足",
        f"{RULES}第五条第二款",
    ),
]
CIIO = [
    (
        "localisation",
        "关键信息基础设施运营者应当将在境内收集和产生的个人信息存储在境内",
        f"{PIPL}第四十条",
    )
]
CIIO_BY_DATE = {
    "example": [
        (
            "the 2016 Cybersecurity Law",
            "个人信息和重要数据应当在境内存储",
            "《中华人民共和国网络安全法》第三十七条",
        )
    ],
    "2026-12-02": [
        (
            "the amended Cybersecurity Law",
            "个人信息和重要数据应当在境内存储",
            "《中华人民共和国网络安全法》第三十九条",
        )
    ],
}
CONTRACT = [
    ("filing within 10 working days", "自标准合同生效之日起10个工作日内", f"{SCC}第七条"),
    ("the estimate is labelled", "以工作日计，遇法定节假日顺延", ""),
    ("re-filing triggers", "补充或者重新订立标准合同，并履行相应备案手续", f"{SCC}第八条"),
]
CERTIFICATION = [
    (
        "certification is the other route",
        "经专业机构进行个人信息保护认证",
        f"{PIPL}第三十八条第一款第二项",
    ),
    ("who certifies", "依法取得个人信息保护认证资质的专业认证机构", f"{PIC}第七条"),
    ("conditions", "非关键信息基础设施运营者", f"{PIC}第五条"),
    (
        "validity and renewal",
        "认证证书的有效期为3年；证书到期需继续使用的，应当在有效期届满前6个月提出认证申请",
        f"{PIC}第八条第二款",
    ),
]
EXEMPT = {
    "trade_no_personal_information": [("article 3 only without PI", "仅在不包含个人信息或者重要数据时免予申报", f"{RULES}第三条")],
    "free_trade_zone": [("the zone's negative list", "负面清单逐项核对", f"{RULES}第六条")],
    "exemption": [("article 5 excludes important data", "不包括重要数据，出境数据中有经告知", f"{RULES}第五条第二款")],
    "below_thresholds": [("article 5 excludes important data", "不包括重要数据，出境数据中有经告知", f"{RULES}第五条第二款")],
}  # fmt: skip


def points(rule: str, day: str) -> list[tuple[str, str, str]]:
    """The points a senior lawyer expects in the draft for this rule, on this date."""
    route = PATTERNS[rule][0]
    people, sensitive = (int(n) for n in PATTERNS[rule][1][2:4])
    expected = list(PERSONAL) if people or sensitive else []
    expected += SENSITIVE if sensitive else []
    if route == SA:
        expected += ASSESSMENT
    if rule in ("individuals_assessment", "sensitive_assessment"):
        expected += VOLUME_ASSESSMENT
    if rule == "important_data":
        expected += IMPORTANT
    if rule == "ciio":
        expected += CIIO + CIIO_BY_DATE[day]
    if route == SC:
        expected += CONTRACT + (CERTIFICATION if day != "example" else [])
    return expected + EXEMPT.get(rule, [])


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("rule", sorted(PATTERNS))
@pytest.mark.parametrize("type_id", TRANSFER_TYPES)
def test_each_point_is_carried_by_a_sentence_with_its_citation(
    library, outlines, type_id, rule, day
) -> None:  # type: ignore[no-untyped-def]
    _, text, _ = draft(library, outlines, type_id, rule, day)
    lines = text.splitlines()
    for point, words, citation in points(rule, day):
        carrying = [ln for ln in lines if words in ln]
        assert carrying, f"{type_id} on {rule} ({day}): no sentence carries {point!r}"
        assert any(citation in ln for ln in carrying), (point, carrying[0], citation)


def test_the_standard_contract_deadline_is_computed_from_the_effective_date(
    library, outlines
) -> None:  # type: ignore[no-untyped-def]
    """2025-04-01 (a Tuesday), the day itself not counted: ten working days later is
    2025-04-16 on the legal calendar (4 April, 清明, is a public holiday), not the 15th a
    Monday-to-Friday count gives; the years the calendar holds are named."""
    _, text, _ = draft(library, outlines, CHECKLIST, "individuals_contract")
    assert "标准合同生效之日为2025-04-01" in text and "最迟为2025-04-16" in text
    assert "2025-04-15" not in text and "估算" not in text
    assert "法定节假日和调休安排为2004年至" in text


CONFIDENTIALITY = "confidentiality-agreement-points"
NDA_POINTS = [
    ("entrusted party notifies the entrusting party", "及时书面通知披露方", ""),
    ("the processor's notice to authorities and individuals", "并通知履行个人信息保护职责的部门和个人", f"{PIPL}第五十七条"),
    ("when individuals need not be notified", "可以不通知个人", f"{PIPL}第五十七条第二款"),
    ("incident response and reporting", "立即启动应急预案", f"{NDSR}第十一条"),
    ("return or deletion on termination", "应当将个人信息返还个人信息处理者或者予以删除", f"{PIPL}第二十一条第二款"),
    ("retention required by law", "法律、行政法规规定的保存期限未届满", f"{PIPL}第四十七条第二款"),
    ("retention required by law (条例)", "删除、匿名化处理个人信息从技术上难以实现的", f"{NDSR}第二十四条"),
    ("no sub-processing without consent", "不得转委托他人处理个人信息", f"{PIPL}第二十一条第三款"),
    ("sensitive personal information", "敏感个人信息应当取得个人的单独同意", f"{PIPL}第二十九条"),
]  # fmt: skip


def test_the_confidentiality_points_carry_incidents_retention_and_sensitive_data(
    library, outlines
) -> None:  # type: ignore[no-untyped-def]
    _, text, context = draft(library, outlines, CONFIDENTIALITY)  # 委托处理, 医疗健康
    lines = text.splitlines()
    for point, words, citation in NDA_POINTS:
        carrying = [ln for ln in lines if words in ln]
        assert carrying, f"no sentence carries {point!r}"
        assert any(citation in ln for ln in carrying), (point, carrying[0], citation)
    assert check(context, text).findings == ()


@pytest.mark.parametrize("rule", sorted(PATTERNS))
@pytest.mark.parametrize("type_id", TRANSFER_TYPES)
def test_the_title_follows_the_route(library, type_id, rule) -> None:  # type: ignore[no-untyped-def]
    """The draft's (and the DOCX's) title names only the route the facts lead to."""
    from app.drafting.context import prepare

    doc = library.types[type_id]
    ciio, important, people, sensitive, exemption = PATTERNS[rule][1]
    values = {**doc.example_values(), "is_ciio": ciio, "important_data": important,
              "individuals_count": people, "sensitive_count": sensitive, "exemption": exemption}  # fmt: skip
    title = prepare(doc, values, prompts_dir=PROMPTS).title
    route = PATTERNS[rule][0]
    assert ("安全评估申报表" in title) is (type_id == GUIDE and route == SA), title
    assert ("标准合同备案清单" in title) is (type_id == CHECKLIST and route == SC), title
