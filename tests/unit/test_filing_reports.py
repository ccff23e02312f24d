"""The filing reports (数据出境风险自评估报告, 个人信息保护影响评估报告) × every rule the route engine
returns (the matrix of tests/unit/test_outline_routes.py, with the 以上/不满 edges) × two document
dates: the draft the app writes (its fixed parts and the vetted clauses standing in for model
prose) carries every template chapter, passes the full check (structure, numbering, citations
against the texts on its date, the form's facts and route), says what the report is for on that
route, and names the sentence that carries each point a senior lawyer expects, with its citation.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.drafting.checking import check
from app.drafting.context import DraftContext, checking_context, decide_route
from app.filing.templates import official_templates
from app.outline.compose import assemble
from app.outline.prepare import load_outlines, plan_for
from app.prompts import load_library, validate_values
from tests.unit.test_outline_routes import PATTERNS, SA, SC

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
SELF, PIA = "self-assessment-report", "pia-report"
REPORTS = (SELF, PIA)
NO = "无"
# the threshold edges: 以上 includes the number, 不满 excludes it (民法典第一千二百五十九条)
EDGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "at 1,000,000": (SA, ("否", "否", "1000000", "0", NO)),
    "at 999,999": (SC, ("否", "否", "999999", "0", NO)),
    "at 100,000": (SC, ("否", "否", "100000", "0", NO)),
    "at 99,999": ("exempt", ("否", "否", "99999", "0", NO)),
    "sensitive at 10,000": (SA, ("否", "否", "500", "10000", NO)),
    "sensitive at 9,999": (SC, ("否", "否", "500", "9999", NO)),
}
CASES = {**PATTERNS, **EDGES}
DAYS = ("example", "2026-12-02")


@pytest.fixture(scope="module")
def library():  # type: ignore[no-untyped-def]
    return load_library(PROMPTS)


@pytest.fixture(scope="module")
def outlines(library):  # type: ignore[no-untyped-def]
    return load_outlines(PROMPTS, library.types).outlines


def draft(
    library, outlines, type_id: str, case: str = "", day: str = "example", **changes: str
) -> tuple[str, str, DraftContext]:  # type: ignore[no-untyped-def]
    """(the rule decided, the draft with each generated part as its vetted clause, its context)."""
    doc = library.types[type_id]
    if day != "example":
        changes = {"filing_date": day, **changes}
    if case:
        ciio, important, people, sensitive, exemption, *exempt = CASES[case][1]
        changes = {
            "is_ciio": ciio,
            "important_data": important,
            "individuals_count": people,
            "sensitive_count": sensitive,
            "exemption": exemption,
            "exempt_individuals": exempt[0] if exempt else "",
            **changes,
        }
    values = validate_values(doc, {**doc.example_values(), **changes})
    decision = decide_route(doc, values)
    plan = plan_for(outlines[type_id], doc, values, route=decision)
    assert all(s.clause is not None for s in plan.steps if s.generated), type_id
    prose = {s.index: s.clause.text for s in plan.steps if s.generated and s.clause}
    text, _ = assemble(plan.steps, prose)
    return (
        (decision.rule if decision else ""),
        text,
        replace(checking_context(doc, values), plan=plan),
    )


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("type_id", REPORTS)
def test_every_route_passes_the_full_check(library, outlines, type_id, case, day) -> None:  # type: ignore[no-untyped-def]
    """Required chapters, numbering, citations on the date, facts and route: no finding."""
    rule, text, context = draft(library, outlines, type_id, case, day)
    assert decide_route(library.types[type_id], context.values).route == CASES[case][0], rule
    assert context.required_sections == official_templates()[type_id].chapter_headings
    assert [(f.code, f.message_en) for f in check(context, text).findings] == []
    assert "{{" not in text and "{%" not in text


def test_a_missing_chapter_is_an_error(library, outlines) -> None:  # type: ignore[no-untyped-def]
    _, text, context = draft(library, outlines, SELF)
    cut = "\n".join(ln for ln in text.splitlines() if "境外接收方情况" not in ln)
    codes = [(f.code, f.severity) for f in check(context, cut).findings]
    assert ("structure.missing_section", "error") in codes


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_report_says_what_it_is_for_on_the_route(library, outlines, case, day) -> None:  # type: ignore[no-untyped-def]
    """The self-assessment is a filing material only on the assessment route, the PIA only on the
    standard contract route; elsewhere each says so, and neither prescribes the other's filing."""
    route = CASES[case][0]
    _, self_text, _ = draft(library, outlines, SELF, case, day)
    _, pia_text, _ = draft(library, outlines, PIA, case, day)
    assert ("本报告不是申报材料" in self_text) is (route != SA)
    concluded = [ln for ln in self_text.splitlines() if "自评估结论为" in ln]
    assert bool(concluded) is (route == SA)
    assert all("应当申报数据出境安全评估" in ln for ln in concluded)
    assert ("10个工作日内向所在地省级网信部门备案" in pia_text) is (route == SC)
    people = any(int(n) for n in CASES[case][1][2:4])
    assert ("本报告不作为备案材料" in pia_text) is (route != SC and people)
    assert ("不需要就出境进行个人信息保护影响评估" in pia_text) is (not people)


