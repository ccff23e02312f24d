"""A revision as DOCX with its redline as real Word tracked changes against the model's text.

The document reads as the revision; every difference from the model's output is a
tracked change (w:ins / w:del with author and date), so Word's Review pane can accept
or reject each one, and the model's text comes back by rejecting them all. Paragraphs
are aligned first (by their text), then changed paragraphs are compared word by word
(app.export.redline). A changed table is shown as its old rows deleted and the new table
inserted. The revision's findings are Word comments on the characters of the revision they
cover (its kept and inserted text, never the deleted), as in the plain export.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import itertools
from collections.abc import Sequence
from difflib import SequenceMatcher
from pathlib import Path

from docx.document import Document as DocxDocument
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.oxml.xmlchemy import BaseOxmlElement
from docx.text.paragraph import Paragraph
from docx.text.run import Run

from app.domain import Finding
from app.export.appendix import add_appendix, style_header_row
from app.export.cleaning import xml_safe
from app.export.comments import PlacedRun, add_comments, cut_points, split_indices
from app.export.docx_writer import (
    STYLE_FOR,
    ExportMeta,
    _core_properties,
    _open_reference,
    default_reference,
    document_title,
    without_title_line,
)
from app.export.page_furniture import write_header_footer
from app.export.redline import Op, word_diff
from app.export.structure import Block, parse_draft

CELL_SEPARATOR = " | "


class _Marks:
    """Makes w:ins / w:del elements with one author and date and ids unique in the document,
    and keeps the runs of the revision's text with their offsets (for the comments)."""

    def __init__(self, author: str, date: dt.datetime, cuts: Sequence[int] = ()) -> None:
        self.author = xml_safe(author) or "LexSpec"
        self.date = date.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self._ids = itertools.count(1)
        self.cuts = cuts  # where a finding starts or ends: runs are split there
        self.placed: list[PlacedRun] = []

    def mark(self, op: Op) -> BaseOxmlElement:
        element = OxmlElement("w:ins" if op == "insert" else "w:del")
        element.set(qn("w:id"), str(next(self._ids)))
        element.set(qn("w:author"), self.author)
        element.set(qn("w:date"), self.date)
        return element


def _run(text: str, *, deleted: bool, bold: bool) -> BaseOxmlElement:
    run = OxmlElement("w:r")
    if bold:
        props = OxmlElement("w:rPr")
        props.append(OxmlElement("w:b"))
        run.append(props)
    body = OxmlElement("w:delText" if deleted else "w:t")
    body.set(qn("xml:space"), "preserve")
    body.text = xml_safe(text)
    run.append(body)
    return run


def _bold_flags(block: Block) -> list[bool]:
    return [span.bold for span in block.spans for _ in span.text]


def _offsets(block: Block) -> list[int]:
    """Where each character of the block's text is in the draft it was read from."""
    return [offset for span in block.spans for offset in span.offsets]


def _pieces(
    text: str, bold: Sequence[bool], offsets: Sequence[int], cuts: Sequence[int]
) -> list[tuple[int, int, bool]]:
    """(start, end, bold) of the runs of `text`: split where bold changes and, for the
    revision's text (`offsets` given), where a finding starts or ends."""
    flags = list(bold) or [False] * len(text)
    bounds = {0, len(text)}
    bounds |= {i for i in range(1, len(text)) if flags[i] != flags[i - 1]}
    if offsets:
        bounds |= set(split_indices(offsets, cuts))
    edges = sorted(bounds)
    return [(lo, hi, flags[lo]) for lo, hi in itertools.pairwise(edges) if hi > lo]


def _append(
    paragraph: Paragraph,
    marks: _Marks,
    op: Op,
    text: str,
    bold: Sequence[bool],
    offsets: Sequence[int] = (),
) -> None:
    """Append `text` as runs, wrapped in w:ins / w:del if changed; runs of the revision's text
    (`offsets`: their offsets in it) are kept for the comments."""
    for lo, hi, is_bold in _pieces(text, bold, offsets, marks.cuts):
        run = _run(text[lo:hi], deleted=op == "delete", bold=is_bold)
        if op == "equal":
            paragraph._p.append(run)
        else:
            wrapper = marks.mark(op)
            wrapper.append(run)
            paragraph._p.append(wrapper)
        if offsets and op != "delete":
            marks.placed.append(PlacedRun(Run(run, paragraph), offsets[lo], offsets[hi - 1]))


def _mark_paragraph(paragraph: Paragraph, marks: _Marks, op: Op) -> None:
    """Track the paragraph mark itself, so a whole inserted / deleted paragraph comes and goes."""
    props = OxmlElement("w:rPr")
    props.append(marks.mark(op))
    paragraph._p.get_or_add_pPr().append(props)


