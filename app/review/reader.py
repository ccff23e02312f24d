"""A document as its reader sees it: one text, and where each character of it sits.

`read_document(data, name, max_bytes=…)` accepts .docx (python-docx: body paragraphs in order,
tables cell by cell, headers and footers after the body, Word's automatic numbering rendered
before its paragraph, app.review.numbering), .md and .txt. The text is one line per paragraph;
each `ParagraphSpan` maps its characters back to the paragraph (in `iter_paragraphs` order) and
the run that holds them, so a finding's span can be anchored on the runs (app.review.annotate).

What cannot be read is refused with one `Refused` error (bilingual, naming the file) and nothing
kept: a .doc, an encrypted DOCX (an OLE compound file), a corrupt one, a zip bomb (too much
uncompressed data, or too high a ratio), a file over the size limit, an empty one."""

from __future__ import annotations

import bisect
import datetime as dt
import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Literal

from app.domain import BilingualError
from app.i18n import t

if TYPE_CHECKING:
    from docx.document import Document as DocxDocument
    from docx.table import Table
    from docx.text.paragraph import Paragraph
    from docx.text.run import Run

Place = Literal["body", "header", "footer"]
Kind = Literal["docx", "md", "txt"]
KINDS: dict[str, Kind] = {".docx": "docx", ".md": "md", ".markdown": "md", ".txt": "txt"}
OLE_HEADER = bytes.fromhex("D0CF11E0A1B11AE1")  # a compound file: .doc, or an encrypted .docx
MAX_UNCOMPRESSED = 200 * 1024 * 1024  # all the parts of a DOCX together, unpacked
MAX_RATIO = 200  # unpacked / packed for any part over 1 MB unpacked
MAX_PARTS = 5000


class Refused(BilingualError, ValueError):
    """A file that cannot be reviewed, with the one line that says why."""

    def __init__(self, reason: str, name: str, **values: object) -> None:
        key = f"docreview.refused.{reason}"
        super().__init__(t(key, "zh", name=name, **values), t(key, "en", name=name, **values))
        self.reason = reason


@dataclass(frozen=True)
class RunSpan:
    """Characters [start, end) of the document's text held by run `run` of its paragraph
    (runs counted as `paragraph_runs` lists them)."""

    run: int
    start: int
    end: int


@dataclass(frozen=True)
class ParagraphSpan:
    """One paragraph of the text: [start, end) in it, the first `len(label)` characters the
    number Word draws before it (no run holds them)."""

    index: int  # position in iter_paragraphs order (Markdown / text: the line)
    place: Place
    start: int
    end: int
    label: str = ""
    runs: tuple[RunSpan, ...] = ()


@dataclass(frozen=True)
class ReadDocument:
    """The text a document's reader sees and where each paragraph of it is."""

    name: str
    kind: Kind
    text: str
    paragraphs: tuple[ParagraphSpan, ...]
    body_end: int  # the body is text[:body_end]; headers and footers follow
    properties_date: dt.date | None = None  # DOCX core properties: modified, else created

    def paragraph_at(self, offset: int) -> ParagraphSpan | None:
        starts = [p.start for p in self.paragraphs]
        i = bisect.bisect_right(starts, offset) - 1
        return self.paragraphs[i] if i >= 0 else None

    @property
    def furniture(self) -> str:
        """The headers' and footers' text."""
        return self.text[self.body_end :]


def paragraph_runs(paragraph: Paragraph) -> list[Run]:
    """The runs whose text python-docx's `paragraph.text` holds: its own and its hyperlinks'."""
    from docx.text.hyperlink import Hyperlink

    runs: list[Run] = []
    for item in paragraph.iter_inner_content():
        runs.extend(item.runs if isinstance(item, Hyperlink) else [item])
    return runs


def _cells(table: Table) -> Iterator[Paragraph]:
    seen: list[object] = []  # held, so that lxml gives the same proxy for the same element
    for row in table.rows:
        for cell in row.cells:
            if any(cell._tc is tc for tc in seen):  # a merged cell is listed once per column
                continue
            seen.append(cell._tc)
            yield from _blocks(cell.iter_inner_content())


def _blocks(items: Iterator[Paragraph | Table]) -> Iterator[Paragraph]:
    from docx.text.paragraph import Paragraph

    for item in items:
        if isinstance(item, Paragraph):
            yield item
        else:
            yield from _cells(item)


