"""Heading and list numbering: 第X章/第X节, 一、, （一）, 1. / 1、, (1), ①.

Each level's sequence restarts under a new parent; a 【section】 heading line is a parent of
everything below it (numbering may restart there or carry on from the previous section).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from app.domain import Finding
from app.validation.messages import finding
from app.validation.numerals import int_to_chinese, parse_number
from app.validation.widths import ARABIC_DIGITS, FULL_WIDTH_DIGITS, TO_FULL_WIDTH

ZH = "零〇一二两三四五六七八九十百千"
_NUM_ZH = rf"[{ZH}]{{1,4}}"
_NUM_ARABIC = r"(?:[0-9]{1,3}|[０-９]{1,3})"
# One pass over line starts (after indentation and Markdown # > * marks). Alternatives are tried in
# this order; group n<rank> holds the number, rank 0 is a 【section】 heading line. A 第X条 heading
# (a contract clause) is followed by a space, a colon, a bracket or the line's end; 第三十八条规定的
# at a line's start is running text, and 第X条 after a statute name, 本法 or 该法 is a citation.
MARKER = re.compile(
    r"^[ \t\u3000#>*]*(?:"
    r"(?P<n0>【[^】\n]{1,30}】)"
    rf"|第(?P<n1>[{ZH}0-9]{{1,4}})章"
    rf"|第(?P<n2>[{ZH}0-9]{{1,4}})节"
    rf"|第(?P<n3>[{ZH}0-9０-９]{{1,7}})条(?=[ \t\u3000：:、.．【（(*]|$)"
    rf"|(?P<n4>{_NUM_ZH})[、.．]"
    rf"|[（(](?P<n5>{_NUM_ZH})[）)]"
    rf"|(?P<n6>{_NUM_ARABIC})[.．、](?![0-9０-９])"
    rf"|[（(](?P<n7>{_NUM_ARABIC})[）)]"
    r"|(?P<n8>[①-⑳])"
    r")",
    re.MULTILINE,
)
CLAUSE = 3  # 第X条 headings: numbered on across 章 and 节, and a draft may start at any clause


@dataclass(frozen=True)
class Marker:
    """A numbering mark at the start of a line: 第 + 三 + 章, （ + 二 + ）, 3 + ."""

    rank: int
    value: int
    style: str  # how it is written, e.g. "1." vs "1、", "（1）" vs "(1)"
    start: int
    end: int
    prefix: str = ""
    suffix: str = ""

    def label(self, value: int) -> str:
        """How `value` is written in this marker's style (三、, （二）, 3., ④)."""
        if self.rank == 8:
            return chr(0x2460 + value - 1) if 1 <= value <= 20 else str(value)
        number = int_to_chinese(value) if self.rank <= 5 and "ar" not in self.style else str(value)
        if "fw" in self.style:
            number = number.translate(TO_FULL_WIDTH)
        return f"{self.prefix}{number}{self.suffix}"


@dataclass
class Sequence:
    """The siblings seen so far at one level under the current parent."""

    last: int = 0
    seen: set[int] = field(default_factory=set)
    style: str | None = None
    sample: str = ""
    carry: int = 0  # the last number before a 【section】 heading (numbering may continue)


def iter_markers(text: str) -> Iterator[Marker | int]:
    """Numbering marks in text order; a bare int is the offset of a 【section】 heading line."""
    for match in MARKER.finditer(text):
        group = match.lastgroup or "n0"  # each alternative has exactly one group
        rank = int(group[1:])
        if rank == 0:
            yield match.start(group)
            continue
        n = match[group]
        value = ord(n) - 0x2460 + 1 if rank == 8 else parse_number(n)
        if not value:
            continue
        start, end = match.start(group), match.end(group)
        first = start - 1 if rank in (1, 2, 3, 5, 7) else start  # 第 or the opening bracket
        last = end if rank == 8 else end + 1  # 章, 节, 条, 、, . or the closing bracket
        prefix, suffix = text[first:start], text[end:last]
        width = "fw" if n[0] in FULL_WIDTH_DIGITS else ""
        if rank <= 5 and n[0] in ARABIC_DIGITS:
            width += "ar"  # 第3条 among Arabic siblings, not 第三条
        yield Marker(rank, value, f"{prefix}{width}{suffix}{rank}", first, last, prefix, suffix)


def _judge(seq: Sequence, marker: Marker, text: str) -> Finding | None:
    found = text[marker.start : marker.end]
    value, start, end = marker.value, marker.start, marker.end
    if value == seq.last + 1 or (not seq.seen and value in (1, seq.carry + 1)):
        return None
    if marker.rank == CLAUSE and not seq.seen and not seq.carry:
        return None  # clauses continued from an earlier text (第八条 数据安全 ...) start anywhere
    if value in seq.seen:
        return finding("numbering.duplicate", start, end, found=found)
    if value < seq.last:
        previous = marker.label(seq.last)
        return finding("numbering.out_of_order", start, end, found=found, previous=previous)
    expected = marker.label(seq.last + 1)
    return finding("numbering.gap", start, end, expected, expected=expected, found=found)


def check_numbering(text: str) -> list[Finding]:
    """Gaps, repeats, numbers out of order and mixed styles among siblings at each level."""
    findings: list[Finding] = []
    levels: dict[int, Sequence] = {}
    for marker in iter_markers(text):
        if isinstance(marker, int):  # a 【section】: every level restarts, remembering where it was
            levels = {r: Sequence(carry=s.last if s.seen else s.carry) for r, s in levels.items()}
            continue
        for rank in [r for r in levels if r > marker.rank]:
            clauses = levels.pop(rank)  # a new parent: deeper levels restart, 第X条 carry on
            if rank == CLAUSE:
                levels[rank] = Sequence(carry=clauses.last if clauses.seen else clauses.carry)
        seq = levels.setdefault(marker.rank, Sequence())
        hit = _judge(seq, marker, text)
        if hit:
            findings.append(hit)
        found = text[marker.start : marker.end]
        if seq.style is None:
            seq.style, seq.sample = marker.style, found
        elif marker.style != seq.style:
            findings.append(
                finding(
                    "numbering.mixed_style",
                    marker.start,
                    marker.end,
                    seq.sample,
                    found=found,
                    style=seq.sample,
                )
            )
        seq.seen.add(marker.value)
        seq.last = max(seq.last, marker.value)
    return findings
