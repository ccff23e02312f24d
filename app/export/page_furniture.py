"""Header (matter, client, draft mark) and footer (page X of Y) of an exported draft."""

from __future__ import annotations

from docx.document import Document as DocxDocument
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.text.paragraph import Paragraph

from app.export import labels
from app.export.cleaning import xml_safe


def add_field(paragraph: Paragraph, instruction: str, placeholder: str = "1") -> None:
    """Append a complex field (e.g. PAGE, NUMPAGES) that Word and LibreOffice update."""
    for kind in ("begin", "instr", "separate", "result", "end"):
        run = paragraph.add_run()
        if kind == "instr":
            instr = OxmlElement("w:instrText")
            instr.set(qn("xml:space"), "preserve")
            instr.text = f" {instruction} \\* MERGEFORMAT "
            run._r.append(instr)
        elif kind == "result":
            run.text = placeholder
        else:
            char = OxmlElement("w:fldChar")
            char.set(qn("w:fldCharType"), kind)
            run._r.append(char)


def header_text(matter_ref: str, client: str) -> str:
    """Left part of the header: matter and client references, when given."""
    parts = []
    for label, value in ((labels.MATTER, matter_ref), (labels.CLIENT, client)):
        value = " ".join(xml_safe(value).split())  # one line, no tabs
        if value:
            parts.append(f"{label}：{value}")
    return "　".join(parts)


def write_header_footer(
    doc: DocxDocument, *, matter_ref: str, client: str, draft_mark: bool = True
) -> None:
    """Header: references left, draft mark right (tab stop from the Header style); a client
    copy has no draft mark."""
    section = doc.sections[0]
    header = section.header
    header.is_linked_to_previous = False
    paragraph = header.paragraphs[0]
    paragraph.style = doc.styles["Header"]
    paragraph.add_run(
        f"{header_text(matter_ref, client)}\t" if draft_mark else header_text(matter_ref, client)
    )
    if draft_mark:
        paragraph.add_run(labels.DRAFT_MARK).bold = True

    footer = section.footer
    footer.is_linked_to_previous = False
    paragraph = footer.paragraphs[0]
    paragraph.style = doc.styles["Footer"]
    for part in labels.FOOTER_PARTS:
        if part in ("PAGE", "NUMPAGES"):
            add_field(paragraph, part)
        else:
            paragraph.add_run(part)
