"""The official templates of the two filing reports (app/filing/templates.yaml, written by
scripts/build_filing_templates.py from the public transcriptions named in each `source`): their
cover, their notes (说明) and their chapters in order, which the types' outlines follow
(tests/unit/test_filing_templates.py)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from app import yamldata

TEMPLATES_FILE = Path(__file__).with_name("templates.yaml")


@dataclass(frozen=True)
class TemplateNode:
    """A chapter (level 1 一、), sub-chapter (2 （一）), item (3 1.) or sub-item (4 （1）)."""

    level: int
    number: str
    heading: str
    guidance: tuple[str, ...] = ()
    children: tuple[TemplateNode, ...] = ()
    table: tuple[str, ...] = ()  # the columns of a table the template asks for here

    def walk(self) -> tuple[TemplateNode, ...]:
        return (self, *(n for child in self.children for n in child.walk()))


@dataclass(frozen=True)
class OfficialTemplate:
    """One template as published: the guide and annex it belongs to, where it was read."""

    type_id: str
    document: str
    annex: str
    publisher: str
    published: str
    source: str
    cross_check: str
    cover: tuple[str, ...]
    notes: tuple[str, ...]
    chapters: tuple[TemplateNode, ...]

    def nodes(self) -> tuple[TemplateNode, ...]:
        return tuple(n for chapter in self.chapters for n in chapter.walk())

    @property
    def chapter_headings(self) -> tuple[str, ...]:
        """The chapters and sub-chapters in order: what a report of the type must carry."""
        return tuple(n.heading for n in self.nodes() if n.level <= 2)

    def note(self, number: int) -> str:
        """The note （n） of the template's 说明, without its number."""
        return self.notes[number - 1].split("）", 1)[1].rstrip("；。")


def _node(raw: dict[str, Any]) -> TemplateNode:
    return TemplateNode(
        level=int(raw["level"]),
        number=str(raw["number"]),
        heading=str(raw["heading"]),
        guidance=tuple(raw.get("guidance") or ()),
        children=tuple(_node(c) for c in raw.get("children") or ()),
        table=tuple(raw.get("table") or ()),
    )


@cache
def official_templates() -> dict[str, OfficialTemplate]:
    """Every template in the data file, by the id of the document type that follows it."""
    raw = yamldata.load(TEMPLATES_FILE.read_text(encoding="utf-8"))
    return {
        type_id: OfficialTemplate(
            type_id=type_id,
            document=str(t["document"]),
            annex=str(t["annex"]),
            publisher=str(t["publisher"]),
            published=str(t["published"]),
            source=str(t["source"]),
            cross_check=str(t["cross_check"]),
            cover=tuple(t["cover"]),
            notes=tuple(t["notes"]),
            chapters=tuple(_node(c) for c in t["chapters"]),
        )
        for type_id, t in raw.items()
    }
