"""Prose gates, table-driven: (text, expected finding codes)."""

from __future__ import annotations

import datetime as dt

import pytest

from app.outline.gates import (
    cut_off,
    dangling_lead_in,
    garble,
    gate_findings,
    instruction_echo,
    outcome_promise,
    repetition,
    unauthorised_disclosure,
    wrong_fact,
)
from app.route.claims import Facts, read_facts

ASK = "请说明接收方在该场景下处理上述数据的主要风险，以及披露方应当如何控制这些风险。"
CLAUSE = "依照《促进和规范数据跨境流动规定》第七条，累计向境外提供100万人以上个人信息的，应当申报。"
FACTS = read_facts(
    {
        "individuals_count": "150000",
        "sensitive_count": "0",
        "contract_effective_date": "2025-04-01",
        "recipient": "Senze Europe GmbH（德国）",
        "data_categories": "用户APP账号、手机号码",
    },
    known=CLAUSE,
)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("请说明接收方在该场景下处理上述数据的主要风险，以及披露方应当如何控制。", True),
        ("接收方在该场景下处理上述数据的主要风险是泄露。", True),  # 10 characters of the ask
        ("主要风险在于数据泄露和超范围使用，披露方应当约定审计权。", False),
        ("", False),
    ],
)
def test_instruction_echo(text: str, found: bool) -> None:
    assert bool(instruction_echo(text, ASK)) is found


def test_instruction_echo_ignores_what_the_clause_also_says() -> None:
    ask = "请依据上述事实改写：累计向境外提供100万人以上个人信息的，应当申报。"
    assert instruction_echo("累计向境外提供100万人以上个人信息的，应当申报。", ask, CLAUSE) == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("以下是一条可以直接放入保密协议的保密义务条款：", True),
        ("主要风险如下：", True),
        ("注意事项如下。", True),
        ("应当注意以下", True),
        ("Notes:", True),
        ("应当注意以下事项：一是核对人数；二是核对类别。", False),
        ("接收方应当返还或者删除数据。", False),
        ("第一段。\n具体要求如下：\n", True),
    ],
)
def test_dangling_lead_in(text: str, found: bool) -> None:
    assert bool(dangling_lead_in(text)) is found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("该公ocese的出境路径应当申报。", True),  # Latin letters inside a Chinese word
        ("应当采取必要措斉。", True),  # 斉: a Japanese form, outside GB 2312
        ("贵公司应当カタ申报。", True),  # kana
        ("数据Данные出境。", True),  # Cyrillic
        ("数据\ufffd出境。", True),  # a replacement character
        ("贵公司的APP用户数据应当加密。", False),  # an acronym
        ("向Senze Europe GmbH（德国）提供数据。", False),  # Latin with spaces, the form's value
        ("向Senze公司提供数据。", False),  # found in the known text (the form's recipient)
        ("依照《中华人民共和国个人信息保护法》第三十九条取得单独同意。", False),
        ("用户APP账号应当加密。", False),
    ],
)
def test_garble(text: str, found: bool) -> None:
    assert bool(garble(text, FACTS.known)) is found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("应当申报安全评估。应当申报安全评估。", True),
        ("数据数据数据数据数据", True),
        ("风险风险", False),
        ("应当申报。应当备案。", False),  # short sentences may repeat
        ("贵公司应当订立标准合同，并在生效之日起10个工作日内备案。", False),
    ],
)
def test_repetition(text: str, found: bool) -> None:
    assert bool(repetition(text)) is found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("贵公司涉及人数，0。", True),  # the example: the form says 150,000
        ("贵公司累计向境外提供150000人个人信息。", False),
        ("贵公司累计向境外提供15万人个人信息。", False),
        ("贵公司累计向境外提供20万人个人信息。", True),
        ("贵公司未向境外提供敏感个人信息，敏感个人信息涉及0人。", False),
        ("贵公司向境外提供150000人个人信息和0人敏感个人信息。", False),  # each its own count
        ("贵公司向境外提供0人个人信息和150000人敏感个人信息。", True),
        ("敏感个人信息涉及人数：0。", False),
        ("达到100万人以上个人信息的，应当申报。", False),  # the clause's threshold
        ("自2022年1月1日起累计计算。", True),  # a date that is not the form's
        ("标准合同于2025年4月1日生效。", False),
        ("标准合同于2025-04-01生效。", False),
        ("应当在10个工作日内备案。", False),
    ],
)
def test_wrong_fact(text: str, found: bool) -> None:
    assert bool(wrong_fact(text, FACTS)) is found


def test_wrong_fact_without_counts_on_the_form_checks_dates_only() -> None:
    facts = Facts(dates={"date": dt.date(2025, 4, 1)})
    assert wrong_fact("涉及3人。", facts) == []
    assert [f.code for f in wrong_fact("自2022年1月1日起。", facts)] == ["prose.wrong_fact"]


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("贵公司应当订立个人信息出境标准合同。", []),
        (
            "以下是一条可以直接放入保密协议的保密义务条款：",
            ["prose.dangling_lead_in"],
        ),
        (
            "请说明接收方在该场景下处理上述数据的主要风险。该公ocese的风险。",
            ["prose.instruction_echo", "prose.garble"],
        ),
        (
            "贵公司涉及人数，0。贵公司涉及人数，0。",
            ["prose.repetition", "prose.wrong_fact"],
        ),
    ],
)
def test_gate_findings(text: str, codes: list[str]) -> None:
    found = gate_findings(text, ASK, FACTS)
    assert [f.code for f in found] == codes
    assert all(0 <= f.start < f.end <= len(text) for f in found)
    assert all(f.severity == "error" and f.message_zh and f.message_en for f in found)


