"""Turn a draft into a styled DOCX built on templates/reference.docx."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING

from docx import Document
from docx.document import Document as DocxDocument
from docx.text.paragraph import Paragraph

from app.domain import BilingualError, Finding
from app.export import labels
from app.export.appendix import add_appendix, style_header_row
from app.export.cited import CitedArticle, add_cited_articles
from app.export.cleaning import xml_safe
from app.export.comments import PlacedRun, add_comments, cut_points, split_indices
from app.export.official import STYLES, DocxStyle, write_cover, write_page_number
from app.export.page_furniture import write_header_footer
from app.export.structure import Block, BlockKind, Span, parse_draft

if TYPE_CHECKING:
    from app.config import Settings

REFERENCE_NAME = "reference.docx"
STYLE_FOR: dict[BlockKind, str] = {
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


class ExportError(BilingualError):
    """The export cannot run (e.g. the reference document is missing)."""


@dataclass(frozen=True)
class ExportMeta:
    """Who and what the document is for; stored in the header and the core properties.

    `title` is the document type's title: the DOCX title line is made of it and the matter
    (document_title), never of the draft's first line. Empty: the draft's own title line.
    """

    title: str
    matter_ref: str = ""
    client: str = ""
    author: str = ""
    created: dt.datetime | None = None  # None: now; a naive datetime is local time
    generation_id: str | int | None = None  # the audit-log id of the generation
    template_hash: str = ""  # sha256 of the prompt template that produced the draft
    doc_date: dt.date | None = None  # the document's date (the client copy's 日期; None: today)
    # the official style's cover: who signs (数据处理者名称) and the line under the title
    cover_label: str = ""
    subtitle: str = ""


def document_title(title: str, *, matter_ref: str = "", client: str = "") -> str:
    """The DOCX title: the document type's title, then the client and matter in brackets."""
    matter = "，".join(p.strip() for p in (client, matter_ref) if p.strip())
    title = title.strip()
    return f"{title}（{matter}）" if title and matter else title


def without_title_line(blocks: list[Block], title: str) -> list[Block]:
    """The blocks without a first line that repeats the document's title (an outline draft
    opens with it; the export writes the title itself, with the client and matter)."""
    if blocks and title.strip() and blocks[0].text.strip() == title.strip():
        return blocks[1:]
    return blocks


def default_reference(settings: Settings | None = None, style: str = "standard") -> Path:
    """The reference document (styles) of `style` in the installation of `settings`
    (`LEXSPEC_TEMPLATES_DIR`); None: the one LexSpec ships."""
    from app.config import REPO_ROOT

    templates = settings.templates_dir if settings is not None else REPO_ROOT / "templates"
    return templates / _style(style).reference


def _style(name: str) -> DocxStyle:
    if name not in STYLES:
        known = ", ".join(STYLES)
        raise ExportError(
            f"未知的 DOCX 样式 {name}（可选：{known}）", f"Unknown DOCX style {name} ({known})"
        )
    return STYLES[name]


def _open_reference(path: Path) -> DocxDocument:
    if not path.is_file():
        raise ExportError(
            f"找不到参考文档 {path.name}；请运行 python templates/build_reference.py",
            f"Reference document {path.name} not found; run python templates/build_reference.py",
        )
    doc = Document(str(path))
    body = doc.element.body
    for child in list(body):
        if not child.tag.endswith("}sectPr"):
            body.remove(child)
    return doc


def _write_spans(
    paragraph: Paragraph,
    spans: Sequence[Span],
    cuts: Sequence[int],
    placed: list[PlacedRun],
    *,
    bold: bool = False,
) -> None:
    """Write spans as runs, split wherever a finding starts or ends."""
    for span in spans:
        bounds = [0, *split_indices(span.offsets, cuts), len(span.text)]
        for lo, hi in pairwise(bounds):
            run = paragraph.add_run(span.text[lo:hi])
            if span.bold or bold:
                run.bold = True
            placed.append(PlacedRun(run, span.offsets[lo], span.offsets[hi - 1]))


def _write_table(
    doc: DocxDocument, block: Block, cuts: Sequence[int], placed: list[PlacedRun]
) -> None:
    """A markdown table as a bordered Word table (header row bold, shaded, repeated)."""
    columns = max(len(row) for row in block.rows)
    table = doc.add_table(rows=len(block.rows), cols=columns)
    table.style = STYLE_FOR["table"]  # the same in every style
    for r, row in enumerate(block.rows):
        for c in range(columns):
            paragraph = table.cell(r, c).paragraphs[0]
            paragraph.style = "Table Text"
            if c < len(row):
                _write_spans(paragraph, row[c], cuts, placed, bold=block.header and r == 0)
    if block.header:
        style_header_row(table)


def _write_body(
    doc: DocxDocument,
    blocks: Sequence[Block],
    title: str,
    findings: Sequence[Finding],
    style: DocxStyle,
    cover: Sequence[str] = (),
) -> list[PlacedRun]:
    if title:
        doc.add_paragraph(xml_safe(title), style=STYLE_FOR["title"])
    for line in cover:
        doc.add_paragraph(xml_safe(line), style=STYLE_FOR["body"])
    cuts = cut_points(findings)
    placed: list[PlacedRun] = []
    for block in blocks:
        if block.kind == "table":
            _write_table(doc, block, cuts, placed)
        else:
            paragraph = doc.add_paragraph(style=style.style_for(block))
            _write_spans(paragraph, block.spans, cuts, placed)
    return placed


