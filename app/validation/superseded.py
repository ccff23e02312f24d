"""citation.superseded (warning): a provision of an earlier instrument that a later one overrides,
cited as the law on the document's date, or the earlier rule's wording attributed to the later one.

The overridden provisions are data (superseded.yaml: each row with the reasoning read in both
texts). Decided by the document's date: before the later instrument took effect, citing the
earlier provision is right. A sentence that speaks of the change itself (原…, 此前, 已被…取代,
调整为, 改为) is not flagged."""

from __future__ import annotations

import bisect
import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from app import yamldata
from app.domain import BilingualError, Citation, Finding
from app.validation.catalogue import as_date
from app.validation.messages import finding
from app.validation.numerals import int_to_chinese
from app.validation.text_date import Dating

SUPERSEDED_FILE = Path(__file__).with_name("superseded.yaml")
SENTENCE_END = re.compile(r"[。！？；!?;\n]")
HISTORY = re.compile(
    r"原《|原规定|原办法|曾规定|曾经|此前|以前|旧规|已被|已由|取代|调整为|改为|不再|当时|彼时"
)
# a date the sentence sets itself in: 2023年时, 2024年3月前, 2022年至2023年间
PAST = re.compile(
    r"(?P<year>[0-9]{4})年(?:(?P<month>[0-9]{1,2})月(?:[0-9]{1,2}日)?)?"
    r"(?:时|间|当时|之时|期间|以前|之前|前|那时)"
)


class SupersededError(BilingualError, ValueError):
    """superseded.yaml is unreadable or a row is incomplete."""


@dataclass(frozen=True)
class Provision:
    statute: str
    article: int
    paragraph: int | None = None
    item: int | None = None

    @property
    def where(self) -> str:
        """第四条第一款第三项 (the 款 is written whenever a 项 is)."""
        text = f"第{int_to_chinese(self.article)}条"
        if self.paragraph or self.item:
            text += f"第{int_to_chinese(self.paragraph or 1)}款"
        return text + (f"第{int_to_chinese(self.item)}项" if self.item else "")

    @property
    def where_en(self) -> str:
        text = f"article {self.article}"
        if self.paragraph or self.item:
            text += f", paragraph {self.paragraph or 1}"
        return text + (f", item {self.item}" if self.item else "")


@dataclass(frozen=True)
class Row:
    """One overridden provision and the one that prevails over it."""

    earlier: Provision
    prevailing: Provision
    since: dt.date
    whole: bool  # the whole 款 / 项 states the overridden rule
    terms: tuple[re.Pattern[str], ...]
    change_zh: str
    change_en: str
    reason: str
    # an exemption row: the earlier measure's obligation (`obligation`) stated for a case the
    # later rule exempts (`terms`), unless the sentence also states what takes it out (`unless`)
    obligation: re.Pattern[str] | None = None
    unless: re.Pattern[str] | None = None

    def covers(self, citation: Citation) -> str:
        """'exact' (the row's 款 / 项 or a part of it), 'wider' (the article, or the 款 holding
        the row's 项) or '' (another article or part)."""
        mine = self.earlier
        if citation.statute != mine.statute or citation.article != mine.article:
            return ""
        paragraph, item = citation.paragraph, citation.item
        if paragraph is None and item is None:
            return "wider"
        if (paragraph or 1) != (mine.paragraph or 1):
            return ""
        if mine.item is None or item == mine.item:
            return "exact"
        return "wider" if item is None else ""

    def used(self, sentence: str) -> bool:
        if not any(term.search(sentence) for term in self.terms):
            return False
        if self.unless is not None and self.unless.search(sentence):
            return False
        return self.obligation is None or bool(self.obligation.search(sentence))

    def told_as_past(self, past: Sequence[tuple[int, int]]) -> bool:
        """The sentence sets itself before the later rule (2023年时…): history, not law.
        `past`: the (year, month) of each such date in the sentence (month 0: none given)."""
        since = self.since
        return any(
            year < since.year or (year == since.year and 0 < month <= since.month)
            for year, month in past
        )


