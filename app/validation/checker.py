"""The pure check of a text (whole or still streaming) against a catalogue on a date: frozen findings."""

from __future__ import annotations

import bisect
import datetime as dt
import re
from collections.abc import Iterable, Sequence

from app.domain import CheckResult, DateUsed
from app.validation.catalogue import Catalogue
from app.validation.citations import parse_citations
from app.validation.content import check_content
from app.validation.numbering import check_numbering
from app.validation.structure import check_structure
from app.validation.text_date import Dating, read_text_date
from app.validation.texts import TextStore, load_texts


def date_used(text: str, doc_date: dt.date | None, default_date: dt.date | None) -> DateUsed:
    """The date a text is checked on: `doc_date` when given, else the date the text speaks
    from (read_text_date), else `default_date`; ValueError when none of them says."""
    if doc_date is not None:
        return DateUsed(doc_date, "given")
    own = read_text_date(text)
    if own is not None:
        return DateUsed(own.date, "text", own.cue, own.start, own.end)
    if default_date is None:
        raise ValueError("check() needs doc_date or default_date when the text states no date")
    return DateUsed(default_date, "default")


def check(
    text: str,
    *,
    catalogue: Catalogue,
    doc_date: dt.date | None = None,
    default_date: dt.date | None = None,
    required_sections: Sequence[str] = (),
    texts: TextStore | None = None,
) -> CheckResult:
    """Citations, numbering and required sections of `text`; findings sorted by position.

    A pure function of its arguments: `catalogue` is the statute catalogue citations are
    resolved in, `doc_date` the document's date (the statute versions in force on it are the
    ones citations are checked against; None: the date the text itself speaks from, 出具日期,
    更新于 …, else `default_date`), `texts` the statute texts (None: the built-in texts
    shipped with the app, loaded once). A sentence that sets its own date (截至…, 2023年时…)
    is read on that date. The result says which date was used (`CheckResult.date`). Nothing
    here reads Settings or the clock: a draft's check goes through app.drafting.checking.check,
    which supplies them from the draft's context. Offsets are indices into `text` as a Python
    str (code points)."""
    store = texts if texts is not None else load_texts()
    used = date_used(text, doc_date, default_date)
    citations, findings = parse_citations(text, catalogue)
    content, citations = check_content(
        text,
        citations,
        catalogue=catalogue,
        store=store,
        doc_date=used.date,
        dating=Dating.of(text, used.date),
    )
    findings.extend(content)
    findings.extend(check_numbering(text))
    findings.extend(check_structure(text, required_sections))
    findings.sort(key=lambda f: (f.start, f.end, f.code))
    return CheckResult(findings=tuple(findings), citations=tuple(citations), date=used)


def line_cols(text: str, offsets: Iterable[int]) -> list[tuple[int, int]]:
    """1-based line and column of each character offset (for messages and editors): the line
    starts are found in one pass over the text, then each offset is a binary search, so a
    report on a large draft with many findings stays linear."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    out = []
    for offset in offsets:
        line = bisect.bisect_right(starts, offset)
        out.append((line, offset - starts[line - 1] + 1))
    return out


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of one character offset (line_cols for many)."""
    return line_cols(text, (offset,))[0]
