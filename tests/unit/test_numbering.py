"""Numbering checks: table of (text, expected findings as (code, matched substring))."""

from __future__ import annotations

import datetime as dt

import pytest

from app.validation import check, load_catalogue
from app.validation.numbering import check_numbering, iter_markers
from app.validation.numerals import int_to_chinese

CATALOGUE = load_catalogue()
TODAY = dt.date.today()  # the day these checks are run on
GAP, DUP, ORDER, MIXED = (
    "numbering.gap",
    "numbering.duplicate",
    "numbering.out_of_order",
    "numbering.mixed_style",
)

CASES: list[tuple[str, list[tuple[str, str]]]] = [
    # clean sequences at every level
    ("一、甲\n二、乙\n三、丙", []),
    ("第一章 总则\n第一节 一般规定\n第二节 定义\n第二章 分则\n第一节 适用", []),
    ("一、甲\n（一）子\n（二）子\n二、乙\n（一）子", []),
    ("1. a\n2. b\n3. c", []),
    ("1、a\n2、b", []),
    ("１．a\n２．b", []),
    ("(1) a\n(2) b\n(3) c", []),
    ("（1）a\n（2）b", []),
    ("①a\n②b\n③c", []),
    ("\n".join(f"{int_to_chinese(n)}、x" for n in range(1, 13)), []),  # 九、十、十一、十二、
    ("## 一、标题\n**二、加粗标题**\n  三、缩进", []),
    # restart under a new parent
    ("一、a\n1. x\n2. y\n二、b\n1. z", []),
    ("（一）a\n(1) x\n（二）b\n(1) y\n(2) z", []),
    ("1. a\n① x\n② y\n2. b\n① z", []),
    # gaps
    ("一、a\n二、b\n四、c", [(GAP, "四、")]),
    ("第一章\n第三章", [(GAP, "第三章")]),
    ("第一章\n第一节\n第三节", [(GAP, "第三节")]),
    ("（一）a\n（三）b", [(GAP, "（三）")]),
    ("1. a\n3. b", [(GAP, "3.")]),
    ("(1) a\n(2) b\n(4) c", [(GAP, "(4)")]),
    ("①a\n③b", [(GAP, "③")]),
    ("二、a\n三、b", [(GAP, "二、")]),  # the first item is not 一
    # duplicates
    ("一、a\n二、b\n二、c", [(DUP, "二、")]),
    ("（一）a\n（一）b", [(DUP, "（一）")]),
    ("1. a\n2. b\n2. c\n3. d", [(DUP, "2.")]),
    ("①a\n②b\n②c", [(DUP, "②")]),
    ("第一章\n第二章\n第三章\n第二章", [(DUP, "第二章")]),
    # out of order
    ("一、a\n三、b\n二、c", [(GAP, "三、"), (ORDER, "二、")]),
    ("1. a\n2. b\n4. c\n3. d", [(GAP, "4."), (ORDER, "3.")]),
    # mixed styles among siblings
    ("1. a\n2、b\n3. c", [(MIXED, "2、")]),
    ("(1) a\n（2）b", [(MIXED, "（2）")]),
    ("（一）a\n(二) b", [(MIXED, "(二)")]),
    ("一、a\n二. b", [(MIXED, "二.")]),
    ("1. a\n２．b", [(MIXED, "２．")]),
    # the same style question is per sibling group: a new parent may choose another style
    ("一、a\n1. x\n二、b\n1、y\n2、z", []),
    # 【section】 headings restart numbering, or numbering carries on across them
    ("【适用情形】\n一、a\n二、b\n【材料清单】\n一、c", []),
    ("【适用情形】\n一、a\n二、b\n【材料清单】\n三、c", []),
    ("【适用情形】\n一、a\n二、b\n【材料清单】\n四、c", [(GAP, "四、")]),
    # not numbering marks
    ("1.5倍的罚款\n2021.1.1 生效\n一般情况下\n十分重要", []),
    ("正文中的一、二、三不是编号", []),
    ("2024年数据", []),
    # partial text: a marker still being written is not judged
    ("一、a\n二、b\n三", []),
    ("1. a\n2. b\n（", []),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_numbering_findings(text: str, expected: list[tuple[str, str]]) -> None:
    result = check(text, catalogue=CATALOGUE, doc_date=TODAY)
    got = [(f.code, text[f.start : f.end]) for f in result.findings]
    assert sorted(got) == sorted(expected)


def test_gap_names_the_expected_number_in_the_same_style() -> None:
    text = "（一）a\n（二）b\n（四）c"
    (gap,) = check_numbering(text)
    assert gap.suggestion == "（三）"
    assert "（三）" in gap.message_zh and "（四）" in gap.message_en
    assert gap.severity == "error"


def test_mixed_style_suggests_the_first_sibling_style() -> None:
    (mixed,) = check_numbering("1. a\n2、b")
    assert mixed.suggestion == "1." and mixed.severity == "warning"


def test_markers_parse_values_and_spans() -> None:
    text = "第十二章 x\n第一百零三条 w\n  （十一）y\n⑫ z"
    markers = [m for m in iter_markers(text) if not isinstance(m, int)]
    assert [(m.rank, m.value, text[m.start : m.end]) for m in markers] == [
        (1, 12, "第十二章"),
        (3, 103, "第一百零三条"),
        (5, 11, "（十一）"),
        (8, 12, "⑫"),
    ]