def _core_properties(doc: DocxDocument, meta: ExportMeta, title: str, reference_sha: str) -> None:
    """Title/author/created, plus provenance: generation id and template hash.

    identifier = generation id; keywords = "lexspec generation:<id> template:<hash>";
    comments repeat both with the reference document's sha256.
    """
    created = (meta.created or dt.datetime.now(dt.UTC)).astimezone(dt.UTC).replace(tzinfo=None)
    author = xml_safe(meta.author) or labels.DEFAULT_AUTHOR
    gen = "" if meta.generation_id is None else str(meta.generation_id)
    props = doc.core_properties
    props.title = xml_safe(title)
    props.subject = xml_safe(" ".join(p for p in (meta.matter_ref, meta.client) if p))
    props.author = props.last_modified_by = author
    props.created = props.modified = created
    props.revision = 1
    props.category = labels.CORE_CATEGORY
    props.content_status = labels.CORE_STATUS
    props.language = "zh-CN"
    props.identifier = xml_safe(gen)
    props.keywords = xml_safe(
        f"lexspec generation:{gen or '-'} template:{meta.template_hash or '-'}"
    )
    props.comments = xml_safe(
        f"generation_id={gen}; template_hash={meta.template_hash}; reference_sha256={reference_sha}"
    )


def draft_to_docx(
    text: str,
    *,
    meta: ExportMeta,
    findings: Sequence[Finding] = (),
    comments: bool = True,
    appendix: bool = True,
    reference: Path | None = None,
    cited_articles: Sequence[CitedArticle] = (),
    style: str = "standard",
) -> bytes:
    """The draft as DOCX bytes in the named `style` (app/export/official.py): styled blocks,
    header/footer (official: a cover and the page number), optional comments and appendix.

    `findings` carry offsets into `text`; with `comments` each becomes a Word comment on
    exactly its span, with `appendix` they are also listed in a table on a final page.
    `cited_articles`, when given, are printed in full on a last page 引用条文. `reference`
    replaces the style's reference document (None: the shipped one).
    """
    chosen = _style(style)
    path = reference or default_reference(style=style)
    doc = _open_reference(path)
    findings = tuple(findings)
    shown = findings if comments else ()
    if chosen.cover:
        title = meta.title.strip()
        cover = {"subtitle": meta.subtitle, "label": meta.cover_label, "name": meta.client}
        write_cover(doc, title=title, day=meta.doc_date, **cover)
        blocks = parse_draft(text, own_title=False)
        placed = _write_body(doc, blocks, "", shown, chosen)
        write_page_number(doc)
    else:
        title = document_title(meta.title, matter_ref=meta.matter_ref, client=meta.client)
        blocks = without_title_line(parse_draft(text, own_title=not title), meta.title)
        placed = _write_body(doc, blocks, title, shown, chosen)
        write_header_footer(doc, matter_ref=meta.matter_ref, client=meta.client)
    if comments:
        add_comments(doc, findings, placed)
    if appendix:
        add_appendix(doc, text, findings)
    add_cited_articles(doc, cited_articles)
    own_title = blocks[0].text if blocks and blocks[0].kind == "title" else ""
    reference_sha = hashlib.sha256(path.read_bytes()).hexdigest()
    _core_properties(doc, meta, title or own_title, reference_sha)
    buffer = io.BytesIO()
    doc.save(buffer)
    return buffer.getvalue()


COVER_LINE = re.compile(r"(致|日期|案号)：")


def client_cover(meta: ExportMeta) -> list[str]:
    """The client copy's opening lines: addressee, matter and the document's date."""
    day = meta.doc_date or (meta.created or dt.datetime.now()).date()
    lines = [f"{labels.TO}：{meta.client.strip()}"] if meta.client.strip() else []
    if meta.matter_ref.strip():
        lines.append(f"{labels.MATTER_ZH}：{meta.matter_ref.strip()}")
    return [*lines, f"{labels.DATE}：{day.year}年{day.month}月{day.day}日"]


def client_copy_docx(text: str, *, meta: ExportMeta, reference: Path | None = None) -> bytes:
    """The copy a lawyer sends the client: the document's title, addressee, matter and date,
    then the text; no findings, comments, codes, appendices, draft mark or LexSpec provenance
    (the audit log keeps those). The draft's own cover lines (title, 致, 日期) give way to it."""
    path = reference or default_reference()
    doc = _open_reference(path)
    title = meta.title.strip()
    blocks = without_title_line(parse_draft(text, own_title=not title), title)
    while blocks and blocks[0].kind != "table" and COVER_LINE.match(blocks[0].text):
        blocks = blocks[1:]
    _write_body(doc, blocks, title, (), _style("standard"), client_cover(meta))
    write_header_footer(doc, matter_ref=meta.matter_ref, client=meta.client, draft_mark=False)
    _client_properties(doc, meta, title)
    buffer = io.BytesIO()
    doc.save(buffer)
    return buffer.getvalue()


def _client_properties(doc: DocxDocument, meta: ExportMeta, title: str) -> None:
    """Title, subject, author and date only: nothing of the drafting tool."""
    created = (meta.created or dt.datetime.now(dt.UTC)).astimezone(dt.UTC).replace(tzinfo=None)
    props = doc.core_properties
    props.title = xml_safe(title)
    props.subject = xml_safe(" ".join(p for p in (meta.matter_ref, meta.client) if p))
    props.author = props.last_modified_by = xml_safe(meta.author) or labels.DEFAULT_AUTHOR
    props.created = props.modified = created
    props.revision = 1
    props.category = labels.CLIENT_CATEGORY
    props.language = "zh-CN"
    for name in ("identifier", "keywords", "comments", "content_status"):
        setattr(props, name, "")