def _template_titles(type_id: str) -> list[str]:
    return [n.heading for n in official_templates()[type_id].nodes()]


@pytest.mark.parametrize("type_id", REPORTS)
def test_the_outline_follows_the_template_chapter_by_chapter(library, outlines, type_id) -> None:  # type: ignore[no-untyped-def]
    """Every chapter, sub-chapter, item and sub-item of the template is a heading of the draft,
    numbered as the template numbers it and in its order."""
    _, text, _ = draft(library, outlines, type_id)
    lines = text.splitlines()
    found = []
    for node in official_templates()[type_id].nodes():
        number = {1: f"{node.number}、", 2: f"（{node.number}）", 3: f"{node.number}."}.get(
            node.level, f"（{node.number}）"
        )
        heading = f"{number}{node.heading}"
        assert heading in lines, f"{type_id}: no heading line {heading!r}"
        found.append(lines.index(heading))
    assert found == sorted(found), f"{type_id}: the template's order is not kept"
    assert (
        library.types[type_id].required_sections == official_templates()[type_id].chapter_headings
    )


def test_the_data_item_table_has_the_templates_columns_and_a_deduplicated_count(
    library, outlines
) -> None:  # type: ignore[no-untyped-def]
    items = (
        "姓名|收货人姓名|配送所必需|张某|\n姓名|重复的一行||| \n手机号码\n 订单记录 |订单号||SO1|"
    )
    _, text, context = draft(library, outlines, SELF, data_items=items)
    assert "| 序号 | 数据项名称 | 内容描述 | 出境必要性 | 示例 | 备注 |" in text
    assert "| 1 | 姓名 | 收货人姓名 | 配送所必需 | 张某 | 〔待客户补充〕 |" in text
    assert "| 3 | 订单记录 | 订单号 | 〔待客户补充〕 | SO1 | 〔待客户补充〕 |" in text
    assert "重复的一行" not in text and "同一业务场景下的数据项已去重，共3项" in text
    assert check(context, text).findings == ()
    _, from_categories, _ = draft(library, outlines, SELF, data_items="")
    assert "| 2 | 手机号码 | 〔待客户补充〕 |" in from_categories  # the categories, one a row
    assert "共5项" in from_categories


