"""Anchor validation findings as Word comments on exactly the characters they cover."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from docx.document import Document as DocxDocument
from docx.text.run import Run

from app.domain import Finding
from app.export import labels
from app.export.cleaning import xml_safe


@dataclass(frozen=True)
class PlacedRun:
    """A run written to the document and the draft offsets of its characters."""

    run: Run
    first: int
    last: int


def cut_points(findings: Iterable[Finding]) -> list[int]:
    """Sorted offsets where a run must end so that each finding covers whole runs."""
    return sorted({f.start for f in findings} | {f.end for f in findings})


def split_indices(offsets: Sequence[int], cuts: Sequence[int]) -> list[int]:
    """Indices i where offsets[i-1] and offsets[i] lie on different sides of a cut."""
    regions = [bisect_right(cuts, o) for o in offsets]
    return [i for i in range(1, len(offsets)) if regions[i] != regions[i - 1]]


def anchor_runs(finding: Finding, placed: Sequence[PlacedRun]) -> list[Run]:
    """The runs covering the finding's span; for an empty or stripped span, the nearest run."""
    inside = [p.run for p in placed if p.first >= finding.start and p.last < finding.end]
    if inside:
        return inside
    after = [p.run for p in placed if p.last >= finding.start]
    return after[:1] or [placed[-1].run]


def comment_text(finding: Finding, note: str = "") -> str:
    """Severity and code, the message in both languages, and the suggestion if any; `note`
    (where the finding is, when the comment cannot sit on its words) on a line of its own."""
    severity = labels.SEVERITY.get(finding.severity, finding.severity)
    lines = [note, f"[{severity}] {finding.code}", finding.message_zh, finding.message_en]
    if finding.suggestion:
        lines.append(f"{labels.SUGGESTION}{finding.suggestion}")
    return xml_safe("\n".join(line for line in lines if line))


def add_comments(
    doc: DocxDocument, findings: Sequence[Finding], placed: Sequence[PlacedRun]
) -> int:
    """Add one comment per finding; returns how many were added."""
    if not placed:
        return 0
    for finding in findings:
        doc.add_comment(
            anchor_runs(finding, placed),
            text=comment_text(finding),
            author=labels.COMMENT_AUTHOR,
            initials=labels.COMMENT_INITIALS,
        )
    return len(findings)
