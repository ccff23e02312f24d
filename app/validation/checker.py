"""The pure check of a text (whole or still streaming) against a catalogue on a date: frozen findings."""

from __future__ import annotations

import bisect
import datetime as dt
import re
from collections.abc import Iterable, Sequence

from app.domain import CheckResult
from app.validation.catalogue import Catalogue
from app.validation.citations import parse_citations
from app.validation.content import check_content
from app.validation.numbering import check_numbering
from app.validation.structure import check_structure
from app.validation.texts import TextStore, load_texts


def check(
    text: str,
    *,
    catalogue: Catalogue,
    doc_date: dt.date,
    required_sections: Sequence[str] = (),
    texts: TextStore | None = None,
) -> CheckResult:
    """Citations, numbering and required sections of `text`; findings sorted by position.

    A pure function of its arguments: `catalogue` is the statute catalogue citations are
    resolved in, `doc_date` the document's date (the statute versions in force on it are the
    ones citations are checked against), `texts` the statute texts (None: the built-in texts
    shipped with the app, loaded once). Nothing here reads Settings or the clock: a draft's
    check goes through app.drafting.checking.check, which supplies them from the draft's
    context. Offsets are indices into `text` as a Python str (code points)."""
    store = texts if texts is not None else load_texts()
    citations, findings = parse_citations(text, catalogue)
    content, citations = check_content(
        text, citations, catalogue=catalogue, store=store, doc_date=doc_date
    )
    findings.extend(content)
    findings.extend(check_numbering(text))
    findings.extend(check_structure(text, required_sections))
    findings.sort(key=lambda f: (f.start, f.end, f.code))
    return CheckResult(findings=tuple(findings), citations=tuple(citations))


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
