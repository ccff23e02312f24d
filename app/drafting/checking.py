"""The one check of a draft's text: `check(context, text)`.

The live checks while a draft streams, the page's checks of the edited text, a saved revision,
`lexspec check` and `lexspec export --findings` all call it, so the same text and context give
the same findings wherever they are computed: numbering and citations on the document's date
(with the statute catalogue of the context's knowledge), the facts check against the form where
it is a transfer's, and a continuation judged after the clause it continues.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from app.domain import CheckResult
from app.drafting.context import DraftContext
from app.validation import Catalogue


def catalogue(context: DraftContext) -> Catalogue:
    """The catalogue a draft is checked with: its knowledge's (`Knowledge.checking_catalogue`:
    the built-in one when the firm's file is broken), the built-in one for a context without."""
    from app.validation import load_catalogue

    if context.knowledge is None:
        return load_catalogue(None)
    return context.knowledge.checking_catalogue()


def check_date(context: DraftContext) -> dt.date:
    """The date a draft's citations are checked on when its text states none: the document's
    date, else today (a text without a form date that states its own date, 出具日期 …, is
    checked on that one: `CheckResult.date` says which)."""
    return context.doc_date or dt.date.today()


def check(context: DraftContext, text: str) -> CheckResult:
    """Findings and citations for `text` under `context`; spans are offsets into `text` (the
    continuation prefix is read first, its own findings left out). The pure check
    (app.validation.check) gets its catalogue (`catalogue(context)`) and date
    (`check_date`) here."""
    from app.route.facts import with_facts
    from app.validation import check as check_text

    prefix = context.check_prefix
    full_text = prefix + text
    full = check_text(
        full_text,
        catalogue=catalogue(context),
        doc_date=context.doc_date,
        default_date=check_date(context),
        required_sections=context.required_sections,
    )
    full = with_facts(full, full_text, context.facts)
    if not prefix:
        return full
    n = len(prefix)
    date = full.date
    if date is not None and date.start is not None and date.end is not None:
        inside = date.start >= n  # a date read in the prefix has no span in `text`
        date = replace(
            date, start=date.start - n if inside else None, end=date.end - n if inside else None
        )
    return CheckResult(
        date=date,
        findings=tuple(
            replace(f, start=f.start - n, end=f.end - n) for f in full.findings if f.start >= n
        ),
        citations=tuple(
            replace(c, start=c.start - n, end=c.end - n) for c in full.citations if c.start >= n
        ),
    )
