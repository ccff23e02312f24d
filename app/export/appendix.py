"""Appendix table listing every validation finding (severity, code, where, what, fix)."""

from __future__ import annotations

from collections.abc import Sequence

from docx.document import Document as DocxDocument
from docx.enum.text import WD_BREAK
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Mm, Pt
from docx.table import Table, _Cell

from app.domain import Finding
from app.export import labels
from app.export.cleaning import xml_safe

EXCERPT_MAX_CHARS = 40
COLUMN_WIDTHS_MM = (21, 33, 32, 48, 22)  # sums to the 156 mm text width
HEADER_FILL = "D9D9D9"
CODE_SIZE = Pt(9)
BREAK_AFTER_DOT = "\u200b"  # zero-width space: lets "citation.article_…" wrap at the dot


def location(text: str, finding: Finding) -> str:
    """'第 3 行 第 5 字 / line 3, col 5' followed by the excerpt the finding covers."""
    start = max(0, min(finding.start, len(text)))
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    excerpt = " ".join(xml_safe(text[start : max(start, finding.end)]).split())
    if len(excerpt) > EXCERPT_MAX_CHARS:
        excerpt = excerpt[: EXCERPT_MAX_CHARS - 1] + "…"
    place = labels.LOCATION.format(line=line, column=column)
    return f"{place}\n「{excerpt}」" if excerpt else place


def finding_row(text: str, finding: Finding) -> tuple[str, ...]:
    message = "\n".join(m for m in (finding.message_zh, finding.message_en) if m)
    return tuple(
        xml_safe(cell)
        for cell in (
            labels.SEVERITY.get(finding.severity, finding.severity),
            finding.code.replace(".", "." + BREAK_AFTER_DOT),
            location(text, finding),
            message,
            finding.suggestion,
        )
    )


def style_header_row(table: Table) -> None:
    """Shade the first row and repeat it at the top of every page the table spans."""
    table.rows[0]._tr.get_or_add_trPr().append(OxmlElement("w:tblHeader"))
    for cell in table.rows[0].cells:
        _shade(cell)


def _shade(cell: _Cell) -> None:
    shading = OxmlElement("w:shd")
    for key, value in (("val", "clear"), ("color", "auto"), ("fill", HEADER_FILL)):
        shading.set(qn(f"w:{key}"), value)
    cell._tc.get_or_add_tcPr().append(shading)


def _fill(table: Table, row: int, values: Sequence[str], *, header: bool) -> None:
    for column, (cell, value) in enumerate(zip(table.rows[row].cells, values, strict=True)):
        paragraph = cell.paragraphs[0]
        paragraph.style = "Table Text"
        lines = value.split("\n")
        for i, line in enumerate(lines):
            run = paragraph.add_run(line)
            run.bold = header
            if column == 1 and not header:
                run.font.size = CODE_SIZE
            if i < len(lines) - 1:
                run.add_break()


def add_appendix(doc: DocxDocument, text: str, findings: Sequence[Finding]) -> Table | None:
    """A new page with a heading, a short note and the findings table (None if no findings)."""
    if not findings:
        return None
    doc.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
    doc.add_paragraph(labels.APPENDIX_TITLE, style="Heading 1")
    doc.add_paragraph(labels.APPENDIX_INTRO).paragraph_format.space_after = Pt(8)
    ordered = sorted(findings, key=lambda f: (f.start, f.end, f.code))
    table: Table = doc.add_table(rows=len(ordered) + 1, cols=len(labels.APPENDIX_HEADERS))
    table.style = "Table Grid"
    table.autofit = False  # fixed layout: the widths below hold in Word and LibreOffice
    _fill(table, 0, labels.APPENDIX_HEADERS, header=True)
    style_header_row(table)
    for i, finding in enumerate(ordered, start=1):
        _fill(table, i, finding_row(text, finding), header=False)
    for column, width in zip(table.columns, COLUMN_WIDTHS_MM, strict=True):
        column.width = Mm(width)
        for cell in column.cells:
            cell.width = Mm(width)
    return table
