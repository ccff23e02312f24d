"""The one check of a draft's text: `check(context, text)`.

The live checks while a draft streams, the page's checks of the edited text, a saved revision,
`lexspec check` and `lexspec export --findings` all call it, so the same text and context give
the same findings wherever they are computed: numbering and citations on the document's date
(with the configured statute catalogue), the facts check against the form where it is a
transfer's, and a continuation judged after the clause it continues.
"""

from __future__ import annotations

from dataclasses import replace

from app.domain import CheckResult
from app.drafting.context import DraftContext
from app.validation import Catalogue


def catalogue() -> Catalogue:
    """The configured statute catalogue. A broken firm statute file must not interrupt a
    lawyer's draft or its review: the built-in catalogue then stands in (`lexspec check` and
    `lexspec export --findings` load it first with app.validation.default_catalogue, which
    reports the file's error)."""
    from app.validation import CatalogueError, default_catalogue, load_catalogue

    try:
        return default_catalogue()
    except CatalogueError:
        return load_catalogue(None)


def check(context: DraftContext, text: str) -> CheckResult:
    """Findings and citations for `text` under `context`; spans are offsets into `text` (the
    continuation prefix is read first, its own findings left out)."""
    from app.route.facts import with_facts
    from app.validation import check as check_text

    prefix = context.check_prefix
    full_text = prefix + text
    full = check_text(
        full_text,
        required_sections=context.required_sections,
        catalogue=catalogue(),
        doc_date=context.doc_date,
    )
    full = with_facts(full, full_text, context.facts)
    if not prefix:
        return full
    n = len(prefix)
    return CheckResult(
        findings=tuple(
            replace(f, start=f.start - n, end=f.end - n) for f in full.findings if f.start >= n
        ),
        citations=tuple(
            replace(c, start=c.start - n, end=c.end - n) for c in full.citations if c.start >= n
        ),
    )
