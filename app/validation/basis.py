"""Basis blocks: the citations a paragraph lists as its legal basis after it (……。【依据：《A》第X条；
《B》第Y条】, a line 法律依据：…, （依据：…）). A citation in a block claims what the paragraph it
closes says, not what its own (empty) sentence says: the content check compares it with that
paragraph, as it compares an inline citation with its sentence.

The paragraph a block closes: the text of the block's line before it, or, when the block stands
on a line of its own, the lines before it up to a blank line or a heading (【…】, 一、, 第X条 …).
Pure functions."""

from __future__ import annotations

import re
from dataclasses import dataclass

LABEL = r"(?:法律|法规|规范|参考|主要)?依据|法律规定|Legal basis|Basis"
# each bracket pair holds any other bracket (a version note （2025修正） inside 【依据：…】)
PAIRS = (("【", "】"), ("〔", "〕"), ("［", "］"), ("[", "]"), ("（", "）"), ("(", ")"))
_BODY = "|".join(
    rf"{re.escape(o)}[ \t\u3000]*(?:{LABEL})[ \t\u3000]*[：:]"
    rf"(?P<b{i}>[^{re.escape(o + c)}\n]{{2,600}}?){re.escape(c)}"
    for i, (o, c) in enumerate(PAIRS)
)
BLOCK = re.compile(
    _BODY + rf"|^[ \t\u3000]*(?:{LABEL})[ \t\u3000]*[：:](?P<line>[^\n]{{2,600}})$", re.MULTILINE
)
HEADING = re.compile(
    r"^[ \t\u3000#>*]*(?:【[^】\n]{1,20}】|[一二三四五六七八九十]+、|第[一二三四五六七八九十百]+[章节条])"
)


@dataclass(frozen=True)
class Block:
    """A basis block: its body [start, end) (where its citations are) and the paragraph
    [para_start, para_end) it closes."""

    start: int
    end: int
    para_start: int
    para_end: int


def _paragraph(text: str, block_start: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, block_start) + 1
    if text[line_start:block_start].strip():
        return line_start, block_start
    end = line_start - 1 if line_start else 0
    start = end
    while start > 0:
        previous = text.rfind("\n", 0, start - 1) + 1 if start > 1 else 0
        line = text[previous : start - 1 if start else 0]
        if not line.strip():
            break
        start = previous
        if HEADING.match(line):
            break
    return start, max(start, end)


def blocks(text: str) -> list[Block]:
    """Every basis block of the text with the paragraph it closes."""
    out = []
    for m in BLOCK.finditer(text):
        body = next(name for name, value in m.groupdict().items() if value is not None)
        para_start, para_end = _paragraph(text, m.start())
        if para_end > para_start:
            out.append(Block(m.start(body), m.end(body), para_start, para_end))
    return out