def _provision(raw: Any, where: str) -> Provision:
    try:
        return Provision(
            str(raw["statute"]), int(raw["article"]), raw.get("paragraph"), raw.get("item")
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise SupersededError(
            f"{where}：须有 statute 和 article", f"{where}: statute and article are required"
        ) from exc


def _row(raw: dict[str, Any], where: str) -> Row:
    try:
        since = as_date(raw["since"], where, SupersededError)
        terms = tuple(re.compile(str(t)) for t in raw["terms"])
        change = raw["change"]
        row = Row(
            _provision(raw["earlier"], where),
            _provision(raw["prevailing"], where),
            since,  # type: ignore[arg-type]
            bool(raw["whole"]),
            terms,
            str(change["zh"]),
            str(change["en"]),
            str(raw["reason"]),
            _pattern(raw.get("obligation")),
            _pattern(raw.get("unless")),
        )
    except (KeyError, TypeError, re.error) as exc:
        raise SupersededError(
            f"{where}：缺少字段或正则表达式有误",
            f"{where}: a field is missing or a term is invalid",
        ) from exc
    if row.since is None or not row.terms or not row.reason:
        raise SupersededError(
            f"{where}：须有 since、terms、reason", f"{where}: since, terms and reason are required"
        )
    return row


def _pattern(raw: Any) -> re.Pattern[str] | None:
    return re.compile(str(raw)) if raw else None


@lru_cache(maxsize=4)
def load_superseded(path: str = str(SUPERSEDED_FILE)) -> tuple[Row, ...]:
    """The rows of superseded.yaml, validated; cached (the file ships with the app)."""
    try:
        data = yamldata.load(Path(path).read_text(encoding="utf-8"))
        rows = data["superseded"]
    except (OSError, yamldata.YAMLError, KeyError, TypeError) as exc:
        raise SupersededError(
            f"{Path(path).name} 无法读取", f"{Path(path).name} is unreadable"
        ) from exc
    return tuple(_row(raw, f"{Path(path).name} #{n}") for n, raw in enumerate(rows, start=1))


_ANY_TERM: dict[int, tuple[Sequence[Row], re.Pattern[str]]] = {}


def _any_term(rows: Sequence[Row]) -> re.Pattern[str]:
    """One pattern of every row's terms: a sentence with none of them uses no row's wording
    (keyed by the rows' identity, checked as in matching.index_for)."""
    cached = _ANY_TERM.get(id(rows))
    if cached is None or cached[0] is not rows:
        joined = "|".join(f"(?:{t.pattern})" for row in rows for t in row.terms)
        cached = _ANY_TERM[id(rows)] = (rows, re.compile(joined))
    return cached[1]


@dataclass(frozen=True)
class _Sentence:
    """What a sentence says once, for every citation in it."""

    text: str
    history: bool  # it speaks of the change (原…, 此前 …)
    past: tuple[tuple[int, int], ...]  # the (year, month) it sets itself in (2023年时 …)
    worded: bool  # one of the rows' terms occurs in it

    @classmethod
    def read(cls, text: str, rows: Sequence[Row]) -> _Sentence:
        history = bool(HISTORY.search(text))
        past = tuple((int(m["year"]), int(m["month"] or 0)) for m in PAST.finditer(text))
        worded = not history and bool(_any_term(rows).search(text))
        return cls(text, history, past, worded)


def _match(
    citation: Citation, sentence: _Sentence, day: dt.date, rows: Sequence[Row]
) -> Row | None:
    """The row a citation in this sentence runs into, if any."""
    if sentence.history:
        return None
    words, past = sentence.text, sentence.past
    for row in rows:
        cover = row.covers(citation) if day >= row.since else ""
        if not cover or row.told_as_past(past):
            continue
        if (cover == "exact" and row.whole) or (sentence.worded and row.used(words)):
            return row
    if not sentence.worded:
        return None
    later = [
        r
        for r in rows
        if r.prevailing.statute == citation.statute and not r.told_as_past(past) and r.used(words)
    ]
    later.sort(key=lambda r: r.prevailing.article != citation.article)
    return later[0] if later else None


def check_superseded(
    text: str,
    citations: Sequence[Citation],
    *,
    doc_date: dt.date,
    rows: Sequence[Row] = (),
    dating: Dating | None = None,
) -> list[Finding]:
    """One finding per citation that relies on an overridden provision. A sentence still being
    written (no end yet) is left alone, as in the content check. Only citations of a statute
    some row names are read, each sentence once, on its own date where it sets one
    (`dating`), else on `doc_date`."""
    dating = dating or Dating(doc_date)
    rows = rows or load_superseded()
    named = {r.earlier.statute for r in rows} | {r.prevailing.statute for r in rows}
    ends = [m.end() for m in SENTENCE_END.finditer(text)]
    sentences: dict[int, _Sentence] = {}
    findings: list[Finding] = []
    for citation in citations:
        if citation.article is None or citation.statute not in named:
            continue
        after = bisect.bisect_right(ends, citation.end - 1)
        if after == len(ends):
            continue  # its sentence is still being written
        before = bisect.bisect_right(ends, citation.start)
        if after not in sentences:
            start = ends[before - 1] if before else 0
            sentences[after] = _Sentence.read(text[start : ends[after]], rows)
        row = _match(citation, sentences[after], dating.on(citation.start), rows)
        if row is not None:
            findings.append(_finding(citation, row))
    return findings


def _finding(citation: Citation, row: Row) -> Finding:
    early, late = row.earlier, row.prevailing
    return finding(
        "citation.superseded",
        citation.start,
        citation.end,
        f"《{late.statute}》{late.where}",
        earlier=early.statute,
        earlier_at=early.where,
        earlier_at_en=early.where_en,
        prevailing=late.statute,
        prevailing_at=late.where,
        prevailing_at_en=late.where_en,
        since=row.since.isoformat(),
        change=row.change_zh,
        change_en=row.change_en,
    )