def test_what_the_facts_cannot_supply_is_listed_for_the_client(library, outlines) -> None:  # type: ignore[no-untyped-def]
    """The recipient's security measures, the organisation chart and, without dates, the
    assessment period are placeholders, each listed at the end with where it stands."""
    _, text, _ = draft(library, outlines, SELF, assessment_start="", assessment_end="")
    body, annex = text.split("【待客户补充事项】")
    assert "〔待客户补充：评估工作的起止时间（开始日期、完成日期）〕" in body
    for what, where in (
        ("评估工作的起止时间（开始日期、完成日期）", "一（一）"),
        ("组织架构图，数据安全管理机构及数据安全负责人的信息", "二（一）2"),
        (
            "境外接收方的数据安全管理制度、技术措施（加密、访问控制、日志审计等）和能力证明",
            "二（四）3",
        ),
        ("法律文件中约束再转移的条款", "二（五）3"),
    ):
        assert f"{what}（见{where}）" in annex
    placeholders = body.count("〔待客户补充：")
    assert annex.count("（见") == placeholders  # each listed once (none repeats in this draft)


def test_a_stale_assessment_is_flagged_in_the_report(library, outlines) -> None:  # type: ignore[no-untyped-def]
    """Completed 28 February, filed 29 May: more than 3 months (the last day is 28 May)."""
    _, text, context = draft(library, outlines, SELF, filing_date="2025-05-29")
    assert (
        "〔待客户补充：拟申报（备案）日期 2025-05-29 晚于评估完成之日（2025-02-28）起3个月（2025-05-28）"
        in text
    )
    assert "符合上述要求" not in text
    assert check(context, text).findings == ()
    _, fresh, _ = draft(library, outlines, SELF, filing_date="2025-05-28")
    assert "评估完成之日起3个月内申报，符合上述要求" in fresh


