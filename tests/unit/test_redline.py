"""Redline of the model's text against a revision: table tests of a pure function."""

from __future__ import annotations

from itertools import pairwise

import pytest

from app.export.redline import Segment, count_changes, redline, side, to_html, tokens, word_diff

E, INS, D = "equal", "insert", "delete"

CASES = [
    (
        "unchanged",
        "一、申报主体\n正文。\n",
        "一、申报主体\n正文。\n",
        [(E, "一、申报主体\n正文。\n")],
    ),
    ("both empty", "", "", []),
    ("all new", "", "新增。", [(INS, "新增。")]),
    ("all gone", "删除。", "", [(D, "删除。")]),
    (
        "article number changed inside a line",
        "依据第十五条办理。\n",
        "依据第十三条办理。\n",
        [(E, "依据第十"), (D, "五"), (INS, "三"), (E, "条办理。\n")],
    ),
    (
        "a line inserted between two kept lines",
        "一、甲\n二、乙\n",
        "一、甲\n（一）新增\n二、乙\n",
        [(E, "一、甲\n"), (INS, "（一）新增\n"), (E, "二、乙\n")],
    ),
    (
        "a line deleted",
        "一、甲\n多余的一行\n二、乙\n",
        "一、甲\n二、乙\n",
        [(E, "一、甲\n"), (D, "多余的一行\n"), (E, "二、乙\n")],
    ),
    (
        "a Latin word is one token",
        "Party A shall pay.",
        "Party B shall pay.",
        [(E, "Party "), (D, "A"), (INS, "B"), (E, " shall pay.")],
    ),
    (
        "the repealed law replaced",
        "依据《合同法》第五十二条。",
        "依据《民法典》第五十二条。",
        [(E, "依据《"), (D, "合同法"), (INS, "民法典"), (E, "》第五十二条。")],
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_redline_table(old: str, new: str, expected: list[tuple[str, str]]) -> None:
    segments = redline(old, new)
    assert [(s.op, s.text) for s in segments] == expected
    assert side(segments, "old") == old and side(segments, "new") == new


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("一、甲\n正文。\n\n二、乙", "一、甲\r\n正文，已修改。\n二、乙\n三、丙"),
        ("a\tb  c\n", "a b\n\nc"),
        ("| 表 | 格 |\n|---|---|\n| 1 | 2 |", "| 表 | 格 |\n|---|---|\n| 1 | 3 |"),
    ],
)
def test_both_texts_come_back_from_the_redline(old: str, new: str) -> None:
    segments = redline(old, new)
    assert side(segments, "old") == old and side(segments, "new") == new
    assert all(s.text for s in segments)
    assert all(a.op != b.op for a, b in pairwise(segments))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("第十五条", ["第", "十", "五", "条"]),
        ("GDPR art 46", ["GDPR", " ", "art", " ", "46"]),
        ("", []),
    ],
)
def test_tokens(text: str, expected: list[str]) -> None:
    assert tokens(text) == expected


def test_counts_and_word_diff() -> None:
    segments = word_diff("甲方应当支付。", "乙方应当在十日内支付。")
    counted = count_changes(segments)
    assert (counted.inserted, counted.deleted, counted.changes) == (5, 1, 3)


def test_html_marks_insertions_and_deletions_and_escapes() -> None:
    out = to_html([Segment(E, "a<b>"), Segment(D, "旧"), Segment(INS, "新\n")])
    assert "a&lt;b&gt;" in out
    assert "<del" in out and ">旧</del>" in out
    assert "<ins" in out and ">新<br></ins>" in out