def iter_paragraphs(document: DocxDocument) -> Iterator[tuple[Place, Paragraph]]:
    """Every paragraph a reader sees, in order: the body (tables cell by cell, nested ones
    inside their cell), then each header and footer that has its own content, once."""
    for paragraph in _blocks(document.iter_inner_content()):
        yield "body", paragraph
    seen: set[str] = set()
    for section in document.sections:
        parts: tuple[tuple[Place, object], ...] = (
            ("header", section.header), ("header", section.first_page_header),
            ("header", section.even_page_header), ("footer", section.footer),
            ("footer", section.first_page_footer), ("footer", section.even_page_footer),
        )  # fmt: skip
        for place, furniture in parts:
            if furniture.is_linked_to_previous:  # type: ignore[attr-defined]  # none of its own
                continue
            partname = str(furniture.part.partname)  # type: ignore[attr-defined]
            if partname in seen:
                continue
            seen.add(partname)
            for paragraph in _blocks(furniture.iter_inner_content()):  # type: ignore[attr-defined]
                yield place, paragraph


def _refuse_package(data: bytes, name: str) -> None:
    """Refuse an encrypted, corrupt or bomb-like DOCX before python-docx unpacks it."""
    if data.startswith(OLE_HEADER):
        raise Refused("encrypted", name)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise Refused("corrupt", name) from exc
    total = sum(i.file_size for i in infos)
    ratio = max(
        (i.file_size / max(i.compress_size, 1) for i in infos if i.file_size > 1024 * 1024),
        default=0.0,
    )
    if len(infos) > MAX_PARTS or total > MAX_UNCOMPRESSED or ratio > MAX_RATIO:
        raise Refused("bomb", name)
    if "word/document.xml" not in {i.filename for i in infos}:
        raise Refused("corrupt", name)


def open_docx(data: bytes, name: str) -> DocxDocument:
    """The DOCX opened by python-docx, after the package checks; Refused if it cannot be."""
    import docx

    _refuse_package(data, name)
    try:
        return docx.Document(io.BytesIO(data))
    except Exception as exc:  # any failure to parse is a corrupt file (re-raised as Refused)
        raise Refused("corrupt", name) from exc


def _properties_date(document: DocxDocument) -> dt.date | None:
    props = document.core_properties
    moment = props.modified or props.created
    return moment.date() if moment is not None else None


def _read_docx(data: bytes, name: str) -> ReadDocument:
    from app.review.numbering import Numbering

    document = open_docx(data, name)
    numbering = Numbering(document)
    pieces: list[str] = []
    spans: list[ParagraphSpan] = []
    offset, body_end = 0, None
    try:
        for index, (place, paragraph) in enumerate(iter_paragraphs(document)):
            if place != "body" and body_end is None:
                body_end = offset
            label = numbering.label(paragraph)
            runs, at = [], offset + len(label)
            texts = [label]
            for i, run in enumerate(paragraph_runs(paragraph)):
                text = run.text
                if text:
                    runs.append(RunSpan(i, at, at + len(text)))
                    texts.append(text)
                    at += len(text)
            spans.append(ParagraphSpan(index, place, offset, at, label, tuple(runs)))
            pieces.append("".join(texts))
            offset = at + 1
    except Exception as exc:  # malformed parts python-docx trips on (re-raised as Refused)
        raise Refused("corrupt", name) from exc
    text = "\n".join(pieces)
    body_end = len(text) if body_end is None else min(body_end, len(text))
    if not text.strip():
        raise Refused("empty", name)
    return ReadDocument(name, "docx", text, tuple(spans), body_end, _properties_date(document))


def _read_plain(data: bytes, name: str, kind: Kind) -> ReadDocument:
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            text = data.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        raise Refused("not_text", name)
    if "\x00" in text:
        raise Refused("not_text", name)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise Refused("empty", name)
    spans, offset = [], 0
    for index, line in enumerate(text.split("\n")):
        spans.append(ParagraphSpan(index, "body", offset, offset + len(line)))
        offset += len(line) + 1
    return ReadDocument(name, kind, text, tuple(spans), len(text))


def file_kind(name: str) -> Kind:
    """The kind a file name says it is; Refused for .doc and anything else not read."""
    suffix = PurePath(name).suffix.lower()
    if suffix == ".doc":
        raise Refused("legacy_doc", name)
    if suffix not in KINDS:
        raise Refused("unsupported", name, suffix=suffix or "-")
    return KINDS[suffix]


def read_document(data: bytes, name: str, *, max_bytes: int) -> ReadDocument:
    """The document's text and map (see the module's doc); Refused with one line otherwise."""
    kind = file_kind(name)
    if not data:
        raise Refused("empty", name)
    if len(data) > max_bytes:
        raise Refused("too_large", name, limit=max_bytes // (1024 * 1024) or 1)
    if kind == "docx":
        return _read_docx(data, name)
    if data.startswith(OLE_HEADER) or data.startswith(b"PK\x03\x04"):
        raise Refused("not_text", name)
    return _read_plain(data, name, kind)
