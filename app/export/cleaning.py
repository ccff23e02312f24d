"""Make draft text safe for XML while remembering where every character came from.

Findings carry character offsets into the original draft, so cleaning never shifts
text: each kept character keeps its original offset, dropped characters simply vanish.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Characters XML 1.0 cannot hold (C0 controls except tab/newline/CR, lone surrogates,
# U+FFFE/U+FFFF) plus DEL and the C1 controls, which no legal text needs either.
_INVALID = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_LINE_BREAKS = frozenset("\n\x0b\x0c\u2028\u2029\x85")
_BREAK_RUN = re.compile("\r\n?|[\x0b\x0c\u2028\u2029\x85]")
_STRIP = " \t\u3000\u00a0"


@dataclass(frozen=True)
class Line:
    """One line of cleaned text; offsets[i] is the original offset of text[i]."""

    text: str
    offsets: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.text) != len(self.offsets):
            raise ValueError("text and offsets differ in length")

    def slice(self, start: int, end: int | None = None) -> Line:
        return Line(self.text[start:end], self.offsets[start:end])

    def strip(self) -> Line:
        """Drop surrounding spaces, including full-width (U+3000) indentation."""
        left = len(self.text) - len(self.text.lstrip(_STRIP))
        right = len(self.text.rstrip(_STRIP))
        return self.slice(left, max(left, right))


def xml_safe(text: str) -> str:
    """`text` with the characters XML cannot hold removed (for messages, titles, ...)."""
    return _INVALID.sub("", _BREAK_RUN.sub("\n", text))


def clean_lines(text: str) -> list[Line]:
    """Split `text` into cleaned lines; \\r\\n, \\r, \\v, \\f and U+2028/9 end a line."""
    lines: list[Line] = []
    chars: list[str] = []
    offsets: list[int] = []
    previous = ""
    for offset, char in enumerate(text):
        if char == "\n" and previous == "\r":
            previous = char
            continue  # the \r already ended this line
        previous = char
        if char in _LINE_BREAKS or char == "\r":
            lines.append(Line("".join(chars), tuple(offsets)))
            chars, offsets = [], []
        elif not _INVALID.match(char):
            chars.append(char)
            offsets.append(offset)
    lines.append(Line("".join(chars), tuple(offsets)))
    return lines
