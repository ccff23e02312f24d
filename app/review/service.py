"""`review_document(data, name, …)`: every check LexSpec has, on a document someone else wrote.

The document is read as its reader sees it (app.review.reader), its date found (the user's,
else the date the body speaks from — 出具日期, 定稿于, 截至…, 本制度自…起施行 — else a dated
header or footer, else the DOCX core properties, else today), and the one check of a text
(app.drafting.checking.check: citations, ranges, repealed and superseded provisions, the held
texts, versions and renumbering, numbering, and the facts when given) run on that date. When
that date is before today the text is checked on today too, and what only today's check finds
among the citation findings (a renumbered article, a repealed or superseded provision) is
reported apart: right when written, outdated now. `record_review` puts the review in the
audit chain and keeps the upload only as long as the retention setting says."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from app.domain import CheckResult, DateSource, DateUsed, Finding
from app.review.reader import ParagraphSpan, ReadDocument, read_document

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from app.config import Settings
    from audit.domain import User

# the findings a later date can raise on a citation that was right when written
OUTDATED_CODES = frozenset(
    {"citation.renumbered", "citation.repealed", "citation.not_in_force", "citation.superseded"}
)
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class Passage:
    """Where a finding is: its paragraph, the paragraph's text, the span inside it."""

    paragraph: int
    place: str
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Review:
    """One document reviewed: what was read, on which date, and what the checks found."""

    name: str
    sha256: str
    size: int
    document: ReadDocument
    date: DateUsed
    result: CheckResult  # on the document's date
    outdated: tuple[Finding, ...]  # found on today's date only (a citation outdated since)
    today: dt.date
    with_facts: bool = False

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.result.findings

    def counts(self) -> dict[str, int]:
        found: Counter[str] = Counter(f.severity for f in self.findings)
        return {s: found.get(s, 0) for s in SEVERITY_ORDER}

    def top(self) -> Finding | None:
        """The finding to name first: the first of the most severe."""
        ranked = sorted(self.findings, key=lambda f: (SEVERITY_ORDER[f.severity], f.start))
        return ranked[0] if ranked else (self.outdated[0] if self.outdated else None)

    def passage(self, finding: Finding) -> Passage | None:
        span = self.document.paragraph_at(finding.start)
        if span is None:
            return None
        text = self.document.text[span.start : span.end]
        start = finding.start - span.start
        return Passage(
            span.index, span.place, text, start, min(finding.end - span.start, len(text))
        )


def _furniture_date(doc: ReadDocument) -> DateUsed | None:
    """A dated header or footer: a date it states as the document's, else any date in it."""
    from app.validation.text_date import read_text_date, readings

    own = read_text_date(doc.furniture)
    found = (own.date, own.start, own.end, own.cue) if own else None
    if found is None:
        dates = readings(doc.furniture)
        if not dates:
            return None
        found = (dates[0].last, dates[0].start, dates[0].end, "")
    day, start, end, cue = found
    start, end = start + doc.body_end, end + doc.body_end
    span: ParagraphSpan | None = doc.paragraph_at(start)
    place: DateSource = "footer" if span is not None and span.place == "footer" else "header"
    return DateUsed(day, place, cue, start, end)


def document_date(doc: ReadDocument, *, given: dt.date | None, today: dt.date) -> DateUsed:
    """The date a document is checked on (see the module's doc)."""
    from app.validation.text_date import read_text_date

    if given is not None:
        return DateUsed(given, "given")
    own = read_text_date(doc.text[: doc.body_end])
    if own is not None:
        return DateUsed(own.date, "text", own.cue, own.start, own.end)
    furniture = _furniture_date(doc)
    if furniture is not None:
        return furniture
    if doc.properties_date is not None:
        return DateUsed(doc.properties_date, "properties")
    return DateUsed(today, "today")


def _outdated(on_date: CheckResult, on_today: CheckResult) -> tuple[Finding, ...]:
    had = {(f.code, f.start, f.end) for f in on_date.findings}
    return tuple(
        f for f in on_today.findings
        if f.code in OUTDATED_CODES and (f.code, f.start, f.end) not in had
    )  # fmt: skip


def _with_contract(result: CheckResult, document: ReadDocument) -> CheckResult:
    """A 个人信息出境标准合同 is also compared with the official text (app.review.contract):
    deleted items, weakened duties, conflicting terms, 附录一 figures."""
    from app.review.contract import contract_findings, looks_like_standard_contract

    body = document.text[: document.body_end]
    if not looks_like_standard_contract(body):
        return result
    found = sorted((*result.findings, *contract_findings(body)), key=lambda f: (f.start, f.end))
    return replace(result, findings=tuple(found))


def review_document(
    data: bytes,
    name: str,
    *,
    settings: Settings,
    today: dt.date,
    facts: Mapping[str, str] | None = None,
    date: dt.date | None = None,
) -> Review:
    """Read and check one document (see the module's doc); `reader.Refused` when it cannot be
    read. Nothing is stored here: `record_review` keeps the record."""
    from app.drafting.checking import check
    from app.drafting.context import checking_context
    from app.knowledge import Knowledge

    document = read_document(data, name, max_bytes=settings.review_max_bytes)
    used = document_date(document, given=date, today=today)
    context = checking_context(
        None, dict(facts or {}), doc_date=used.date, knowledge=Knowledge.of(settings)
    )
    result = _with_contract(check(context, document.text), document)
    outdated: tuple[Finding, ...] = ()
    if used.date < today:
        outdated = _outdated(result, check(replace(context, doc_date=today), document.text))
    return Review(
        name=name, sha256=hashlib.sha256(data).hexdigest(), size=len(data), document=document,
        date=used, result=result, outdated=outdated, today=today, with_facts=bool(facts),
    )  # fmt: skip


def audit_payload(review: Review) -> dict[str, object]:
    """What the audit chain keeps of a review: the file, its hash, the date, the findings."""
    return {
        "file": review.name,
        "sha256": review.sha256,
        "bytes": review.size,
        "kind": review.document.kind,
        "date": review.date.date.isoformat(),
        "date_source": review.date.source,
        "findings": review.counts(),
        "codes": dict(sorted(Counter(f.code for f in review.findings).items())),
        "outdated": dict(sorted(Counter(f.code for f in review.outdated).items())),
        "facts": review.with_facts,
    }


def record_review(
    review: Review,
    data: bytes,
    *,
    settings: Settings,
    session: Session,
    actor: User,
    now: dt.datetime,
) -> int:
    """Append the `document.reviewed` event (who, the file, its SHA-256, the date used, the
    findings) and apply the retention setting to the upload; returns the event's id. A
    drafter's or an admin's act (PermissionDenied otherwise)."""
    from app.accounts import require_role
    from app.domain import EventKind, Role
    from app.review.retention import keep_upload
    from audit.store import append_event

    require_role(actor, Role.DRAFTER, Role.ADMIN)
    event = append_event(
        session=session, actor=actor.name, kind=EventKind.DOCUMENT_REVIEWED,
        payload=audit_payload(review),
    )  # fmt: skip
    keep_upload(data, review.name, review.sha256, settings=settings, now=now)
    return event