# --- the points each report carries: (point, words of the sentence, its citation) -------------
SAM, RULES, PIPL = (
    "《数据出境安全评估办法》",
    "《促进和规范数据跨境流动规定》",
    "《中华人民共和国个人信息保护法》",
)
SCC, NDSR, DSL = (
    "《个人信息出境标准合同办法》",
    "《网络数据安全管理条例》",
    "《中华人民共和国数据安全法》",
)
SELF_POINTS = [
    (
        "the template's 3-month rule, quoted",
        "报告所述自评估活动为本次申报前3个月内完成",
        "《数据出境安全评估申报指南（第二版）》附件4说明（二）",
    ),
    ("the assessment period", "评估工作自2025-01-06起至2025-02-28止", ""),
    ("article 5's items, quoted", "重点评估以下事项", f"{SAM}第五条"),
    (
        "item 1 assessed",
        "自评估核对数据出境和境外接收方处理数据的目的、范围、方式",
        f"{SAM}第五条第一款第一项",
    ),
    (
        "item 2 assessed",
        "分析数据出境可能对国家安全、公共利益、个人或者组织合法权益带来的风险",
        f"{SAM}第五条第一款第二项",
    ),
    (
        "item 3 assessed",
        "履行责任义务的管理和技术措施、能力等能否保障出境数据的安全",
        f"{SAM}第五条第一款第三项",
    ),
    ("item 4 assessed", "自评估识别数据出境中和出境后遭到篡改", f"{SAM}第五条第一款第四项"),
    ("item 5 assessed", "是否充分约定了数据安全保护责任义务", f"{SAM}第五条第一款第五项"),
    ("item 6 assessed", "自评估一并考虑其他可能影响数据出境安全的事项", f"{SAM}第五条第一款第六项"),
    ("article 9's clauses, quoted", "至少包括以下内容", f"{SAM}第九条"),
    (
        "the legal document named",
        "与境外接收方拟订立的法律文件：《数据跨境传输协议》（拟签署稿）",
        "",
    ),
    ("the de-duplicated count", "同一业务场景下的数据项已去重，共5项", ""),
    ("the route", "出境路径：申报数据出境安全评估", ""),
    (
        "the route's basis",
        "应当通过所在地省级网信部门向国家网信部门申报数据出境安全评估",
        f"{RULES}第七条",
    ),
    ("the conclusion with its reasons", "理由如下：一是", ""),
]
PERSONAL = [
    ("notice and separate consent", "并取得个人的单独同意", f"{PIPL}第三十九条"),
    (
        "the recipient's protection standard",
        "达到个人信息保护法规定的个人信息保护标准",
        f"{PIPL}第三十八条第三款",
    ),
]
SENSITIVE = [
    ("sensitive: separate consent", "处理敏感个人信息应当取得个人的单独同意", f"{PIPL}第二十九条")
]
IMPORTANT = [
    (
        "what counts as important data",
        "未被相关部门、地区告知或者公开发布为重要数据的",
        f"{RULES}第二条",
    ),
    ("important data is assessed", "重要数据不因人数不足", f"{NDSR}第三十七条"),
    (
        "its security officer",
        "重要数据的处理者应当明确数据安全负责人和管理机构",
        f"{DSL}第二十七条第二款",
    ),
    ("its risk assessments", "定期开展风险评估", f"{DSL}第三十条"),
]
CIIO = [("localisation", "应当将在境内收集和产生的个人信息存储在境内", f"{PIPL}第四十条")]
CIIO_BY_DATE = {  # the Cybersecurity Law as amended from 1 January 2026 renumbers the article
    "example": (
        "the 2016 Cybersecurity Law",
        "个人信息和重要数据应当在境内存储",
        "《中华人民共和国网络安全法》第三十七条",
    ),
    "2026-12-02": (
        "the amended Cybersecurity Law",
        "个人信息和重要数据应当在境内存储",
        "《中华人民共和国网络安全法》第三十九条",
    ),
}
EDGE = [
    (
        "以上 includes the number",
        "所称的“不满”、“超过”、“以外”，不包括本数",
        "《中华人民共和国民法典》第一千二百五十九条",
    )
]
PIA_POINTS = [
    (
        "the template's 3-month rule, quoted",
        "报告所述评估工作为本次申报前3个月内完成",
        "《个人信息出境标准合同备案指南（第二版）》附件5说明（二）",
    ),
    ("the assessment period", "评估工作自2025-02-17起至2025-03-21止", ""),
    ("article 5's items, quoted", "重点评估以下内容", f"{SCC}第五条"),
    (
        "item 1 assessed",
        "评估核对个人信息处理者和境外接收方处理个人信息的目的、范围、方式",
        f"{SCC}第五条第一款第一项",
    ),
    ("item 2 assessed", "分析个人信息出境可能对个人信息权益带来的风险", f"{SCC}第五条第一款第二项"),
    ("item 3 assessed", "能否保障出境个人信息的安全", f"{SCC}第五条第一款第三项"),
    ("item 4 assessed", "并核查个人信息权益维护的渠道是否通畅", f"{SCC}第五条第一款第四项"),
    (
        "item 5 assessed",
        "对标准合同履行的影响，包括当地公权力机关调取个人信息的规定和实践",
        f"{SCC}第五条第一款第五项",
    ),
    (
        "item 6 assessed",
        "评估一并考虑其他可能影响个人信息出境安全的事项",
        f"{SCC}第五条第一款第六项",
    ),
    ("the report is kept 3 years", "应当至少保存三年", f"{PIPL}第五十六条第二款"),
]
PIA_ON_ROUTE = {
    SC: [
        (
            "filed within 10 working days",
            "在标准合同生效之日起10个工作日内向所在地省级网信部门备案",
            f"{SCC}第七条",
        ),
        (
            "no transfer before the contract",
            "标准合同生效后方可开展个人信息出境活动",
            f"{SCC}第六条第三款",
        ),
    ],
    SA: [
        (
            "a PIA before any transfer",
            "向境外提供个人信息的，仍应当事前进行个人信息保护影响评估",
            f"{PIPL}第五十五条第一款第四项",
        )
    ],
    "exempt": [("the duties remain", "仍应当按照法律、行政法规的规定履行告知", f"{RULES}第十条")],
}


