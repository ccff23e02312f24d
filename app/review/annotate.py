"""The lawyer's own DOCX handed back with the review's findings on its words.

`annotated_docx(data, review)` opens the original with python-docx and adds one Word comment per
finding, anchored on exactly the runs holding the finding's characters: a run a finding starts
or ends inside is split in two, each half keeping the run's formatting (its w:rPr). With
`tracked=True`, a finding whose suggestion replaces its words (the article's current number,
the statute's official name, the number due) also becomes a tracked change: the words deleted
(w:del) and the suggestion inserted (w:ins), for Word's Review pane to accept or reject. Nothing
else is touched: paragraph texts, tables, numbering, styles, headers and footers stay as they
were. A comment cannot sit in a header, a footer or Word's automatic number: such a finding's
comment goes on the first words of the body (or of its paragraph) and says where it is."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Sequence
from copy import deepcopy
from typing import TYPE_CHECKING

from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.text.run import Run

from app.domain import Finding
from app.export import labels
from app.export.cleaning import xml_safe
from app.export.comments import PlacedRun, anchor_runs, comment_text
from app.review.reader import ParagraphSpan, iter_paragraphs, open_docx, paragraph_runs

if TYPE_CHECKING:
    from docx.document import Document as DocxDocument
    from docx.oxml.xmlchemy import BaseOxmlElement
    from docx.text.paragraph import Paragraph

    from app.review.service import Review

TEXT_TAGS = {qn(f"w:{n}") for n in ("t", "tab", "br", "cr", "noBreakHyphen", "ptab")}
# the findings whose suggestion is the replacement of their words
REPLACING = frozenset(
    {"citation.renumbered", "citation.name_variant", "numbering.gap", "numbering.duplicate",
     "numbering.out_of_order"}
)  # fmt: skip
FIRST_CHANGE_ID = 90_000  # above any w:id Word writes for a small document's annotations


def _keep(r: BaseOxmlElement, lo: int, hi: int | None) -> None:
    """Keep only the run's characters [lo, hi) (hi None: to the end); its w:rPr stays."""
    at = 0
    for child in list(r):
        if child.tag == qn("w:rPr"):
            continue
        length = len(str(child)) if child.tag in TEXT_TAGS else 0
        first, last = at, at + length
        at = last
        if length == 0 or child.tag != qn("w:t"):
            inside = lo <= first and (hi is None or first < hi)
            if not inside:
                r.remove(child)
            continue
        cut_lo, cut_hi = max(lo - first, 0), length if hi is None else min(hi - first, length)
        if cut_hi <= cut_lo:
            r.remove(child)
            continue
        child.text = (child.text or "")[cut_lo:cut_hi]
        child.set(qn("xml:space"), "preserve")


def split_run(run: Run, at: int) -> Run:
    """Split `run` after its first `at` characters; returns the second half (same format)."""
    right = deepcopy(run._r)
    _keep(run._r, 0, at)
    _keep(right, at, None)
    run._r.addnext(right)
    return Run(right, run._parent)


def _place(paragraph: Paragraph, span: ParagraphSpan, cuts: Sequence[int]) -> list[PlacedRun]:
    """The paragraph's runs with their offsets in the document's text, split at `cuts`."""
    runs = paragraph_runs(paragraph)
    placed = []
    for held in span.runs:
        run, start = runs[held.run], held.start
        for cut in (c for c in cuts if held.start < c < held.end):
            right = split_run(run, cut - start)
            placed.append(PlacedRun(run, start, cut - 1))
            run, start = right, cut
        placed.append(PlacedRun(run, start, held.end - 1))
    return placed


def _note(finding: Finding, span: ParagraphSpan | None, outdated: bool) -> str:
    notes = [labels.OUTDATED_NOTE] if outdated else []
    if span is not None and span.place != "body":
        notes.append(labels.PLACE_NOTE[span.place])
    elif span is not None and finding.start < span.start + len(span.label):
        notes.append(labels.PLACE_NOTE["label"])
    return "；".join(notes)


