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
from app.knowledge import Knowledge
from app.outline.compose import assemble
from app.outline.prepare import load_outlines, plan_for
from app.prompts import load_library, validate_values

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
GUIDE, CHECKLIST = "cross-border-filing-guide", "standard-contract-filing"
TRANSFER_TYPES = (GUIDE, CHECKLIST)
OTHER_TYPES = ("confidentiality-agreement-points", "clause-continuation")
SA, SC, EX = "security_assessment", "standard_contract_or_certification", "exempt"
NO = "无"

# rule id -> (route, form facts: is_ciio, important_data, individuals, sensitive, exemption
# [, the exempt part: individuals])
PATTERNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ciio": (SA, ("是", "否", "5000", "0", NO)),
    "important_data": (SA, ("否", "是", "500", "0", NO)),
    "individuals_assessment": (SA, ("否", "否", "1200000", "0", NO)),
    "sensitive_assessment": (SA, ("否", "否", "50000", "20000", NO)),
    "individuals_contract": (SC, ("否", "否", "150000", "0", NO)),
    "sensitive_contract": (SC, ("否", "否", "500", "800", NO)),
    "below_thresholds": (EX, ("否", "否", "5000", "0", NO)),
    "no_personal_information": (EX, ("是", "否", "0", "0", NO)),
    "exemption": (
        EX,
        ("否", "否", "2000000", "0", "订立、履行个人作为一方当事人的合同", "2000000"),
    ),
    "foreign_collected": (
        EX,
        ("否", "否", "300000", "0", "境外收集的个人信息经境内处理后出境", "300000"),
    ),
    "trade_no_personal_information": (
        EX,
        ("否", "否", "0", "0", "国际贸易等活动中收集和产生的数据，不含个人信息或者重要数据"),
    ),
    "free_trade_zone": (
        EX,
        ("否", "否", "2000000", "0", "自由贸易试验区内向境外提供负面清单外的数据", "2000000"),
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
        "数据出境安全评估申报表（",
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
        ciio, important, people, sensitive, exemption, *exempt = PATTERNS[rule][1]
        changes |= {
            "is_ciio": ciio,
            "important_data": important,
            "individuals_count": people,
            "sensitive_count": sensitive,
            "exemption": exemption,
            "exempt_individuals": exempt[0] if exempt else "",
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
    ("the deadline on the legal calendar", "法定节假日", ""),
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
    ciio, important, people, sensitive, exemption, *exempt = PATTERNS[rule][1]
    values = {**doc.example_values(), "is_ciio": ciio, "important_data": important,
              "individuals_count": people, "sensitive_count": sensitive, "exemption": exemption,
              "exempt_individuals": exempt[0] if exempt else ""}  # fmt: skip
    title = prepare(doc, values, knowledge=Knowledge(PROMPTS)).title
    route = PATTERNS[rule][0]
    assert ("安全评估申报表" in title) is (type_id == GUIDE and route == SA), title
    assert ("标准合同备案清单" in title) is (type_id == CHECKLIST and route == SC), title


# --- #40: route advice without traps, and guides that guide the filing --------------------------
def draft_with(library, outlines, type_id: str, **changes: str):  # type: ignore[no-untyped-def]
    """The draft the app writes for the type's example values with `changes`, and its check."""
    doc = library.types[type_id]
    values = validate_values(doc, {**doc.example_values(), **changes})
    decision = decide_route(doc, values)
    plan = plan_for(outlines[type_id], doc, values, route=decision)
    prose = {s.index: s.clause.text if s.clause else "" for s in plan.steps if s.generated}
    text, _ = assemble(plan.steps, prose)
    context = replace(checking_context(doc, values), plan=plan)
    return decision, text, check(context, text).findings


@pytest.mark.parametrize("type_id", TRANSFER_TYPES)
def test_an_exemption_covers_its_own_data_and_the_rest_is_counted(
    library, outlines, type_id
) -> None:  # type: ignore[no-untyped-def]
    """150,000 customers with the HR exemption: never “人数不论多少”; the draft asks for the
    employees' part while the form does not name it, and counts the rest once it does."""
    hr = {
        "individuals_count": "150000",
        "sensitive_count": "0",
        "exemption": "依法实施跨境人力资源管理",
    }
    decision, text, findings = draft_with(library, outlines, type_id, **hr)
    assert decision.route == SC and "人数不论多少" not in text
    assert "请填写属于该情形的人数" in text and findings == ()
    decision, text, findings = draft_with(
        library, outlines, type_id, **hr, exempt_individuals="5000"
    )
    assert decision.route == SC and "其中5,000人个人信息（不含敏感个人信息）属于该情形" in text
    assert "145,000人" in text and findings == ()


@pytest.mark.parametrize("type_id", TRANSFER_TYPES)
def test_a_count_one_short_of_the_threshold_is_to_be_monitored(library, outlines, type_id) -> None:  # type: ignore[no-untyped-def]
    decision, text, findings = draft_with(
        library, outlines, type_id, individuals_count="50000", sensitive_count="9999"
    )
    assert decision.route == SC
    (line,) = [ln for ln in text.splitlines() if "持续监测" in ln]
    assert "9,999人" in line and "差额为1" in line and "自当年1月1日起累计计算" in line
    assert findings == ()


@pytest.mark.parametrize("type_id", TRANSFER_TYPES)
def test_nothing_transferred_says_nothing_is_triggered(library, outlines, type_id) -> None:  # type: ignore[no-untyped-def]
    _, text, findings = draft_with(
        library, outlines, type_id, individuals_count="0", sensitive_count="0"
    )
    assert "不触发" in text and "累计向境外提供0人" not in text and "不满10万人" not in text
    assert findings == ()


@pytest.mark.parametrize("rule", ["ciio", "individuals_assessment", "important_data"])
def test_the_checklist_under_an_assessment_route_gives_the_right_reason(
    library, outlines, rule
) -> None:  # type: ignore[no-untyped-def]
    """No 【备案材料清单】 under an assessment route; a CIIO is outside the standard contract by
    标准合同办法第四条第一款第一项 (and 规定第七条第一项), the anti-splitting rule (第四条第三款)
    is given only where volumes decide."""
    _, text, _ = draft(library, outlines, CHECKLIST, rule)
    assert "【备案材料清单】" not in text and "【材料清单】" in text
    splitting = [ln for ln in text.splitlines() if "数量拆分" in ln]
    if rule == "ciio":
        lines = [ln for ln in text.splitlines() if "非关键信息基础设施运营者" in ln]
        assert any(f"{SCC}第四条第一款第一项" in ln for ln in lines), lines
        assert any(f"{RULES}第七条第一款第一项" in ln for ln in text.splitlines())
        assert splitting == []
    elif rule == "individuals_assessment":
        assert any(f"{SCC}第四条第三款" in ln for ln in splitting)
    else:
        assert splitting == [] and "不包括重要数据" in text


GUIDE_STEPS = (
    "第一步　数据处理者情况",
    "第二步　法定代表人信息",
    "第三步　数据安全负责人和管理机构信息",
    "第四步　经办人信息",
    "第五步　数据处理者遵守中国法律、行政法规、部门规章情况",
    "第六步　数据出境场景",
)
FILING_STEPS = (
    "第一步　个人信息处理者基本情况",
    "第二步　法定代表人信息",
    "第三步　经办人信息",
    "第四步　承诺书",
    "第五步　个人信息出境场景",
    "第六步　个人信息出境标准合同",
    "第七步　个人信息保护影响评估报告",
    "第八步　其他相关证明材料",
)


def test_the_guide_walks_the_application_form_in_order_for_this_client(library, outlines) -> None:  # type: ignore[no-untyped-def]
    _, text, _ = draft(library, outlines, GUIDE, "individuals_assessment")
    positions = [text.find(step) for step in GUIDE_STEPS]
    assert -1 not in positions and positions == sorted(positions)
    walk = text[text.index("【逐项填写指引】") : text.index("【材料清单】")]
    fields = [ln for ln in walk.splitlines() if "；证明材料：" in ln or "；常见错误：" in ln]
    assert len(fields) >= 10 and all("常见错误：" in ln for ln in fields)
    assert "填写“上海明川跨境电子商务有限公司”" in walk  # prefilled from the form
    assert "Mingchuan Global Pte. Ltd.（新加坡）" in walk and "累计1200000人" in walk
    assert "〔表单未填写" not in walk


def test_the_guide_lists_the_materials_and_the_online_system(library, outlines) -> None:  # type: ignore[no-untyped-def]
    _, text, _ = draft(library, outlines, GUIDE, "individuals_assessment")
    materials = text[text.index("【材料清单】") : text.index("【常见错误】")]
    for item in (
        "统一社会信用代码证件（营业执照）影印件",
        "法定代表人身份证件影印件",
        "经办人授权委托书",
        "承诺书",
        "数据出境安全评估申报表",
        "数据出境风险自评估报告",
        "拟订立的法律文件",
        "https://sjcj.cac.gov.cn",
    ):
        assert item in materials, item
    _, ciio, _ = draft(library, outlines, GUIDE, "ciio")
    assert "采用线下方式" in ciio and "采用线下方式" not in text


def test_the_checklist_walks_the_filing_and_its_materials(library, outlines) -> None:  # type: ignore[no-untyped-def]
    _, text, _ = draft(library, outlines, CHECKLIST, "individuals_contract")
    positions = [text.find(step) for step in FILING_STEPS]
    assert -1 not in positions and positions == sorted(positions)
    assert "15个工作日内完成材料查验" in text and "10个工作日内提交补充完善材料" in text
    for item in (
        "经办人授权委托书",
        "承诺书",
        "统一社会信用代码证件影印件",
        "https://sjcj.cac.gov.cn",
    ):
        assert item in text
    _, assessed, _ = draft(library, outlines, CHECKLIST, "ciio")
    assert [s for s in FILING_STEPS if s in assessed] == []


@pytest.mark.parametrize("type_id", TRANSFER_TYPES)
def test_the_document_opens_with_its_title_addressee_and_date(library, outlines, type_id) -> None:  # type: ignore[no-untyped-def]
    _, text, _ = draft(library, outlines, type_id)
    title, to, day = text.splitlines()[:3]
    assert title == library.types[type_id].title_zh
    assert to == f"致：{library.types[type_id].example_values()['company_name']}"
    assert re.fullmatch(r"日期：20\d\d年\d{1,2}月\d{1,2}日", day)
