"""The official 个人信息出境标准合同 as units (app/review/standard_contract.json), and a
document's lines in the same shape, normalised so that the two compare character by character.

A unit is one line of the official text: 条, 项, 目, a line without a number, the preamble, the
signature block or 附录. Its blanks (runs of spaces, 【已】/【约定】, □, the bracketed
instructions such as （具体地址）) are what the parties fill in: in the normalised text each
blank is one BLANK character, and `pattern` matches the unit with any filling."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA = Path(__file__).with_name("standard_contract.json")
BLANK = "\x00"
# half-width punctuation a typist may use for the official full-width forms
_WIDTH = str.maketrans({",": "，", ";": "；", ":": "：", "(": "（", ")": "）", "?": "？"})
_DROP = re.compile(r"[\s\u3000□■☑☒✓√]+")
_END = "。；，："
NUMBER = re.compile(
    r"^[\s\u3000•·\-]*(?P<n>第[一二三四五六七八九十百]+条(?![，。、；：的第])|[（(][一二三四五六七八九十]+[）)]"
    r"|[（(]\d+[）)]|\d+[.．、](?!\d)|[一二三四五六七八九十]+、)[\s\u3000]*"
)


@dataclass(frozen=True)
class Unit:
    """One line of the official text."""

    id: str
    label_zh: str
    label_en: str
    kind: str
    number: str
    text: str
    optional: bool
    norm: str  # normalised, each blank one BLANK
    pattern: re.Pattern[str]  # the normalised unit, any filling in its blanks

    @property
    def parent(self) -> str:
        """The unit this one sits under ("3(7)2(1)" -> "3(7)2" -> "3(7)" -> "3"), or ""."""
        uid = self.id
        if "+" in uid:
            return uid.split("+")[0]
        for cut in (r"\(\d+\)$", r"\d+$"):
            if "(" in uid and (m := re.search(cut, uid)) and m.start() > 0:
                return uid[: m.start()]
        return ""

    @property
    def has_blanks(self) -> bool:
        return BLANK in self.norm


@dataclass(frozen=True)
class Line:
    """One non-empty line of a document: where its text (after its number) starts and ends,
    and that text normalised, with `offsets[i]` the document offset of `norm[i]`."""

    start: int
    end: int
    body: int
    number: str
    norm: str
    offsets: tuple[int, ...]


def normalise(text: str) -> tuple[str, tuple[int, ...]]:
    """Whitespace and check boxes dropped, half-width punctuation made full-width, a closing
    mark dropped; with each kept character's offset in `text` (_WIDTH maps one character to one,
    so a kept run is translated whole)."""
    runs: list[str] = []
    offsets: list[int] = []
    pos = 0
    for m in _DROP.finditer(text + "\n"):
        runs.append(text[pos : m.start()])
        offsets += range(pos, m.start())
        pos = m.end()
    kept = "".join(runs).translate(_WIDTH)
    norm = kept.rstrip(_END)
    return norm, tuple(offsets[: len(norm)])


def _unit(row: dict[str, object]) -> Unit:
    text = str(row["text"])
    pieces: list[str] = []
    regex: list[str] = []
    pos = 0
    for at, length in row["blanks"]:  # type: ignore[attr-defined]
        literal = normalise(text[pos:at])[0] if at > pos else ""
        pieces += [literal, BLANK]
        regex += [re.escape(literal), ".*?"]
        pos = at + length
    tail = normalise(text[pos:])[0]
    pieces.append(tail)
    regex.append(re.escape(tail))
    return Unit(
        id=str(row["id"]),
        label_zh=str(row["label_zh"]),
        label_en=str(row["label_en"]),
        kind=str(row["kind"]),
        number=str(row["number"]),
        text=text,
        optional=bool(row["optional"]),
        norm="".join(pieces),
        pattern=re.compile("".join(regex), re.S),
    )


@cache
def official() -> tuple[Unit, ...]:
    """The official text's units, in order (read once)."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    return tuple(_unit(row) for row in data["units"])


@cache
def by_id() -> dict[str, Unit]:
    return {unit.id: unit for unit in official()}


def document_lines(text: str) -> tuple[Line, ...]:
    """The document's non-empty lines, each with its number split off and its text normalised."""
    lines: list[Line] = []
    pos = 0
    for raw in text.split("\n"):
        start, end = pos, pos + len(raw)
        pos = end + 1
        if not raw.strip():
            continue
        m = NUMBER.match(raw)
        body = m.end() if m else len(raw) - len(raw.lstrip(" \t\u3000•·"))
        number = m["n"].translate(_WIDTH).replace("．", ".").replace("、", ".") if m else ""
        norm, offsets = normalise(raw[body:])
        if not norm:
            norm, offsets, body = normalise(raw)[0], normalise(raw)[1], 0
        lines.append(
            Line(start, end, start + body, number, norm, tuple(start + body + o for o in offsets))
        )
    return tuple(lines)