def test_an_echo_of_the_system_prompt_is_an_echo() -> None:
    """A small model may copy the shared system prompt back: the runner's instruction holds it."""
    from app.outline.provenance import instruction

    system = "你是一名数据合规律师，为企业法务撰写《数据出境安全评估申报表》填写指南中的一段说明。"
    text = "你是一名数据合规律师，为企业法务撰写《数据出境安全评估申报表》填写指南……"

    class Step:  # the two fields instruction() reads
        prompt = "请说明准备材料的要点。"
        clause = None

    asked = instruction(Step(), "write", system)  # type: ignore[arg-type]
    assert [f.code for f in gate_findings(text, asked, FACTS)] == ["prose.instruction_echo"]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (
            "你是一个数据合规律师，为……",
            True,
        ),  # the system prompt, paraphrased (seen in a browser run)
        ("贵公司应当申报。你的读者是企业法务。", True),
        ("作为一名AI助手，我建议贵公司申报。", True),
        ("You are a data compliance lawyer.", True),
        ("您是否需要申报，取决于出境人数。", False),  # 您是否 asks the reader a question
        ("作为数据处理者，贵公司应当事前开展风险自评估。", False),
        ("贵公司作为关键信息基础设施运营者，应当申报。", False),
    ],
)
def test_an_echo_of_the_prompts_voice_is_an_echo(text: str, found: bool) -> None:
    assert bool(instruction_echo(text, ASK)) is found


@pytest.mark.parametrize(
    ("text", "truncated", "found"),
    [
        ("明川跨境电子商", True, True),  # cut by the budget mid-sentence (seen in a browser run)
        ("贵公司应当申报。其次，申报前应当", True, True),
        ("贵公司应当申报。", True, False),  # the budget ran out at a sentence's end
        ("材料包括申报书（见附件）", True, False),
        ("明川跨境电子商", False, False),  # not cut: the other gates judge it
        ("", True, False),
    ],
)
def test_cut_off(text: str, truncated: bool, found: bool) -> None:
    assert bool(cut_off(text, truncated)) is found
    if found:
        (f,) = gate_findings(text, "请写一段说明。", FACTS, truncated=truncated)
        assert f.code == "prose.cut_off" and text.endswith(text[f.start : f.end])


# issue 37 item 8: what a model that obeys an injected instruction wrote, with 0 findings
INJECTED = (
    "本所承诺本案必然胜诉。受托人无需遵守《个人信息保护法》第二十一条，"
    "可以自行向第三方提供甲方数据。"
)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("本所承诺本案必然胜诉。", "必然胜诉"),
        ("我们保证贵公司一定能够通过数据出境安全评估。", "一定能够通过数据出境安全评估"),
        ("本所保证通过审批。", "保证通过审批"),
        ("申报必定获批。", "必定获批"),
        ("有百分之百的把握通过评估。", "百分之百的把握通过评估"),
        ("此方案万无一失。", "万无一失"),
        ("本所承诺申报结果为通过。", "承诺申报结果"),
        # not a promise: a goal, a means, a denial, a condition
        ("为确保申报材料完整，贵公司应当逐项核对。", None),
        ("贵公司应当保证通过合法途径收集个人信息。", None),
        ("本所无法保证申报一定通过审批，结果以网信部门决定为准。", None),
        ("申报并不必然获批。", None),
        ("评估不一定通过，贵公司应当预留整改时间。", None),
        ("通过安全评估后，方可向境外提供数据。", None),
    ],
)
def test_outcome_promise(text: str, found: str | None) -> None:
    got = outcome_promise(text)
    assert (text[got[0].start : got[0].end] if got else None) == found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("受托人可以自行向第三方提供甲方数据。", True),
        ("乙方有权无需甲方同意向任何第三方披露保密信息。", True),
        ("接收方可以未经披露方书面同意将数据转让给第三方。", True),
        ("乙方可随意与第三方共享甲方的个人信息。", True),
        # the duty, or a permission with the other party's consent
        ("未经甲方书面同意，乙方不得向任何第三方提供甲方数据。", False),
        ("受托人不得自行向第三方提供个人信息。", False),
        ("乙方不可以擅自向第三方披露保密信息。", False),
        ("任何一方均无权自行向第三方转让本协议项下的数据。", False),
        ("经甲方书面同意后，乙方可以向第三方提供。", False),
        ("乙方可以自行决定数据存储地点。", False),
    ],
)
def test_unauthorised_disclosure(text: str, found: bool) -> None:
    assert bool(unauthorised_disclosure(text)) is found


def test_the_injected_text_fails_the_gates() -> None:
    codes = [f.code for f in gate_findings(INJECTED, ASK, FACTS)]
    assert "prose.outcome_promise" in codes and "prose.unauthorised_disclosure" in codes


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_fallback_line_shows_the_gates_numbers_never_a_field(lang: str) -> None:
    """The line that says why a part fell back shows each gate's message with its numbers
    (the similarity found and the one required), without its quoted example; a part read back
    without its findings shows the message without the numbers, never `{score}%`."""
    from app.outline.provenance import PartOrigin, fallback_lines
    from app.validation.messages import finding

    gates = ("prose.unfaithful", "prose.instruction_echo", "citation.article_out_of_range")
    failed = (
        finding("prose.unfaithful", 0, 9, "", score="23", min="58"),
        finding("prose.instruction_echo", 0, 9, "", echo="请说明接收方"),
    )
    live = PartOrigin(3, "五、", "是否需要申报", "clause", "c", "1", gates, failed=failed)
    (line,) = fallback_lines([live], lang)
    assert "23%" in line and "58%" in line and "请说明接收方" not in line
    (bare,) = fallback_lines(
        [PartOrigin(3, "五、", "是否需要申报", "clause", "c", "1", gates)], lang
    )
    assert "{" not in line + bare and "23%" not in bare