def points(type_id: str, case: str, day: str = "example") -> list[tuple[str, str, str]]:
    """The points a senior lawyer expects in this report on these facts, on this date."""
    route, (ciio, important, people, sensitive, *_) = CASES[case]
    personal = int(people) or int(sensitive)
    expected = list(SELF_POINTS) if type_id == SELF else list(PIA_POINTS)
    if type_id == SELF and route != SA:  # the route's own basis replaces article 7
        expected = [p for p in expected if p[0] != "the route's basis"]
        expected = [
            p for p in expected if p[0] not in ("the route", "the conclusion with its reasons")
        ]
    if personal:
        expected += PERSONAL
    if int(sensitive):
        expected += SENSITIVE
    if type_id == SELF and important == "是":
        expected += IMPORTANT
    if type_id == SELF and ciio == "是" and route == SA:
        expected += [*CIIO, CIIO_BY_DATE[day]]
    if int(people) in (1_000_000, 100_000) or int(sensitive) == 10_000:
        expected += EDGE
    if type_id == PIA and (personal or route == SC):
        expected += PIA_ON_ROUTE[route]
    if type_id == PIA and not personal:
        expected = [p for p in expected if p[0] != "the report is kept 3 years"]
    return expected


@pytest.mark.parametrize("day", DAYS)
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("type_id", REPORTS)
def test_each_point_is_carried_by_a_sentence_with_its_citation(
    library, outlines, type_id, case, day
) -> None:  # type: ignore[no-untyped-def]
    _, text, _ = draft(library, outlines, type_id, case, day)
    lines = text.splitlines()
    for point, words, citation in points(type_id, case, day):
        carrying = [ln for ln in lines if words in ln]
        assert carrying, f"{type_id} on {case} ({day}): no sentence carries {point!r}"
        assert any(citation in ln for ln in carrying), (point, carrying[0], citation)


# --- confidentiality points when the receiving party is abroad (an overseas affiliate counts) ---
CONFIDENTIALITY = "confidentiality-agreement-points"
ABROAD_POINTS = [
    (
        "disclosure is a transfer, on its route",
        "披露即属于向境外提供数据，应当在披露前按出境路径办理",
        f"{RULES}第七条",
    ),
    (
        "the standard contract route",
        "应当依法与境外接收方订立个人信息出境标准合同",
        f"{RULES}第八条",
    ),
    ("the exemptions", "免予申报数据出境安全评估、订立个人信息出境标准合同", f"{RULES}第五条"),
    (
        "onward transfer",
        "对于境外接收方将出境数据再转移给其他组织、个人的约束性要求",
        f"{SAM}第九条第一款第三项",
    ),
    (
        "foreign authorities: personal information",
        "不得向外国司法或者执法机构提供存储于中华人民共和国境内的个人信息",
        f"{PIPL}第四十一条",
    ),
    (
        "foreign authorities: data",
        "不得向外国司法或者执法机构提供存储于中华人民共和国境内的数据",
        f"{DSL}第三十六条",
    ),
    ("important data", "应当通过国家网信部门组织的数据出境安全评估", f"{NDSR}第三十七条"),
    ("the audit right", "披露方有权审计、检查接收方的处理活动", f"{PIPL}第三十八条第三款"),
    ("a clause on all three", "披露方有权对接收方处理数据的情况进行审计", f"{DSL}第三十六条"),
]


def test_confidentiality_points_when_the_receiving_party_is_abroad(library, outlines) -> None:  # type: ignore[no-untyped-def]
    _, text, context = draft(library, outlines, CONFIDENTIALITY, receiving_abroad="是")
    lines = text.splitlines()
    for point, words, citation in ABROAD_POINTS:
        carrying = [ln for ln in lines if words in ln]
        assert carrying, f"no sentence carries {point!r}"
        assert any(citation in ln for ln in carrying), (point, carrying[0], citation)
    assert check(context, text).findings == ()
    _, domestic, _ = draft(library, outlines, CONFIDENTIALITY, receiving_abroad="否")
    assert "披露即数据出境" not in domestic and "外国司法" not in domestic
