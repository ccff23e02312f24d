"""Guards on generated prose: a thinking block kept out, repetition stopped, cuts at sentence
boundaries, and numbering or headings the model wrote itself removed (the app writes those).

Pure functions over strings, plus one small streaming filter; table-driven tests in
tests/unit/test_outline_guards.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from app.validation.numbering import MARKER

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
SENTENCE_END = "。！？；!?;…"
MIN_REPEATS = 3  # the same line or block this many times is a loop
MIN_LOOP_CHARS = 12  # ... once the repeated stretch is at least this long
MIN_LINE_CHARS = 4  # lines shorter than this (e.g. "……") may repeat


@dataclass
class ThinkFilter:
    """Splits a stream into visible text and thought: `<think>…</think>` never reaches the
    draft (Qwen3 thinks by default). Tags split across chunks are handled."""

    thought: list[str] = field(default_factory=list)
    _inside: bool = False
    _pending: str = ""

    def feed(self, delta: str) -> str:
        """The visible part of `delta` (text that may still be a tag's start is held back)."""
        text, visible = self._pending + delta, list[str]()
        self._pending = ""
        while text:
            tag = THINK_CLOSE if self._inside else THINK_OPEN
            at = text.find(tag)
            if at < 0:
                keep = _partial_tag(text, tag)
                body, self._pending = text[: len(text) - keep], text[len(text) - keep :]
                (self.thought if self._inside else visible).append(body)
                break
            (self.thought if self._inside else visible).append(text[:at])
            text, self._inside = text[at + len(tag) :], not self._inside
        return "".join(visible)

    def flush(self) -> str:
        """At the end of the stream: a held-back fragment that never became a tag is text."""
        rest, self._pending = self._pending, ""
        if self._inside:
            self.thought.append(rest)
            return ""
        return rest

    @property
    def thinking(self) -> str:
        return "".join(self.thought)


def _partial_tag(text: str, tag: str) -> int:
    """Length of the longest end of `text` that is a proper start of `tag`."""
    for n in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:n]):
            return n
    return 0


def strip_thinking(text: str) -> tuple[str, str]:
    """(visible text, thought) of a whole text."""
    f = ThinkFilter()
    visible = f.feed(text) + f.flush()
    return visible, f.thinking


_SENTENCE = re.compile(r"[^。！？；!?;…\n]+[。！？；!?;…]*")


def loop_start(text: str) -> int | None:
    """Where a loop begins: the second of MIN_REPEATS equal sentences (or lines), or the second
    copy of a block repeated MIN_REPEATS times at the end; None when the text does not repeat."""
    seen: dict[str, list[int]] = {}
    for m in _SENTENCE.finditer(text):
        key = m.group().strip()
        if len(key) >= MIN_LINE_CHARS:
            starts = seen.setdefault(key, [])
            starts.append(m.start() + len(m.group()) - len(m.group().lstrip()))
            if len(starts) >= MIN_REPEATS:
                return starts[1]
    return _tail_loop(text)


def _tail_loop(text: str) -> int | None:
    n = len(text)
    for period in range(1, n // MIN_REPEATS + 1):
        if period * MIN_REPEATS < MIN_LOOP_CHARS and period * (n // period) < MIN_LOOP_CHARS:
            continue
        block = text[n - period :]
        copies = 1
        while text.endswith(block * (copies + 1)):
            copies += 1
        if copies >= MIN_REPEATS and copies * period >= MIN_LOOP_CHARS:
            return n - (copies - 1) * period
    return None


def to_sentence_end(text: str) -> str:
    """`text` up to and including its last sentence end; "" when it has none."""
    at = max(text.rfind(ch) for ch in SENTENCE_END)
    return text[: at + 1] if at >= 0 else ""


_MARKS = re.compile(
    r"^(?:[ \t\u3000#>*\-—•·□]+|\d+(?:\.\d+)+[ \t\u3000]*|第[一二三四五六七八九十百零〇两\d]+条[ \t\u3000]*)"
)
_BOLD = re.compile(r"\*\*|__")


def clean_prose(text: str) -> str:
    """The model's prose as plain paragraphs: no replacement characters, Markdown marks,
    【headings】 or line-leading numbers (the app numbers the document)."""
    lines = []
    for raw in text.replace("\ufffd", "").splitlines():
        line = _BOLD.sub("", raw)
        while True:
            stripped = _MARKS.sub("", line)
            marker = MARKER.match(stripped)
            if marker and marker.end() > 0:
                stripped = stripped[marker.end() :]
            if stripped == line:
                break
            line = stripped
        if line.strip():
            lines.append(line.strip())
    return "\n".join(lines)