class _Changes:
    """Tracked changes with one author and date and ids of their own."""

    def __init__(self, when: dt.datetime) -> None:
        self.date = when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.next_id = FIRST_CHANGE_ID
        self.taken: set[int] = set()

    def mark(self, tag: str) -> BaseOxmlElement:
        element = OxmlElement(tag)
        element.set(qn("w:id"), str(self.next_id))
        element.set(qn("w:author"), labels.TRACKED_AUTHOR)
        element.set(qn("w:date"), self.date)
        self.next_id += 1
        return element

    def replace(self, runs: Sequence[Run], text: str) -> bool:
        """Track the runs' deletion and `text`'s insertion; False when they cannot be."""
        elements = [r._r for r in runs]
        parent = elements[0].getparent()
        if any(id(e) in self.taken or e.getparent() is not parent for e in elements):
            return False
        index = [parent.index(e) for e in elements]
        if index != list(range(index[0], index[0] + len(index))):
            return False
        deleted, inserted = self.mark("w:del"), self.mark("w:ins")
        elements[0].addprevious(deleted)
        for element in elements:
            self.taken.add(id(element))
            for t in element.findall(qn("w:t")):
                gone = OxmlElement("w:delText")
                gone.set(qn("xml:space"), "preserve")
                gone.text = t.text
                t.addprevious(gone)
                element.remove(t)
            deleted.append(element)
        new = OxmlElement("w:r")
        props = elements[0].find(qn("w:rPr"))
        if props is not None:
            new.append(deepcopy(props))
        body = OxmlElement("w:t")
        body.set(qn("xml:space"), "preserve")
        body.text = xml_safe(text)
        new.append(body)
        inserted.append(new)
        deleted.addnext(inserted)
        return True


def _placed_runs(document: DocxDocument, review: Review, findings: Sequence[Finding]) -> tuple[
    list[PlacedRun], dict[int, list[PlacedRun]]
]:  # fmt: skip
    """Every body run placed (split at the findings' edges), and each paragraph's own."""
    spans = review.document.paragraphs
    paragraphs = [p for _, p in iter_paragraphs(document)]
    cuts = sorted({f.start for f in findings} | {f.end for f in findings})
    placed: list[PlacedRun] = []
    by_paragraph: dict[int, list[PlacedRun]] = {}
    for span, paragraph in zip(spans, paragraphs, strict=True):
        if span.place != "body":
            continue
        inside = [c for c in cuts if span.start < c < span.end]
        by_paragraph[span.index] = _place(paragraph, span, inside)
        placed.extend(by_paragraph[span.index])
    return placed, by_paragraph


def annotated_docx(
    data: bytes, review: Review, *, tracked: bool = False, when: dt.datetime | None = None
) -> bytes:
    """The original DOCX with the review's comments (and, `tracked`, its tracked fixes)."""
    document = open_docx(data, review.name)
    marked = [(f, False) for f in review.findings] + [(f, True) for f in review.outdated]
    placed, by_paragraph = _placed_runs(document, review, [f for f, _ in marked])
    if not placed:
        return data  # no body text to hold a comment: the document as it came
    changes = _Changes(when or dt.datetime.now(dt.UTC))
    for finding, outdated in marked:
        span = review.document.paragraph_at(finding.start)
        own = by_paragraph.get(span.index, []) if span is not None else []
        anchor = anchor_runs(finding, own) if own else [placed[0].run]
        document.add_comment(
            anchor, text=comment_text(finding, _note(finding, span, outdated)),
            author=labels.COMMENT_AUTHOR, initials=labels.COMMENT_INITIALS,
        )  # fmt: skip
        if tracked and _replaces(finding, span):
            exact = [p.run for p in own if p.first >= finding.start and p.last < finding.end]
            if exact:
                changes.replace(exact, finding.suggestion)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _replaces(finding: Finding, span: ParagraphSpan | None) -> bool:
    """A finding a tracked change can fix: its suggestion replaces its words, which are in the
    body and not in Word's automatic number."""
    return (
        finding.code in REPLACING
        and bool(finding.suggestion)
        and span is not None
        and span.place == "body"
        and finding.start >= span.start + len(span.label)
        and finding.end <= span.end
    )