def _whole(doc: DocxDocument, marks: _Marks, block: Block, op: Op) -> None:
    """A block that only one side has: every run and the paragraph mark tracked."""
    if block.kind == "table" and op == "delete":
        for row in block.rows:
            text = CELL_SEPARATOR.join("".join(s.text for s in cell) for cell in row)
            paragraph = doc.add_paragraph(style=STYLE_FOR["body"])
            _append(paragraph, marks, op, text, [])
            _mark_paragraph(paragraph, marks, op)
        return
    if block.kind == "table":
        _table(doc, marks, block, op)
        return
    paragraph = doc.add_paragraph(style=STYLE_FOR[block.kind])
    offsets = _offsets(block) if op == "insert" else []
    _append(paragraph, marks, op, block.text, _bold_flags(block), offsets)
    _mark_paragraph(paragraph, marks, op)


def _table(doc: DocxDocument, marks: _Marks, block: Block, op: Op) -> None:
    columns = max(len(row) for row in block.rows)
    table = doc.add_table(rows=len(block.rows), cols=columns)
    table.style = STYLE_FOR["table"]
    for r, row in enumerate(block.rows):
        for c, cell in enumerate(row):
            paragraph = table.cell(r, c).paragraphs[0]
            paragraph.style = "Table Text"
            text = "".join(s.text for s in cell)
            bold = [s.bold or (block.header and r == 0) for s in cell for _ in s.text]
            _append(paragraph, marks, op, text, bold)
    if block.header:
        style_header_row(table)


def _changed(doc: DocxDocument, marks: _Marks, old: Block, new: Block) -> None:
    """One paragraph rewritten: the new paragraph's style, word-level insertions and deletions."""
    if "table" in (old.kind, new.kind):
        _whole(doc, marks, old, "delete")
        _whole(doc, marks, new, "insert")
        return
    paragraph = doc.add_paragraph(style=STYLE_FOR[new.kind])
    old_bold, new_bold, new_offsets = _bold_flags(old), _bold_flags(new), _offsets(new)
    i = j = 0
    for seg in word_diff(old.text, new.text):
        n = len(seg.text)
        if seg.op == "delete":
            _append(paragraph, marks, "delete", seg.text, old_bold[i : i + n])
            i += n
            continue
        _append(paragraph, marks, seg.op, seg.text, new_bold[j : j + n], new_offsets[j : j + n])
        j += n
        i += n if seg.op == "equal" else 0


def _key(block: Block) -> str:
    return f"{block.kind}\x00{block.text}"


def write_tracked_body(
    doc: DocxDocument, marks: _Marks, old: Sequence[Block], new: Sequence[Block]
) -> None:
    """All blocks of the revision, with the model's blocks it lacks shown as deletions."""
    matcher = SequenceMatcher(None, [_key(b) for b in old], [_key(b) for b in new], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for block in new[j1:j2]:
                _whole_equal(doc, marks, block)
            continue
        pairs = list(itertools.zip_longest(old[i1:i2], new[j1:j2]))
        for before, after in pairs:
            if before is not None and after is not None:
                _changed(doc, marks, before, after)
            elif before is not None:
                _whole(doc, marks, before, "delete")
            elif after is not None:
                _whole(doc, marks, after, "insert")


def _whole_equal(doc: DocxDocument, marks: _Marks, block: Block) -> None:
    if block.kind == "table":
        _table(doc, marks, block, "equal")
        return
    paragraph = doc.add_paragraph(style=STYLE_FOR[block.kind])
    _append(paragraph, marks, "equal", block.text, _bold_flags(block), _offsets(block))


def _track_further_edits(doc: DocxDocument) -> None:
    """Word keeps tracking changes the reader makes (Review → Track Changes is on)."""
    settings = doc.settings.element
    if settings.find(qn("w:trackRevisions")) is None:
        settings.insert(0, OxmlElement("w:trackRevisions"))


def tracked_docx(
    model_text: str,
    revision_text: str,
    *,
    meta: ExportMeta,
    author: str,
    date: dt.datetime,
    findings: Sequence[Finding] = (),
    appendix: bool = True,
    reference: Path | None = None,
) -> bytes:
    """DOCX bytes of `revision_text` with its changes from `model_text` tracked.

    `author` and `date` are the revision's (who saved it, when); `findings` are the
    revision's (offsets into `revision_text`): each a Word comment on the revision's text it
    covers, and listed in the appendix.
    """
    path = reference or default_reference()
    doc = _open_reference(path)
    title = document_title(meta.title, matter_ref=meta.matter_ref, client=meta.client)
    if title:
        doc.add_paragraph(xml_safe(title), style=STYLE_FOR["title"])
    findings = tuple(findings)
    marks = _Marks(author, date, cut_points(findings))
    old = without_title_line(parse_draft(model_text, own_title=not title), meta.title)
    new = without_title_line(parse_draft(revision_text, own_title=not title), meta.title)
    write_tracked_body(doc, marks, old, new)
    add_comments(doc, findings, marks.placed)
    write_header_footer(doc, matter_ref=meta.matter_ref, client=meta.client)
    if appendix:
        add_appendix(doc, revision_text, findings)
    _track_further_edits(doc)
    reference_sha = hashlib.sha256(path.read_bytes()).hexdigest()
    _core_properties(doc, meta, title, reference_sha)
    buffer = io.BytesIO()
    doc.save(buffer)
    return buffer.getvalue()
