"""Redline: what changed between the model's text and a saved revision (pure functions).

The texts are compared line by line first (a moved or rewritten paragraph stays one
block), then, inside each changed stretch, word by word: a run of Latin letters or
digits is one token, every other character (a Chinese character, a punctuation mark)
is its own token, so a changed 第十五条 shows as 十五 → 十三, not a whole line.
Joining the equal and deleted segments gives back the old text; equal and inserted
segments give the new text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

Op = Literal["equal", "insert", "delete"]
_TOKEN = re.compile(r"[A-Za-z0-9_]+|[ \t]+|\r?\n|.", re.DOTALL)


@dataclass(frozen=True)
class Segment:
    """A stretch of text that is unchanged, inserted (only in the new text) or deleted."""

    op: Op
    text: str


def tokens(text: str) -> list[str]:
    """`text` cut into diff tokens; "".join(tokens(text)) == text."""
    return _TOKEN.findall(text)


def _merge(segments: Sequence[Segment]) -> tuple[Segment, ...]:
    """Adjacent segments of one kind joined, empty ones dropped."""
    out: list[Segment] = []
    for seg in segments:
        if not seg.text:
            continue
        if out and out[-1].op == seg.op:
            out[-1] = Segment(seg.op, out[-1].text + seg.text)
        else:
            out.append(seg)
    return tuple(out)


def _diff(old: Sequence[str], new: Sequence[str]) -> list[tuple[str, str, str]]:
    """(tag, old text, new text) for each opcode of a diff of two token lists."""
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    return [
        (tag, "".join(old[i1:i2]), "".join(new[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
    ]


def _absorb_short_equals(ops: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """Treat an unchanged stretch no longer than the edits on both sides as changed.

    合同法 → 民法典 shares only 法; marking 合同 deleted, 民 inserted, 法 kept and 典
    inserted is exact but unreadable. (The semantic clean-up of diff-match-patch.)
    """
    out = list(ops)
    for k in range(1, len(out) - 1):
        tag, a, _ = out[k]
        if tag != "equal" or out[k - 1][0] == "equal" or out[k + 1][0] == "equal":
            continue
        left = max(len(out[k - 1][1]), len(out[k - 1][2]))
        right = max(len(out[k + 1][1]), len(out[k + 1][2]))
        if len(a) <= min(left, right):
            out[k] = ("replace", a, a)
    return out


def word_diff(old: str, new: str) -> tuple[Segment, ...]:
    """Token-level redline of two short texts (a paragraph or a changed stretch)."""
    segments: list[Segment] = []
    deleted, inserted = "", ""  # a run of changes: all deletions first, then all insertions
    for tag, a, b in _absorb_short_equals(_diff(tokens(old), tokens(new))):
        if tag != "equal":
            deleted, inserted = deleted + a, inserted + b
            continue
        segments.extend((Segment("delete", deleted), Segment("insert", inserted)))
        deleted, inserted = "", ""
        segments.append(Segment("equal", a))
    segments.extend((Segment("delete", deleted), Segment("insert", inserted)))
    return _merge(segments)


def redline(old: str, new: str) -> tuple[Segment, ...]:
    """The changes from `old` (the model's text) to `new` (a revision)."""
    segments: list[Segment] = []
    for tag, a, b in _diff(old.splitlines(keepends=True), new.splitlines(keepends=True)):
        if tag == "equal":
            segments.append(Segment("equal", a))
        elif tag == "replace":
            segments.extend(word_diff(a, b))
        else:
            segments.extend((Segment("delete", a), Segment("insert", b)))
    return _merge(segments)


def side(segments: Sequence[Segment], which: Literal["old", "new"]) -> str:
    """The old text (equal + deleted) or the new text (equal + inserted) of a redline."""
    skip = "insert" if which == "old" else "delete"
    return "".join(s.text for s in segments if s.op != skip)


@dataclass(frozen=True)
class ChangeCount:
    inserted: int  # characters
    deleted: int
    changes: int  # inserted or deleted segments


def count_changes(segments: Sequence[Segment]) -> ChangeCount:
    inserted = sum(len(s.text) for s in segments if s.op == "insert")
    deleted = sum(len(s.text) for s in segments if s.op == "delete")
    return ChangeCount(inserted, deleted, sum(1 for s in segments if s.op != "equal"))


_HTML_TAG = {"insert": "ins", "delete": "del"}
_HTML_STYLE = {
    "insert": "background:#d7f5dd;color:#0b5d1e;text-decoration:underline",
    "delete": "background:#fbe0e0;color:#8a1c1c;text-decoration:line-through",
}


def to_html(segments: Sequence[Segment]) -> str:
    """The redline as HTML: <ins> and <del> with their own colours, text escaped."""
    parts: list[str] = []
    for seg in segments:
        text = html.escape(seg.text).replace("\n", "<br>")
        if seg.op == "equal":
            parts.append(text)
        else:
            tag = _HTML_TAG[seg.op]
            parts.append(f'<{tag} style="{_HTML_STYLE[seg.op]}">{text}</{tag}>')
    body = "".join(parts)
    return f'<div class="lexspec-redline" style="line-height:1.8">{body}</div>'
