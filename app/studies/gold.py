"""Gold items: a real draft with one seeded error, made by the app (pure, deterministic given
the seed). A reviewer cannot tell a gold item from any other draft; the report counts how many
seeded errors each reviewer caught (app.studies.report).

Kinds (app.studies.design.GOLD_KINDS, with the score dimension each one harms):
- wrong_article: one article number of a citation (第N条) becomes another (N + 1…3);
- wrong_count: one count (a number of people, items, records…) becomes ten times larger or,
  when it is large, ten times smaller — a count that may change the legal route;
- missing_section: one top-level section (一、… up to the next) is removed, never the first.
A kind that finds nothing to change in the draft gives None; `seed_gold` then tries the
next kind in a fixed order, so every usable draft yields a gold item.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from app.studies.design import GOLD_KINDS
from app.validation.numerals import chinese_to_int, int_to_chinese
from audit.vocabulary import GoldKind

ARTICLE = re.compile(r"第([〇零一二三四五六七八九十百千0-9]+)条")
# an Arabic count not part of a date, an article or a section number
ARABIC_COUNT = re.compile(
    r"(?<![第\d.,])(\d{1,3}(?:,\d{3})+|\d+)(?![\d.,]*\s*[年月日号条款项章节%])"
)
CHINESE_COUNT = re.compile(r"(?<!第)([一二三四五六七八九十百千]+)(?=[万]?[人名个项家份次条])")
TOP_SECTION = re.compile(r"^\s*[一二三四五六七八九十]+、", re.MULTILINE)


@dataclass(frozen=True)
class SeededError:
    """The gold text and what was changed (for the admin's report, never the reviewer)."""

    kind: GoldKind
    text: str
    before: str
    after: str


def _wrong_article(text: str, rng: random.Random) -> SeededError | None:
    matches = [m for m in ARTICLE.finditer(text) if _article_number(m.group(1)) is not None]
    if not matches:
        return None
    m = rng.choice(matches)
    number = _article_number(m.group(1))
    assert number is not None
    new = number + rng.randint(1, 3)
    digits = m.group(1).isdigit()
    after = f"第{new if digits else int_to_chinese(new)}条"
    return SeededError(
        GoldKind.WRONG_ARTICLE, text[: m.start()] + after + text[m.end() :], m[0], after
    )


def _article_number(raw: str) -> int | None:
    return int(raw) if raw.isdigit() else chinese_to_int(raw)


def _wrong_count(text: str, rng: random.Random) -> SeededError | None:
    arabic = list(ARABIC_COUNT.finditer(text))
    chinese = [m for m in CHINESE_COUNT.finditer(text) if chinese_to_int(m.group(1))]
    if not arabic and not chinese:
        return None
    m = rng.choice(arabic or chinese)
    if arabic:
        value = int(m.group(1).replace(",", ""))
        new = value // 10 if value >= 1000 else value * 10 or 10
        after = f"{new:,}" if "," in m.group(1) else str(new)
    else:
        value = chinese_to_int(m.group(1)) or 1
        after = int_to_chinese(value // 10 if value >= 1000 else value * 10)
    return SeededError(
        GoldKind.WRONG_COUNT, text[: m.start()] + after + text[m.end() :], m[0], after
    )


def _missing_section(text: str, rng: random.Random) -> SeededError | None:
    starts = [m.start() for m in TOP_SECTION.finditer(text)]
    if len(starts) < 2:
        return None
    i = rng.randrange(1, len(starts))
    end = starts[i + 1] if i + 1 < len(starts) else len(text)
    removed = text[starts[i] : end]
    heading = removed.strip().splitlines()[0]
    gold = (text[: starts[i]] + text[end:]).rstrip() + ("\n" if text.endswith("\n") else "")
    return SeededError(GoldKind.MISSING_SECTION, gold, heading, "")


SEEDERS: dict[GoldKind, Callable[[str, random.Random], SeededError | None]] = {
    GoldKind.WRONG_ARTICLE: _wrong_article,
    GoldKind.WRONG_COUNT: _wrong_count,
    GoldKind.MISSING_SECTION: _missing_section,
}
assert set(SEEDERS) == set(GOLD_KINDS)


def seed_error(text: str, kind: GoldKind, seed: int) -> SeededError | None:
    """`text` with one error of `kind`; None when the draft has nothing of that kind."""
    return SEEDERS[kind](text, random.Random(f"{kind}:{seed}"))


def seed_gold(text: str, kind: GoldKind, seed: int) -> SeededError | None:
    """One seeded error, of `kind` if the draft allows it, else of the next kind that does;
    None when no kind applies (a draft with no citation, no count and one section)."""
    kinds = list(SEEDERS)
    start = kinds.index(kind)
    for k in kinds[start:] + kinds[:start]:
        seeded = seed_error(text, k, seed)
        if seeded is not None and seeded.text != text:
            return seeded
    return None
