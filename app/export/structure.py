"""Classify the lines of a draft (plain text / light markdown) into document blocks.

Numbers are kept exactly as written (一、 （一） 1. (1) ①): the numbering the validator
checked is the numbering the reader sees, so Word auto-numbering is never used. Each
character keeps its offset into the original draft, so findings can be anchored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Literal

from app.export.cleaning import Line, clean_lines

BlockKind = Literal[
    "title", "heading1", "heading2", "heading3", "body", "item", "item2", "quote", "table"
]

_CN = "一二三四五六七八九十百千零〇两"
_SECTION = re.compile(r"【[^】\n]{1,30}】")
_NUMBERED: tuple[tuple[re.Pattern[str], BlockKind], ...] = (
    (re.compile(rf"第[{_CN}\d]+[章编]"), "heading1"),
    (re.compile(rf"第[{_CN}\d]+节"), "heading2"),
    (re.compile(rf"[{_CN}]+、"), "heading2"),
    (re.compile(rf"[（(][{_CN}]+[）)]"), "heading3"),
    (re.compile(r"\d{1,3}(?:[.．](?!\d)|、)"), "item"),
    (re.compile(r"[（(]\d{1,3}[）)]|[\u2460-\u2473]"), "item2"),
)
_ARTICLE = re.compile(rf"第[{_CN}\d]+条")
_MD_HEADING = re.compile(r"(#{1,6})[ \t\u3000]*")
_BULLET = re.compile(r"[-*+•·][ \t\u3000]+")
_QUOTE = re.compile(r">[ \t]?")
_RULE = re.compile(r"(?:-{3,}|\*{3,}|_{3,}|={3,})")
_TABLE_ROW = re.compile(r"\|.*\|")
_TABLE_SEPARATOR = re.compile(r"\|(?:[ \t]*:?-+:?[ \t]*\|)+")
# **bold** / __bold__ as in CommonMark: the markers hug the text (no space or marker inside
# them) and stand apart from more of the same character, so a fill-in blank (签字：______) or
# a run of asterisks stays as written
_BOLD = re.compile(
    r"(?<!\*)\*\*(?=[^*\s])(.+?)(?<=[^*\s])\*\*(?!\*)|(?<!_)__(?=[^_\s])(.+?)(?<=[^_\s])__(?!_)"
)
_TITLE_ENDINGS = tuple("。；;：:，,！!？?")
HEADING_MAX_CHARS = 40  # a numbered "heading" longer than this is a paragraph
TITLE_MAX_CHARS = 40
BULLET = "•\u2002"


@dataclass(frozen=True)
class Span:
    """Text with one formatting; offsets[i] is the draft offset of text[i]."""

    text: str
    offsets: tuple[int, ...]
    bold: bool = False


Cell = tuple[Span, ...]


@dataclass(frozen=True)
class Block:
    """A paragraph (spans) or, for kind "table", rows of cells (spans holds them all)."""

    kind: BlockKind
    spans: tuple[Span, ...]
    rows: tuple[tuple[Cell, ...], ...] = ()
    header: bool = False  # a table whose first row is a header (markdown |---| line)
    # For a line numbered like a heading (一、 （一） …): its heading rank (1–3), kept whether
    # it became a heading or a numbered paragraph, so siblings can be given one form.
    number_rank: int = field(default=0, compare=False)

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.spans)


def inline_spans(line: Line, *, bold_prefix: int = 0) -> tuple[Span, ...]:
    """Split `line` at **bold** / __bold__ markers (dropped) and remove `code` backticks.

    The first `bold_prefix` characters (e.g. a 第X条 label) are set in bold.
    """
    spans: list[Span] = []
    if bold_prefix:
        spans.append(Span(line.text[:bold_prefix], line.offsets[:bold_prefix], bold=True))
        line = line.slice(bold_prefix)
    position = 0
    for match in _BOLD.finditer(line.text):
        spans.append(_plain(line.slice(position, match.start())))
        inner = 1 if match.group(1) is not None else 2
        spans.append(_plain(line.slice(match.start(inner), match.end(inner)), bold=True))
        position = match.end()
    spans.append(_plain(line.slice(position)))
    return tuple(s for s in spans if s.text)


def _plain(line: Line, *, bold: bool = False) -> Span:
    keep = [i for i, ch in enumerate(line.text) if ch != "`"]
    text = "".join(line.text[i] for i in keep)
    return Span(text, tuple(line.offsets[i] for i in keep), bold)


def _block(kind: BlockKind, line: Line, *, bold_prefix: int = 0) -> Block:
    return Block(kind, inline_spans(line, bold_prefix=bold_prefix))


def _reads_as_sentence(text: str) -> bool:
    """A numbered line that is long or ends in 。 is a paragraph, not a heading."""
    return len(text) > HEADING_MAX_CHARS or text.endswith("。")


_RANK: dict[BlockKind, int] = {"title": 0, "heading1": 1, "heading2": 2, "heading3": 3}


def _numbered(line: Line, *, paragraph: bool = False) -> list[Block] | None:
    """Blocks for a line starting with a section mark or a number, else None. A line
    numbered like a heading is a numbered paragraph when it reads as a sentence or when
    `paragraph` says its siblings do."""
    section = _SECTION.match(line.text)
    if section:
        head = _block("heading1", line.slice(0, section.end()))
        rest = line.slice(section.end()).strip()
        return [head, _block("body", rest)] if rest.text else [head]
    for pattern, kind in _NUMBERED:
        match = pattern.match(line.text)
        if not match:
            continue
        if kind not in _RANK:
            return [_block(kind, line)]
        rank = _RANK[kind]
        if paragraph or _reads_as_sentence(line.text):
            body = _block("body", line, bold_prefix=match.end())
            return [Block(body.kind, body.spans, number_rank=rank)]
        return [Block(kind, inline_spans(line), number_rank=rank)]
    article = _ARTICLE.match(line.text)
    if article:
        return [_block("body", line, bold_prefix=article.end())]
    return None


def _markdown_heading(level: int, line: Line, *, first: bool) -> Block:
    """`#` is the title when it opens the draft, else Heading 1; `##` 1, `###` 2, deeper 3."""
    if level == 1:
        kind: BlockKind = "title" if first else "heading1"
    else:
        kind = ("heading1", "heading2", "heading3")[min(level, 4) - 2]
    return _block(kind, line)


def _looks_like_title(line: Line) -> bool:
    text = line.text
    return len(text) <= TITLE_MAX_CHARS and not text.endswith(_TITLE_ENDINGS)


def classify_line(line: Line, *, first: bool, paragraph: bool = False) -> list[Block]:
    """The block(s) for one stripped, non-empty line; `first` if nothing precedes it;
    `paragraph`: a number that would make a heading makes a numbered paragraph instead."""
    heading = _MD_HEADING.match(line.text)
    if heading:
        rest = line.slice(heading.end()).strip()
        rest = rest.slice(0, len(rest.text.rstrip("#").rstrip()))
        if not rest.text:
            return []
        numbered = _numbered(rest, paragraph=paragraph)
        return numbered or [_markdown_heading(len(heading.group(1)), rest, first=first)]
    quote = _QUOTE.match(line.text)
    if quote:
        return [_block("quote", line.slice(quote.end()).strip())]
    bullet = _BULLET.match(line.text)
    if bullet and not _RULE.fullmatch(line.text):
        marker = Line(BULLET, (line.offsets[0],) * len(BULLET))
        rest = line.slice(bullet.end())
        return [_block("item", Line(marker.text + rest.text, marker.offsets + rest.offsets))]
    numbered = _numbered(line, paragraph=paragraph)
    if numbered:
        return numbered
    if first and _looks_like_title(line):
        return [_block("title", line)]
    return [_block("body", line)]


def _table_cells(line: Line) -> tuple[Cell, ...]:
    """The cells of a `| a | b |` row (outer pipes dropped, cells stripped)."""
    inner = line.slice(1, len(line.text) - 1)
    bounds = [-1, *(i for i, ch in enumerate(inner.text) if ch == "|"), len(inner.text)]
    return tuple(inline_spans(inner.slice(a + 1, b).strip()) for a, b in pairwise(bounds))


def table_block(lines: list[Line]) -> Block:
    """A markdown pipe table; the |---| separator line marks the row above it as header."""
    header = len(lines) > 1 and bool(_TABLE_SEPARATOR.fullmatch(lines[1].text))
    rows = tuple(_table_cells(line) for line in lines if not _TABLE_SEPARATOR.fullmatch(line.text))
    spans = tuple(span for row in rows for cell in row for span in cell)
    return Block("table", spans, rows=rows, header=header)


def _content_lines(text: str) -> list[Line]:
    lines = (raw.strip() for raw in clean_lines(text))
    return [line for line in lines if line.text and not _RULE.fullmatch(line.text)]


def parse_draft(text: str, *, own_title: bool = True) -> list[Block]:
    """All blocks of `text`, in order; blank lines and horizontal rules are dropped.

    Two or more consecutive lines of the form `| … |` are a table. With `own_title` the
    first line may become the title; without it (the export writes its own title) the
    first line is a heading or body text by the same rules as any other line.
    """
    lines = _content_lines(text)
    entries: list[tuple[int, list[Block]]] = []  # (line index or -1 for a table, its blocks)
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and _TABLE_ROW.fullmatch(lines[j].text):
            j += 1
        if j - i >= 2:
            entries.append((-1, [table_block(lines[i:j])]))
            i = j
            continue
        first = own_title and not entries
        entries.append((i, [b for b in classify_line(lines[i], first=first) if b.spans]))
        i += 1
    demote = _headings_among_paragraph_siblings(entries)
    return [
        block
        for index, blocks in entries
        for block in (
            [b for b in classify_line(lines[index], first=False, paragraph=True) if b.spans]
            if index in demote
            else blocks
        )
    ]


def _headings_among_paragraph_siblings(entries: list[tuple[int, list[Block]]]) -> set[int]:
    """Lines set as headings whose siblings (same number rank, same parent) include a
    numbered paragraph: （一）…（七） take one form, so they are set as paragraphs too."""
    groups: dict[int, list[tuple[int, bool]]] = {}  # rank → (line, set as heading) so far
    demote: set[int] = set()

    def close(deeper_than: int) -> None:
        for rank in [r for r in groups if r > deeper_than]:
            siblings = groups.pop(rank)
            if not all(heading for _, heading in siblings):
                demote.update(line for line, heading in siblings if heading)

    for index, blocks in entries:
        for block in blocks:
            if block.number_rank:
                close(block.number_rank)
                groups.setdefault(block.number_rank, []).append((index, block.kind in _RANK))
            elif block.kind in _RANK:  # an unnumbered heading or the title opens a new parent
                close(_RANK[block.kind] - 1)
    close(-1)
    return demote
