"""Line classification and text cleaning for the DOCX export (pure functions, tables)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.export.cleaning import clean_lines, xml_safe
from app.export.structure import BULLET, parse_draft

CASES = [
    # (line as the model writes it, block kinds, block texts)
    ("【适用情形】", ["heading1"], ["【适用情形】"]),
    (
        "【材料清单】本节列明申报材料。",
        ["heading1", "body"],
        ["【材料清单】", "本节列明申报材料。"],
    ),
    ("第一章 总则", ["heading1"], ["第一章 总则"]),
    ("第二节 申报主体", ["heading2"], ["第二节 申报主体"]),
    ("一、申报材料", ["heading2"], ["一、申报材料"]),
    ("十二、其他事项", ["heading2"], ["十二、其他事项"]),
    ("（一）申报书；", ["heading3"], ["（一）申报书；"]),
    ("(三) 法律文件", ["heading3"], ["(三) 法律文件"]),
    ("（一）关键信息基础设施运营者向境外提供个人信息。", ["body"], None),
    ("1. 申报书应加盖公章。", ["item"], ["1. 申报书应加盖公章。"]),
    ("2、自评估报告", ["item"], ["2、自评估报告"]),
    ("3．全角句点", ["item"], ["3．全角句点"]),
    ("(1) 数据出境的目的", ["item2"], ["(1) 数据出境的目的"]),
    ("（2）出境数据的规模", ["item2"], ["（2）出境数据的规模"]),
    ("③ 境外接收方", ["item2"], ["③ 境外接收方"]),
    ("1.5倍行距不是编号。", ["body"], ["1.5倍行距不是编号。"]),
    ("2024年1月1日起施行。", ["body"], ["2024年1月1日起施行。"]),
    ("第十五条 标准合同应当约定……", ["body"], ["第十五条 标准合同应当约定……"]),
    ("## 【常见错误】", ["heading1"], ["【常见错误】"]),
    ("## 办理流程 ##", ["heading1"], ["办理流程"]),
    ("### 细则", ["heading2"], ["细则"]),
    ("#### 更细", ["heading3"], ["更细"]),
    ("- 营业执照副本", ["item"], [f"{BULLET}营业执照副本"]),
    ("> 《数据出境安全评估办法》第六条", ["quote"], ["《数据出境安全评估办法》第六条"]),
    ("**注意**：以`申报书`为准。", ["body"], ["注意：以申报书为准。"]),
]


@pytest.mark.parametrize(("line", "kinds", "texts"), CASES)
def test_classification(line: str, kinds: list[str], texts: list[str] | None) -> None:
    blocks = parse_draft("正文第一段，用于避免首行被识别为标题。\n" + line)[1:]
    assert [b.kind for b in blocks] == kinds
    if texts is not None:
        assert [b.text for b in blocks] == texts


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("# 数据出境安全评估申报表填写指南\n正文。", "title"),
        ("数据出境安全评估申报表填写指南\n正文。", "title"),
        ("本指南适用于数据处理者。\n正文。", "body"),
        ("【适用情形】\n正文。", "heading1"),
    ],
)
def test_first_line_title_detection(text: str, kind: str) -> None:
    assert parse_draft(text)[0].kind == kind


def test_bold_and_article_labels_are_bold_spans() -> None:
    (block,) = parse_draft("正文。\n第十五条 依据**《个人信息保护法》**办理。")[1:]
    assert [(s.text, s.bold) for s in block.spans] == [
        ("第十五条", True),
        (" 依据", False),
        ("《个人信息保护法》", True),
        ("办理。", False),
    ]


@pytest.mark.parametrize(
    ("line", "spans"),
    [
        # fill-in blanks and runs of markers are text, kept as written
        (
            "甲方（签字）：__________  日期：______",
            [("甲方（签字）：__________  日期：______", False)],
        ),
        ("请在 ____ 处填写", [("请在 ____ 处填写", False)]),
        ("注：******表示隐去", [("注：******表示隐去", False)]),
        ("2 ** 3 ** 4", [("2 ** 3 ** 4", False)]),
        # markers that hug their text are bold, either spelling
        (
            "填写__姓名__即可，**重要**。",
            [("填写", False), ("姓名", True), ("即可，", False), ("重要", True), ("。", False)],
        ),
    ],
)
def test_bold_markers_hug_their_text(line: str, spans: list[tuple[str, bool]]) -> None:
    (block,) = parse_draft("正文。\n" + line)[1:]
    assert [(s.text, s.bold) for s in block.spans] == spans


def test_pipe_table() -> None:
    text = "正文。\n| 材料 | 说明 |\n|---|:---:|\n| 申报书 | 加盖**公章** |\n|只有一格|\n正文。"
    blocks = parse_draft(text)
    assert [b.kind for b in blocks] == ["body", "table", "body"]
    table = blocks[1]
    cells = [["".join(s.text for s in cell) for cell in row] for row in table.rows]
    assert table.header and cells == [["材料", "说明"], ["申报书", "加盖公章"], ["只有一格"]]
    assert [s.bold for s in table.rows[1][1]] == [False, True]


def test_single_pipe_line_is_not_a_table() -> None:
    assert [b.kind for b in parse_draft("正文。\n| 孤立的一行 |")] == ["body", "body"]


def test_blank_lines_rules_and_indentation_dropped() -> None:
    blocks = parse_draft("\n\n　　正文一。\n---\n\n    正文二。  \n***\n")
    assert [b.text for b in blocks] == ["正文一。", "正文二。"]


def test_clean_lines_keeps_original_offsets() -> None:
    text = "甲\x00乙\r\n丙\x0b丁\ud800戊\r己"
    lines = clean_lines(text)
    assert [line.text for line in lines] == ["甲乙", "丙", "丁戊", "己"]
    for line in lines:
        assert all(text[o] == ch for ch, o in zip(line.text, line.offsets, strict=True))


def test_xml_safe() -> None:
    assert xml_safe("a\x00b\x0bc\ud83d\ufffe\r\nd") == "ab\nc\nd"


MARKUP = [
    "\n",
    "\r\n",
    "#",
    "## ",
    "**",
    "`",
    "【",
    "】",
    "一、",
    "（一）",
    "1. ",
    "(1)",
    "- ",
    "> ",
    "| ",
    "|---|",
]
DRAFTS = st.lists(
    st.one_of(st.characters(exclude_categories=[]), st.sampled_from(MARKUP)), max_size=80
).map("".join)


@settings(max_examples=200, deadline=None)
@given(DRAFTS)
def test_every_written_character_maps_back_to_the_draft(text: str) -> None:
    for block in parse_draft(text):
        for span in block.spans:
            assert len(span.text) == len(span.offsets)
            for ch, offset in zip(span.text, span.offsets, strict=True):
                assert ch == text[offset] or ch in BULLET
                assert ch == xml_safe(ch)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("# 数据出境安全评估申报表填写指南\n正文。", "heading1"),
        ("数据出境安全评估申报表填写指南\n正文。", "body"),
        ("一、申报主体\n正文。", "heading2"),
    ],
)
def test_without_own_title_the_first_line_follows_the_usual_rules(text: str, kind: str) -> None:
    assert parse_draft(text, own_title=False)[0].kind == kind


def test_sibling_items_take_one_form() -> None:
    """（一）…（三） under one heading: one reads as a sentence, so all three are numbered
    paragraphs (they used to be Heading 3, body, Heading 3 — different levels for siblings)."""
    text = (
        "正文。\n一、申报材料\n（一）申报书\n"
        "（二）数据出境风险自评估报告，应当在申报前三个月内完成并加盖公章。\n（三）法律文件\n"
        "二、办理流程\n（一）提交\n（二）受理"
    )
    kinds = [(b.kind, b.text[:3]) for b in parse_draft(text)]
    assert kinds == [
        ("body", "正文。"),
        ("heading2", "一、申"),
        ("body", "（一）"),
        ("body", "（二）"),
        ("body", "（三）"),
        ("heading2", "二、办"),  # a new parent: its own children are short, so headings
        ("heading3", "（一）"),
        ("heading3", "（二）"),
    ]
    first_item = parse_draft(text)[2]
    assert [(s.text, s.bold) for s in first_item.spans] == [("（一）", True), ("申报书", False)]


def test_siblings_across_a_deeper_level_stay_together() -> None:
    """A numbered child between two siblings does not split their group."""
    text = "正文。\n（一）申报书\n1. 加盖公章。\n（二）自评估报告应在申报前三个月内完成。"
    assert [b.kind for b in parse_draft(text)] == ["body", "body", "item", "body"]
