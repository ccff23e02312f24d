"""Word's automatic numbering rendered as the reader sees it: "第一条", "1.", "（二）".

python-docx reads a paragraph's numbering properties (its own or its style's `w:numPr`) but does
not render the labels; the level definitions live in the numbering part (numbering.xml), read
here through python-docx's part and element objects. Counters run per list instance (numId),
from each level's start value (or the instance's start override); a number at one level
restarts every deeper level."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from docx.oxml.ns import qn

from app.validation.numerals import int_to_chinese
from app.validation.widths import full_width

if TYPE_CHECKING:
    from docx.document import Document as DocxDocument
    from docx.oxml.xmlchemy import BaseOxmlElement
    from docx.text.paragraph import Paragraph

LEVELS = 9
TIANGAN = "甲乙丙丁戊己庚辛壬癸"
ROMAN = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
         (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))  # fmt: skip
SUFFIX = {"tab": "\t", "space": " ", "nothing": ""}


def _roman(n: int) -> str:
    out = []
    for value, mark in ROMAN:
        count, n = divmod(n, value)
        out.append(mark * count)
    return "".join(out)


def _letters(n: int) -> str:
    """A, B, … Z, AA, BB (Word repeats the letter)."""
    return chr(ord("A") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def format_number(n: int, fmt: str) -> str:
    """`n` in Word's number format `fmt` (w:numFmt): decimal, chineseCounting, upperRoman …"""
    if n <= 0:
        return str(n)
    if fmt in ("chineseCounting", "chineseCountingThousand", "chineseLegalSimplified"):
        return int_to_chinese(n)
    if fmt in ("ideographTraditional", "ideographZodiac") and n <= len(TIANGAN):
        return TIANGAN[n - 1]
    if fmt == "decimalZero":
        return f"{n:02d}"
    if fmt in ("decimalFullWidth", "decimalFullWidth2"):
        return full_width(n)
    if fmt.startswith("decimalEnclosedCircle") and n <= 20:
        return chr(0x2460 + n - 1)
    if fmt in ("upperLetter", "lowerLetter"):
        return _letters(n) if fmt == "upperLetter" else _letters(n).lower()
    if fmt in ("upperRoman", "lowerRoman"):
        return _roman(n) if fmt == "upperRoman" else _roman(n).lower()
    return str(n)


@dataclass(frozen=True)
class Level:
    """One level of a list definition (w:lvl)."""

    fmt: str
    text: str  # w:lvlText, "第%1条"
    start: int
    suffix: str
    legal: bool  # w:isLgl: every level's number in decimal


def _val(element: BaseOxmlElement | None, name: str) -> str | None:
    if element is None:
        return None
    child = element.find(qn(name))
    return None if child is None else child.get(qn("w:val"))


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


class Numbering:
    """The labels of one document's numbered paragraphs, in reading order (call `label` for
    every paragraph in order: the counters advance as Word's do)."""

    def __init__(self, document: DocxDocument) -> None:
        self._document = document
        self._root = self._numbering_root(document)
        self._levels: dict[tuple[str, int], Level | None] = {}
        self._counters: dict[str, list[int | None]] = {}

    @staticmethod
    def _numbering_root(document: DocxDocument) -> BaseOxmlElement | None:
        from docx.opc.constants import RELATIONSHIP_TYPE as RT

        try:  # part_related_by, not .numbering_part: that one adds a part when there is none
            part = document.part.part_related_by(RT.NUMBERING)
            root: BaseOxmlElement = part.element  # type: ignore[attr-defined]
            return root
        except KeyError:
            return None

    def _num_pr(self, paragraph: Paragraph) -> tuple[str, int] | None:
        """(numId, level) from the paragraph's own numPr, else its style's (and their bases')."""
        ppr = paragraph._p.pPr
        num_pr = ppr.find(qn("w:numPr")) if ppr is not None else None
        style = paragraph.style if num_pr is None else None
        while num_pr is None and style is not None:
            spr = style.element.find(qn("w:pPr"))
            num_pr = spr.find(qn("w:numPr")) if spr is not None else None
            style = style.base_style
        num_id = _val(num_pr, "w:numId")
        if num_id is None or num_id == "0":
            return None
        return num_id, _int(_val(num_pr, "w:ilvl"), 0)

    def _level(self, num_id: str, ilvl: int) -> Level | None:
        key = (num_id, ilvl)
        if key not in self._levels:
            self._levels[key] = self._read_level(num_id, ilvl)
        return self._levels[key]

    def _read_level(self, num_id: str, ilvl: int) -> Level | None:
        root = self._root
        if root is None:
            return None
        nums = root.xpath(f'./w:num[@w:numId="{int(num_id)}"]')
        if not nums:
            return None
        abstract_id = _val(nums[0], "w:abstractNumId")
        override = nums[0].xpath(f'./w:lvlOverride[@w:ilvl="{ilvl}"]/w:startOverride/@w:val')
        levels = root.xpath(
            f'./w:abstractNum[@w:abstractNumId="{_int(abstract_id, -1)}"]/w:lvl[@w:ilvl="{ilvl}"]'
        )
        if not levels:
            return None
        lvl = levels[0]
        start = _int(override[0] if override else _val(lvl, "w:start"), 1)
        return Level(
            fmt=_val(lvl, "w:numFmt") or "decimal",
            text=_val(lvl, "w:lvlText") or "",
            start=start,
            suffix=SUFFIX.get(_val(lvl, "w:suff") or "tab", "\t"),
            legal=lvl.find(qn("w:isLgl")) is not None,
        )

    def label(self, paragraph: Paragraph) -> str:
        """The label Word shows before this paragraph ("第一条\t"), "" when it is not numbered."""
        found = self._num_pr(paragraph)
        if found is None:
            return ""
        num_id, ilvl = found
        ilvl = min(max(ilvl, 0), LEVELS - 1)
        level = self._level(num_id, ilvl)
        if level is None:
            return ""
        counters = self._counters.setdefault(num_id, [None] * LEVELS)
        current = counters[ilvl]
        counters[ilvl] = level.start if current is None else current + 1
        for deeper in range(ilvl + 1, LEVELS):
            counters[deeper] = None
        if level.fmt == "none":
            return ""
        if level.fmt == "bullet":
            return "•" + level.suffix
        return self._fill(num_id, level, counters) + level.suffix

    def _fill(self, num_id: str, level: Level, counters: list[int | None]) -> str:
        text = level.text
        for i in range(LEVELS, 0, -1):
            mark = f"%{i}"
            if mark not in text:
                continue
            other = self._level(num_id, i - 1)
            value = (
                counters[i - 1] if counters[i - 1] is not None else (other.start if other else 1)
            )
            fmt = "decimal" if level.legal or other is None else other.fmt
            text = text.replace(mark, format_number(int(value or 1), fmt))
        return text
