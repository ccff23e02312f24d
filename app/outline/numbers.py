"""How an outline's headings, part titles and lines are numbered (outline.yaml `numbering:`).

- `chinese` / `arabic` (the guides): section headings are written as they are (【适用情形】),
  titled parts are numbered 一、 (1.) through the document and each part's lines （一） ((1)).
- `follow-input` (a continuation): untitled parts continue the numbers of the pasted clause.
- `official` (the filing templates: 数据出境风险自评估报告, 个人信息保护影响评估报告): section
  headings are the chapters 一、 二、; a part's title is numbered at its `level` (2 （一）, 3 1.,
  4 （1）), restarting under each shallower title; its lines one level deeper (plain below
  level 4, or with `numbered: false`). A 【heading】 (an annex such as 待客户补充事项) is written
  as it is and restarts every level, as the numbering check reads it.

Each labeller also says where it is (`where`: 二（一）1), which a later source may quote.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.outline.continuation import continue_numbers
from app.outline.model import OFFICIAL, Outline, Part
from app.validation.numerals import int_to_chinese

DEEPEST = 4  # （1）: below it lines are plain paragraphs


def _chinese(level: int, n: int) -> str:
    return f"{int_to_chinese(n)}、" if level == 1 else f"（{int_to_chinese(n)}）"


def _arabic(level: int, n: int) -> str:
    return f"{n}." if level == 1 else f"（{n}）"


def official_label(level: int, n: int) -> str:
    """一、 （一） 1. （1） for levels 1 to 4."""
    if level == 1:
        return f"{int_to_chinese(n)}、"
    if level == 2:
        return f"（{int_to_chinese(n)}）"
    return f"{n}." if level == 3 else f"（{n}）"


NUMBERING = {"chinese": _chinese, "arabic": _arabic, "follow-input": _arabic}


@dataclass
class Labeller:
    """The guides' numbering: titled parts 一、 through the document, lines （一） per part;
    a continuation's untitled parts take the clause's next numbers."""

    outline: Outline
    clause_labels: list[str] = field(default_factory=list)
    titled: int = 0
    current: str = ""

    def heading(self, text: str) -> str:
        return text

    def title(self, part: Part) -> str:
        if part.title:
            self.titled += 1
            label = NUMBERING.get(self.outline.numbering, _chinese)(1, self.titled)
            self.current = label.rstrip("、.")
            return label
        if self.outline.numbering == "follow-input":
            return self.clause_labels.pop(0)
        return ""

    def lines(self, part: Part, lines: list[str]) -> tuple[str, ...]:
        number = NUMBERING.get(self.outline.numbering, _chinese)
        return tuple(f"{number(2, i)}{line}" for i, line in enumerate(lines, 1))

    @property
    def where(self) -> str:
        return self.current


@dataclass
class OfficialLabeller(Labeller):
    """The filing templates' numbering (see the module docstring)."""

    counts: dict[int, int] = field(default_factory=dict)

    def _next(self, level: int) -> str:
        self.counts[level] = self.counts.get(level, 0) + 1
        for deeper in [k for k in self.counts if k > level]:
            del self.counts[deeper]
        return official_label(level, self.counts[level])

    def heading(self, text: str) -> str:
        if not text:
            return text
        if text.startswith("【"):
            self.counts.clear()
            return text
        return f"{self._next(1)}{text}"

    def title(self, part: Part) -> str:
        return self._next(part.level) if part.title else ""

    def lines(self, part: Part, lines: list[str]) -> tuple[str, ...]:
        level = part.level + 1
        if not part.numbered or level > DEEPEST:
            return tuple(lines)
        return tuple(f"{self._next(level)}{line}" for line in lines)

    @property
    def where(self) -> str:
        labels = [official_label(level, n) for level, n in sorted(self.counts.items())]
        return "".join(label.rstrip("、.") for label in labels)


def labeller(outline: Outline, continued: str = "") -> Labeller:
    """The labeller of `outline`'s numbering; `continued` is the clause a continuation follows."""
    if outline.numbering == OFFICIAL:
        return OfficialLabeller(outline)
    if outline.numbering == "follow-input":
        untitled = sum(1 for p in outline.parts() if not p.title)
        return Labeller(outline, continue_numbers(continued, untitled))
    return Labeller(outline)
