"""The named DOCX styles: `standard` (templates/reference.docx: LexSpec's header, footer and
headings) and `official`, the format the filing templates prescribe (templates/official.docx,
built by templates/build_reference.py from 说明（四） of both templates): a cover with the title,
the processor's name (盖章) and the date, then the body with 一、 in 黑体, （一） in 楷体加黑, 1. in
仿宋加黑 and text in 四号仿宋, and the page number alone in the footer (no draft mark: the copy a
client stamps and files). Any document type can be exported in either style; a type's meta.yaml
`docx:` names its default."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from app.export.cleaning import xml_safe
from app.export.structure import Block

if TYPE_CHECKING:
    from docx.document import Document as DocxDocument

StyleName = Literal["standard", "official"]
# the command line and the page list these; importing them loads no python-docx
STYLE_NAMES: tuple[StyleName, ...] = ("standard", "official")
COVER_LABEL = "单位名称"  # a type that names no processor (meta.yaml docx.cover_label)
COVER_GAP = 8  # empty lines between the title and the processor's name on the cover

STANDARD_FOR = {
    "title": "Title",
    "heading1": "Heading 1",
    "heading2": "Heading 2",
    "heading3": "Heading 3",
    "body": "Normal",
    "item": "List Item",
    "item2": "List Item 2",
    "quote": "Quote",
    "table": "Table Grid",
}


def standard_style(block: Block) -> str:
    return STANDARD_FOR[block.kind]


def official_style(block: Block) -> str:
    """The templates' three heading levels: 一、 (and 【…】) 黑体, （一） 楷体加黑, 1. 仿宋加黑 (a
    numbered sentence stays body text); everything else 四号仿宋."""
    if block.kind in ("heading1", "heading2"):
        return "Heading 1"
    if block.kind == "heading3":
        return "Heading 2"
    if block.kind == "item" and not block.text.endswith("。"):
        return "Heading 3"
    if block.kind in ("quote", "table", "title"):
        return STANDARD_FOR[block.kind]
    return "Normal"


@dataclass(frozen=True)
class DocxStyle:
    """A named style: its reference document, how blocks map to its paragraph styles, and
    whether it opens with a cover (official) or carries LexSpec's header and footer."""

    name: StyleName
    reference: str
    style_for: Callable[[Block], str]
    cover: bool


STYLES: dict[str, DocxStyle] = {
    "standard": DocxStyle("standard", "reference.docx", standard_style, cover=False),
    "official": DocxStyle("official", "official.docx", official_style, cover=True),
}


def cover_date(day: dt.date | None) -> str:
    """2025年3月15日, or the blank the template leaves for the processor to date."""
    return f"{day.year}年{day.month}月{day.day}日" if day else "　　年　　月　　日"


def write_cover(
    doc: DocxDocument,
    *,
    title: str,
    subtitle: str,
    label: str,
    name: str,
    day: dt.date | None,
) -> None:
    """The template's cover: title (and subtitle), then the processor's name with 盖章 and the
    date, then a page break."""
    from docx.enum.text import WD_BREAK  # python-docx only when writing (see STYLE_NAMES)

    doc.add_paragraph(xml_safe(title), style="Title")
    if subtitle:
        doc.add_paragraph(xml_safe(subtitle), style="Subtitle")
    for _ in range(COVER_GAP):
        doc.add_paragraph(style="Cover Line")
    doc.add_paragraph(f"{label or COVER_LABEL}：{xml_safe(name)}（盖章）", style="Cover Line")
    last = doc.add_paragraph(cover_date(day), style="Cover Line")
    last.add_run().add_break(WD_BREAK.PAGE)


def write_page_number(doc: DocxDocument) -> None:
    """The footer: the page number alone, centred; none on the cover (a first page of its own)."""
    from app.export.page_furniture import add_field

    section = doc.sections[0]
    section.different_first_page_header_footer = True
    footer = section.footer
    footer.is_linked_to_previous = False
    paragraph = footer.paragraphs[0]
    paragraph.style = doc.styles["Footer"]
    paragraph.add_run("— ")
    add_field(paragraph, "PAGE")
    paragraph.add_run(" —")
