"""The one entry point: check a draft (whole or still streaming) and return frozen findings."""

from __future__ import annotations

from collections.abc import Sequence

from app.domain import CheckResult
from app.validation.catalogue import Catalogue, default_catalogue
from app.validation.citations import parse_citations
from app.validation.numbering import check_numbering
from app.validation.structure import check_structure


def check(
    text: str, *, required_sections: Sequence[str] = (), catalogue: Catalogue | None = None
) -> CheckResult:
    """Citations, numbering and required sections of `text`; findings sorted by position.

    Pure apart from loading the (cached) catalogue when none is given. Offsets are indices
    into `text` as a Python str (code points)."""
    catalogue = catalogue if catalogue is not None else default_catalogue()
    citations, findings = parse_citations(text, catalogue)
    findings.extend(check_numbering(text))
    findings.extend(check_structure(text, required_sections))
    findings.sort(key=lambda f: (f.start, f.end, f.code))
    return CheckResult(findings=tuple(findings), citations=tuple(citations))


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset (for messages and editors)."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
