"""Store of the firm's clause library (table firm_clauses): propose, decide, read.

Functions take the session keyword-only and never commit. Every write flushes the row and
appends a chained event (`clause.proposed`, `clause.approved`, `clause.rejected`) whose
`covers` holds the row's digest as it now stands (audit.coverage), so a row changed, added or
deleted outside LexSpec is reported by `lexspec audit verify`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from audit.clause_models import FirmClauseRow
from audit.coverage import check_unchanged, covers
from audit.store import append_event
from audit.vocabulary import ClauseStatus, EventKind

# the event that records a decision, by the status decided
DECIDED = {
    ClauseStatus.APPROVED: EventKind.CLAUSE_APPROVED,
    ClauseStatus.REJECTED: EventKind.CLAUSE_REJECTED,
}


@dataclass(frozen=True)
class FirmClauseDraft:
    """What a proposal holds: a clause in the schema of prompts/<type>/clauses.yaml."""

    doc_type: str
    clause_id: str
    part: str
    text: str
    when: Mapping[str, Any] | None
    cites: tuple[Mapping[str, Any], ...]  # {statute, article, paragraph?, item?}
    author: str
    source_revision_id: int | None = None


@dataclass(frozen=True)
class StoredFirmClause:
    id: int
    doc_type: str
    clause_id: str
    part: str
    text: str
    when: Mapping[str, Any] | None
    cites: tuple[Mapping[str, Any], ...]
    author: str
    status: ClauseStatus
    version: int | None
    proposed_by: str
    proposed_at: datetime
    source_revision_id: int | None
    decided_by: str | None
    decided_at: datetime | None
    note: str


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _stored(row: FirmClauseRow) -> StoredFirmClause:
    status = ClauseStatus(row.status)  # the column's CHECK holds it to the vocabulary
    return StoredFirmClause(
        id=row.id,
        doc_type=row.doc_type,
        clause_id=row.clause_id,
        part=row.part,
        text=row.text,
        when=row.when,
        cites=tuple(c for c in (row.cites or ()) if isinstance(c, dict)),
        author=row.author,
        status=status,
        version=row.version,
        proposed_by=row.proposed_by,
        proposed_at=row.proposed_at.replace(tzinfo=UTC),
        source_revision_id=row.source_revision_id,
        decided_by=row.decided_by,
        decided_at=row.decided_at.replace(tzinfo=UTC) if row.decided_at else None,
        note=row.note or "",
    )


def _chain(row: FirmClauseRow, kind: EventKind, *, session: Session, actor: str) -> None:
    session.flush()
    payload = {
        "doc_type": row.doc_type,
        "clause": row.clause_id,
        "version": row.version,
        "source_revision_id": row.source_revision_id,
        "covers": [covers("firm_clauses", row.id, session=session)],
    }
    append_event(session=session, actor=actor, kind=kind, payload=payload)


def add_proposal(draft: FirmClauseDraft, *, session: Session, actor: str) -> StoredFirmClause:
    """A pending clause proposed by `actor`."""
    row = FirmClauseRow(
        doc_type=draft.doc_type,
        clause_id=draft.clause_id,
        part=draft.part,
        text=draft.text,
        when=dict(draft.when) if draft.when else None,
        cites=[dict(c) for c in draft.cites],
        author=draft.author,
        status=ClauseStatus.PENDING,
        version=None,
        proposed_by=actor,
        proposed_at=_now(),
        source_revision_id=draft.source_revision_id,
        note="",
    )
    session.add(row)
    _chain(row, EventKind.CLAUSE_PROPOSED, session=session, actor=actor)
    return _stored(row)


def decide(
    row_id: int, status: ClauseStatus, *, session: Session, actor: str, note: str = ""
) -> StoredFirmClause:
    """Approve (with the clause's next version number) or reject a pending clause.
    LookupError when there is no such row; ValueError when it is no longer pending."""
    row = session.get(FirmClauseRow, row_id, with_for_update=True)
    if row is None:
        raise LookupError(row_id)
    if row.status != ClauseStatus.PENDING or status not in DECIDED:
        raise ValueError(row.status)
    check_unchanged("firm_clauses", row.id, session=session)  # CoveredRowChanged: not absorbed
    if status == ClauseStatus.APPROVED:
        row.version = next_version(row.doc_type, row.clause_id, session=session)
    row.status, row.decided_by, row.decided_at, row.note = status, actor, _now(), note
    _chain(row, DECIDED[status], session=session, actor=actor)
    return _stored(row)


def next_version(doc_type: str, clause_id: str, *, session: Session) -> int:
    newest = session.scalar(
        select(func.max(FirmClauseRow.version)).where(
            FirmClauseRow.doc_type == doc_type, FirmClauseRow.clause_id == clause_id
        )
    )
    return int(newest or 0) + 1


def get_clause(row_id: int, *, session: Session) -> StoredFirmClause | None:
    row = session.get(FirmClauseRow, row_id)
    return None if row is None else _stored(row)


def list_clauses(
    *, session: Session, doc_type: str | None = None, status: ClauseStatus | None = None
) -> list[StoredFirmClause]:
    """Rows oldest first, optionally of one type and status."""
    query = select(FirmClauseRow).order_by(FirmClauseRow.id)
    if doc_type is not None:
        query = query.where(FirmClauseRow.doc_type == doc_type)
    if status is not None:
        query = query.where(FirmClauseRow.status == status)
    return [_stored(r) for r in session.scalars(query)]


def current_versions(doc_type: str, *, session: Session) -> list[StoredFirmClause]:
    """The newest approved version of every firm clause of the type, in order of first approval."""
    newest: dict[str, StoredFirmClause] = {}
    for row in list_clauses(session=session, doc_type=doc_type, status=ClauseStatus.APPROVED):
        held = newest.get(row.clause_id)
        if held is None or (row.version or 0) > (held.version or 0):
            newest[row.clause_id] = row
    return list(newest.values())


def approved_types(*, session: Session) -> Sequence[str]:
    query = select(FirmClauseRow.doc_type).where(FirmClauseRow.status == ClauseStatus.APPROVED)
    query = query.distinct()
    return sorted(session.scalars(query))
