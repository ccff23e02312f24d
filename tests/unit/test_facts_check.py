"""The facts check: route and numbers in the draft against the form (fixtures and tables)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.route.facts import check_facts, form_facts
from app.route.form import decision_from_values
from app.validation.quantities import dates, quantities

FIXTURES = Path(__file__).parent / "facts_fixtures"
VALUES = json.loads((FIXTURES / "filing-guide.facts.json").read_text(encoding="utf-8"))
FACTS = form_facts(VALUES, decision_from_values(VALUES))


def found(text: str, values: dict[str, str] | None = None) -> list[tuple[str, str]]:
    facts = form_facts(values or VALUES, decision_from_values(values or VALUES))
    assert facts is not None
    return [(f.code, text[f.start : f.end]) for f in check_facts(text, facts)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("120万", 1_200_000),
        ("一百二十万", 1_200_000),
        ("1,200,000", 1_200_000),
        ("1200000", 1_200_000),
        ("１２０万", 1_200_000),
        ("1.2万", 12_000),
        ("0.8万", 8_000),
        ("3亿", 300_000_000),
        ("三亿五千万", 350_000_000),
        ("一亿零五百", 100_000_500),
        ("8000", 8_000),
        ("八千", 8_000),
        ("两万", 20_000),
    ],
)
def test_numbers_in_arabic_chinese_and_wan_yi_forms(text: str, value: int) -> None:
    assert [q.value for q in quantities(text)] == [value]


def test_dates_in_every_written_form() -> None:
    text = "2025年3月15日、二〇二五年三月十五日、2025-03-15、2025/3/15 与 2025年2月30日"
    assert [d.value.isoformat() for d in dates(text)] == ["2025-03-15"] * 4


def test_the_right_draft_has_no_facts_findings() -> None:
    text = (FIXTURES / "right.md").read_text(encoding="utf-8")
    assert found(text) == []


def test_the_wrong_numbers_are_each_found() -> None:
    text = (FIXTURES / "wrong-numbers.md").read_text(encoding="utf-8")
    # 8,000 people (sensitive excluded) would need no assessment: the figure flips the route
    assert found(text) == [
        ("facts.count_flips_route", "8000"),
        ("facts.number_mismatch", "1.2万"),
        ("facts.number_mismatch", "Mingchuan Asia Pte. Ltd."),
        ("facts.number_mismatch", "2025年4月15日"),
        ("facts.number_mismatch", "上海明川电子商务有限公司"),
        ("facts.number_mismatch", "一百万"),
    ]


def test_the_wrong_route_is_an_error_with_the_engines_route_and_basis() -> None:
    text = (FIXTURES / "wrong-route.md").read_text(encoding="utf-8")
    assert FACTS is not None
    findings = check_facts(text, FACTS)
    assert [f.code for f in findings] == ["facts.route_mismatch"]
    (wrong,) = findings
    assert wrong.severity == "error" and "无需申报数据出境安全评估" in text[wrong.start : wrong.end]
    assert "第七条第二项" in wrong.message_zh and "security assessment" in wrong.message_en


SC_VALUES = {**VALUES, "individuals_count": "150000", "sensitive_count": "0"}
EX_VALUES = {**VALUES, "individuals_count": "5000", "sensitive_count": ""}


@pytest.mark.parametrize(
    ("text", "values", "codes"),
    [
        # the route: asserted, denied, exempt, conditions and mistakes are not conclusions
        ("因此，贵公司应当申报数据出境安全评估。", VALUES, []),
        ("因此，贵公司应当订立标准合同。", VALUES, ["facts.route_mismatch"]),
        ("该公司免予申报数据出境安全评估、订立标准合同。", VALUES, ["facts.route_mismatch"]),
        ("该公司应当订立个人信息出境标准合同，无需申报安全评估。", SC_VALUES, []),
        ("该公司应当申报数据出境安全评估。", SC_VALUES, ["facts.route_mismatch"]),
        ("该公司无需订立标准合同。", SC_VALUES, ["facts.route_mismatch"]),
        ("该公司免予申报安全评估、订立标准合同或者通过认证。", EX_VALUES, []),
        ("综上，该公司应当订立标准合同。", EX_VALUES, ["facts.route_mismatch"]),
        ("若该公司人数达到100万人，应当申报安全评估。", SC_VALUES, []),
        ("判断该公司是否需要申报安全评估。", SC_VALUES, []),
        # advice for when a count reaches a threshold is a condition, not a conclusion
        ("贵公司敏感个人信息达到1万人时，应当改为申报数据出境安全评估。", SC_VALUES, []),
        ("该公司累计人数达到100万人以上的，应当申报数据出境安全评估。", SC_VALUES, []),
        ("届时贵公司应当申报数据出境安全评估。", SC_VALUES, []),
        ("贵公司已达到标准，应当申报数据出境安全评估。", SC_VALUES, ["facts.route_mismatch"]),
        ("【常见错误】\n该公司误以为应当申报安全评估。", SC_VALUES, []),
        ("关键信息基础设施运营者向境外提供个人信息的，应当申报安全评估。", SC_VALUES, []),
        # counts: the form's, in any form; thresholds and hypotheticals are not counts
        ("该公司出境120万人个人信息。", VALUES, []),
        ("该公司出境一百二十万人的个人信息。", VALUES, []),
        ("该公司出境1,208,000人的个人信息。", VALUES, []),  # the two counts together
        # a figure that would lead to another route is an error: 12万 → the standard contract
        ("该公司出境12万人的个人信息。", VALUES, ["facts.count_flips_route"]),
        ("该公司出境敏感个人信息八千人。", VALUES, []),
        ("该公司出境敏感个人信息八百人。", VALUES, ["facts.number_mismatch"]),
        ("120万名用户的订单记录。", VALUES, []),
        ("人数达到100万人以上的，应当申报。", VALUES, []),
        ("不满10万人个人信息的，免予申报。", VALUES, []),
        ("《数据出境安全评估办法》第四条的10万人标准已被调整。", VALUES, []),
        ("如果出境5万人，则可免予申报。", VALUES, []),
        ("1200万人次访问。", VALUES, []),
        ("第十五条", VALUES, []),
        ("该公司出境5,000人的个人信息。", EX_VALUES, []),
        # the form has no sensitive information: 20 people's would need the standard contract
        ("该公司出境敏感个人信息20人。", EX_VALUES, ["facts.count_flips_route"]),
        # dates and names
        ("拟申报日期：2025年3月15日；评估有效期至2028年3月15日。", VALUES, []),
        ("拟于2025年5月1日提交申报。", VALUES, ["facts.number_mismatch"]),
        ("Mingchuan Global Pte. Ltd.（新加坡）为接收方。", VALUES, []),
        ("委托上海明川跨境电子商务有限公司办理。", VALUES, []),
        ("接收方为新加坡明川环球有限公司。", VALUES, ["facts.number_mismatch"]),
    ],
)
def test_facts_table(text: str, values: dict[str, str], codes: list[str]) -> None:
    assert [code for code, _ in found(text, values)] == codes


def test_a_form_without_transfer_facts_is_not_checked() -> None:
    assert form_facts({"company_name": "甲有限公司", "clause": "…"}, None) is None
