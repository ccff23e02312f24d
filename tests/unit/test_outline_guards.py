"""Guards on generated prose (pure functions, tables): thinking, repetition, sentence cuts."""

from __future__ import annotations

import pytest

from app.outline.guards import (
    ThinkFilter,
    clean_prose,
    loop_start,
    strip_thinking,
    to_sentence_end,
)
from app.outline.run import finish_part


@pytest.mark.parametrize(
    ("chunks", "visible", "thought"),
    [
        (["<think>plan</think>答复。"], "答复。", "plan"),
        (["<thi", "nk>plan", "</th", "ink>答", "复。"], "答复。", "plan"),
        (["答复。"], "答复。", ""),
        (["前言。<think>x</think>正文。"], "前言。正文。", "x"),
        (["<think>never closed"], "", "never closed"),
        (["a < b。"], "a < b。", ""),
        (["结尾<"], "结尾<", ""),  # a held-back "<" that never became a tag is text
    ],
)
def test_think_filter_across_chunks(chunks: list[str], visible: str, thought: str) -> None:
    f = ThinkFilter()
    shown = "".join(f.feed(c) for c in chunks) + f.flush()
    assert (shown, f.thinking) == (visible, thought)


def test_strip_thinking_whole_text() -> None:
    assert strip_thinking("<think>嗯</think>\n正文") == ("\n正文", "嗯")


LINE = "该公司应当申报安全评估。"


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("一句话。两句话。", None),
        (f"{LINE}\n{LINE}\n", None),  # twice is not yet a loop
        (f"{LINE}\n{LINE}\n{LINE}\n", len(LINE) + 1),  # the second copy starts the loop
        (f"开头。{LINE}\n其他。\n{LINE}{LINE}", len(f"开头。{LINE}\n其他。\n")),
        ("说明：" + "的规定" * 6, len("说明：的规定")),  # a block repeated at the end
        ("人数为1000000人。", None),  # digits repeating briefly are not a loop
        ("……\n……\n……\n", None),  # very short lines may repeat
    ],
)
def test_loop_start(text: str, start: int | None) -> None:
    assert loop_start(text) == start


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("第一句。第二句没写完", "第一句。"),
        ("没有句号", ""),
        ("问句？答句！", "问句？答句！"),
        ("a; b", "a;"),
    ],
)
def test_to_sentence_end(text: str, expected: str) -> None:
    assert to_sentence_end(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("一、结论\n该公司需要申报。", "结论\n该公司需要申报。"),
        ("（一）**需要**申报。", "需要申报。"),
        ("1. 第一点。\n2. 第二点。", "第一点。\n第二点。"),
        ("【适用情形】\n正文。", "正文。"),
        ("## 标题\n- 要点。", "标题\n要点。"),
        ("被截断的字\ufffd。", "被截断的字。"),
        ("第三章 总则", "总则"),
        ("8.3 乙方应当采取措施。", "乙方应当采取措施。"),  # a continuation's own number
        ("第九条 违约责任。", "违约责任。"),
        ("1000000人需要申报。", "1000000人需要申报。"),
    ],
)
def test_clean_prose_removes_the_models_structure(text: str, expected: str) -> None:
    assert clean_prose(text) == expected


@pytest.mark.parametrize(
    ("raw", "looped", "cut", "prose", "marks"),
    [
        ("完整的一句。", False, False, "完整的一句。", ()),
        ("完整的一句。没写完", False, True, "完整的一句。", ("budget_trimmed",)),
        ("完整的一句。", False, True, "完整的一句。", ()),  # cut right at a sentence end
        ("好的一句。又一句", True, False, "好的一句。", ("repetition_trimmed",)),
        ("没有一个完整的句子，", False, True, "没有一个完整的句子……", ("budget_cut_mid_sentence",)),
    ],
)
def test_finish_part(raw: str, looped: bool, cut: bool, prose: str, marks: tuple[str, ...]) -> None:
    assert finish_part(raw, looped=looped, cut=cut) == (prose, marks)
