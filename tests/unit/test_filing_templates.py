"""The official templates' data agrees with itself, the freshness rule of their assessment, and
the numbering the filing outlines use (numbering: official)."""

from __future__ import annotations

import datetime as dt

import pytest

from app.filing.freshness import add_months, freshness
from app.filing.templates import official_templates
from app.outline.compose import plan_outline
from app.outline.model import parse_outline
from app.outline.sources import SourceContext
from app.validation.numerals import parse_number


@pytest.mark.parametrize("type_id", ["self-assessment-report", "pia-report"])
def test_each_template_is_numbered_in_order_with_its_source_and_notes(type_id: str) -> None:
    template = official_templates()[type_id]
    assert template.document.endswith("（第二版）") and template.published == "2024-03-22"
    assert template.source.startswith("github.com/JH-gh07/ai4law") and template.cross_check
    assert [n[:3] for n in template.notes] == ["（一）", "（二）", "（三）", "（四）"]
    assert "前3个月内完成" in template.note(2)
    assert "行距固定值26磅" in template.notes[3] and "左右页边距为3.18cm" in template.notes[3]

    def numbered(nodes: tuple) -> None:  # type: ignore[type-arg]
        numbers = [
            parse_number(n.number) if not n.number.isdigit() else int(n.number) for n in nodes
        ]
        assert numbers == list(range(1, len(nodes) + 1)), [n.heading for n in nodes]
        for node in nodes:
            assert all(child.level == node.level + 1 for child in node.children)
            numbered(node.children)

    numbered(template.chapters)
    headings = [n.heading for n in template.nodes()]
    assert len(headings) == len(set(headings))


def test_the_self_assessment_asks_for_the_data_item_table() -> None:
    tables = [n.table for n in official_templates()["self-assessment-report"].nodes() if n.table]
    assert tables == [("序号", "数据项名称", "内容描述", "出境必要性", "示例", "备注")]


@pytest.mark.parametrize(
    ("day", "months", "expected"),
    [
        ("2025-02-28", 3, "2025-05-28"),
        ("2024-11-30", 3, "2025-02-28"),  # no 30 February: the month's last day
        ("2023-11-30", 3, "2024-02-29"),
        ("2025-10-15", 3, "2026-01-15"),  # into the next year
    ],
)
def test_months_are_calendar_months(day: str, months: int, expected: str) -> None:
    assert add_months(dt.date.fromisoformat(day), months).isoformat() == expected


@pytest.mark.parametrize(
    ("start", "end", "filing", "state"),
    [
        ("2025-01-06", "2025-02-28", "2025-05-28", "fresh"),  # the last day
        ("2025-01-06", "2025-02-28", "2025-05-29", "stale"),
        ("2025-01-06", "2025-02-28", "2025-02-20", "not_finished"),
        ("2025-03-06", "2025-02-28", "2025-03-15", "reversed"),
        ("2025-01-06", "", "2025-03-15", "unknown"),
        ("2025-01-06", "2025-02-28", "", "unknown"),
    ],
)
def test_the_filing_date_is_held_to_three_months_after_the_assessment(
    start: str, end: str, filing: str, state: str
) -> None:
    found = freshness({"assessment_start": start, "assessment_end": end, "filing_date": filing})
    assert found.state == state
    assert (found.warning() is None) is (state in ("fresh", "unknown"))


OUTLINE = """
numbering: official
system: s
facts: f
sections:
  - heading: 甲
    parts:
      - {kind: items, title: 乙, items: [a, b]}
      - {kind: items, level: 3, title: 丙, items: [c]}
      - {kind: items, level: 4, title: 丁, items: [d]}
      - {kind: items, level: 3, title: 戊, numbered: false, items: [e]}
      - {kind: items, title: 己, items: []}
  - heading: 庚
    parts:
      - {kind: items, title: 辛, items: [f]}
  - heading: 【附】
    parts:
      - {kind: items, level: 3, items: [g, h]}
"""


def test_official_numbering_follows_the_templates_levels() -> None:
    outline = parse_outline("x", OUTLINE)
    plan = plan_outline(outline, {}, SourceContext(values={}, labels={}), {})
    lines = [
        ln for s in plan.steps for ln in (s.heading, f"{s.label}{s.part.title}", *s.lines) if ln
    ]
    assert lines == [
        "一、甲", "（一）乙", "1.a", "2.b", "3.丙", "（1）c", "（2）丁", "d", "4.戊", "e", "（二）己",
        "二、庚", "（一）辛", "1.f",
        "【附】", "（1）g", "（2）h",
    ]  # fmt: skip
    assert outline.headings == ("甲", "庚", "【附】", "乙", "己", "辛")
