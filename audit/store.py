"""The audit log: append generations and events to the hash chain, read them back, verify.

Functions take the session keyword-only and never commit: the caller's unit of work
does (app.database.session_scope). Appending locks the chain head until that commit,
so keep the transaction short.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import ColumnElement, Table, func, inspect, or_, select, update
from sqlalchemy.exc import DataError, IntegrityError
from sqlalchemy.orm import Session

from audit import chain
from audit.coverage import coverage_faults, signed
from audit.domain import (
    COUNT_MAX,
    AuditEvent,
    ChainReport,
    GenerationRecord,
    GenerationSummary,
    LoggedGeneration,
    StoredGeneration,
    error_count,
)
from audit.matter_models import Matter
from audit.models import ChainHead, Event, Generation
from audit.revision_models import Revision
from audit.vocabulary import EventKind, GenerationStatus

CHAINED = (Generation, Event, Revision, Matter)
PREVIEW_CHARS = 120
VERIFY_BATCH = 500
_FLOATS = ("ttft_s", "total_s", "tokens_per_s")
_INTS = ("prompt_tokens", "completion_tokens", "draft_tokens", "accepted_tokens")
_JSON = ("field_values", "speculative", "params", "findings")
# session.info key: (seq, row_hash) of every row this transaction appended, for the anchor
APPENDED = "lexspec.chain_appended"


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _lock_head(session: Session) -> ChainHead:
    """Take the chain's append lock and return its head row (held until the caller commits)."""
    if session.get_bind().dialect.name == "sqlite":
        if not session.in_transaction():
            session.connection(execution_options={"sqlite_begin": "IMMEDIATE"})
        else:  # already inside a deferred transaction: a write takes the lock now
            session.execute(update(ChainHead).where(ChainHead.id == 1).values(id=1))
        head = session.execute(
            select(ChainHead).where(ChainHead.id == 1).execution_options(populate_existing=True)
        ).scalar_one()
    else:
        head = session.execute(
            select(ChainHead)
            .where(ChainHead.id == 1)
            .with_for_update()
            .execution_options(populate_existing=True)
        ).scalar_one()
    return head


def _content(row: Generation | Event | Revision | Matter) -> dict[str, Any]:
    return {c.key: getattr(row, c.key) for c in row.__table__.columns if c.key != "row_hash"}


def _row_content(table: Table, row: Mapping[str, Any]) -> dict[str, Any]:
    return {c.key: row[c.key] for c in table.columns if c.key != "row_hash"}


def _append(row: Generation | Event | Revision | Matter, *, session: Session) -> None:
    """Give `row` the next seq, link it to the head and hash it; then move the head."""
    head = _lock_head(session)
    row.seq = head.last_seq + 1
    row.prev_hash = head.last_hash
    row.created_at = _now()
    row.row_hash = "pending"  # the hash covers the id, known after the insert
    session.add(row)
    session.flush()
    row.row_hash = chain.row_hash(row.__tablename__, _content(row))
    head.last_seq, head.last_hash = row.seq, row.row_hash
    session.flush()
    session.info.setdefault(APPENDED, []).append((row.seq, row.row_hash))


def record_values(record: GenerationRecord) -> dict[str, Any]:
    """Record fields coerced to what the columns will read back (so the hash survives);
    ValueError for a record the log refuses (unknown status, not JSON-able, too long)."""
    if record.status not in list(GenerationStatus):
        raise ValueError(f"unknown generation status {record.status!r}")
    values = record_columns(record)
    for column in Generation.__table__.columns:
        limit = getattr(column.type, "length", None)
        value = values.get(column.key)
        if limit and isinstance(value, str) and len(value) > limit:
            raise ValueError(f"GenerationRecord.{column.key} is longer than {limit} characters")
    for name in (*_JSON, *_FLOATS):
        if name in _FLOATS and values[name] is not None:
            values[name] = float(values[name])
        try:
            values[name] = chain.normalise(values[name])  # also rejects NaN / infinity
        except (TypeError, ValueError) as exc:
            raise ValueError(f"GenerationRecord.{name} is not JSON-able: {exc}") from exc
    for name in _INTS:
        value = values[name]
        if value is not None and not _is_count(value):
            raise ValueError(
                f"GenerationRecord.{name} is not a count from 0 to {COUNT_MAX}: {value!r:.40}"
            )
    return values


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= COUNT_MAX


def log_generation(record: GenerationRecord, *, session: Session) -> LoggedGeneration:
    """Append one generation (complete, stopped or failed) to the log."""
    row = Generation(**record_values(record))
    _append(row, session=session)
    return LoggedGeneration(row.id, row.seq, _aware(row.created_at), row.row_hash)


@dataclass(frozen=True)
class Refusal:
    """A record the database refused (why, one line): it is set aside, the others go in."""

    reason: str


def log_each(
    records: Sequence[GenerationRecord], *, session: Session
) -> list[LoggedGeneration | Refusal]:
    """Append each record in a savepoint of its own, in order: one the log or the database
    refuses (a value too long, a constraint) is rolled back alone and answered with a Refusal,
    the rest go in. A lost connection or lock is raised (the caller retries the whole unit)."""
    outcomes: list[LoggedGeneration | Refusal] = []
    for record in records:
        appended = list(session.info.get(APPENDED, []))
        try:
            with session.begin_nested():
                outcomes.append(log_generation(record, session=session))
        except (ValueError, UnicodeError, DataError, IntegrityError) as exc:
            session.info[APPENDED] = appended  # the rolled-back row is not anchored
            outcomes.append(Refusal(_one_line(exc)))
    return outcomes


def _one_line(exc: BaseException) -> str:
    inner = getattr(exc, "orig", None) or exc
    lines = str(inner).strip().splitlines()
    return f"{type(inner).__name__}: {lines[0] if lines else ''}".rstrip(": ")


def append_event(
    *, session: Session, actor: str, kind: EventKind, payload: Mapping[str, Any]
) -> int:
    """Append an auditable event (endpoint switch, unblinding, correction, ...); returns its id.
    The rows it covers are signed for its seq (audit.coverage.signed: the session's audit key)."""
    seq = _lock_head(session).last_seq + 1  # held until the commit: _append takes this seq
    row = Event(
        actor=actor, kind=kind, payload=chain.normalise(signed(payload, seq, session=session))
    )
    _append(row, session=session)
    return row.id


def _aware(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC)


def record_columns(source: GenerationRecord | Generation) -> dict[str, Any]:
    """A record's fields by name, read from a record (to write its row) or from its row (to read
    it back): the one mapping between a GenerationRecord and the generations table."""
    return {f.name: getattr(source, f.name) for f in fields(GenerationRecord)}


def _to_record(row: Generation) -> GenerationRecord:
    return GenerationRecord(**record_columns(row))


def get_generation(generation_id: int, *, session: Session) -> StoredGeneration | None:
    row = session.get(Generation, generation_id)
    if row is None:
        return None
    return StoredGeneration(row.id, row.seq, _aware(row.created_at), row.row_hash, _to_record(row))


def _filters(
    user_name: str | None,
    text_query: str | None,
    doc_type: str | None,
    status: str | None,
    ids: Collection[int] | None = None,
) -> list[ColumnElement[bool]]:
    clauses: list[ColumnElement[bool]] = []
    if ids is not None:
        clauses.append(Generation.id.in_(list(ids)))
    if user_name is not None:
        clauses.append(Generation.user_name == user_name)
    if doc_type is not None:
        clauses.append(Generation.doc_type == doc_type)
    if status is not None:
        clauses.append(Generation.status == status)
    if text_query:
        needle = text_query.strip()
        clauses.append(
            or_(
                Generation.output_text.icontains(needle, autoescape=True),
                Generation.user_prompt.icontains(needle, autoescape=True),
                Generation.template_id.icontains(needle, autoescape=True),
                Generation.id.in_(  # a saved revision's text finds its generation
                    select(Revision.generation_id).where(
                        Revision.text.icontains(needle, autoescape=True)
                    )
                ),
            )
        )
    return clauses


def _summary(row: Generation) -> GenerationSummary:
    return GenerationSummary(
        id=row.id,
        created_at=_aware(row.created_at),
        user_name=row.user_name,
        doc_type=row.doc_type,
        status=row.status,
        endpoint=row.endpoint,
        model=row.model,
        preview=row.output_text[:PREVIEW_CHARS],
        completion_tokens=row.completion_tokens,
        total_s=row.total_s,
        error_count=error_count(row.findings),
        field_values=dict(row.field_values or {}),
        matter=_matter_number(row.params),
    )


def _matter_number(params: object) -> str:
    """The number of the matter a generation names in its params (audit.matters), else ""."""
    raw = params.get("matter") if isinstance(params, dict) else None
    number = raw.get("number") if isinstance(raw, dict) else None
    return number if isinstance(number, str) else ""


def generation_parties(
    *, session: Session, user_name: str | None = None
) -> list[tuple[int, str, dict[str, Any], str]]:
    """(id, document type, form values, matter number) of every generation (of `user_name`),
    for searches on what only the form's values hold (the client, the matter reference)."""
    query = select(Generation.id, Generation.doc_type, Generation.field_values, Generation.params)
    if user_name is not None:
        query = query.where(Generation.user_name == user_name)
    return [
        (int(gid), str(doc_type), dict(values or {}), _matter_number(params))
        for gid, doc_type, values, params in session.execute(query)
    ]


def search_generations(
    *,
    session: Session,
    user_name: str | None = None,
    text: str | None = None,
    doc_type: str | None = None,
    status: str | None = None,
    ids: Collection[int] | None = None,
    limit: int = 50,
    offset: int = 0,
) -> list[GenerationSummary]:
    """Newest first; `text` matches the output, a saved revision, the user prompt or template id;
    `ids` (when given) limits the search to those generations."""
    query = (
        select(Generation)
        .where(*_filters(user_name, text, doc_type, status, ids))
        .order_by(Generation.seq.desc())
        .limit(max(0, limit))
        .offset(max(0, offset))
    )
    return [_summary(row) for row in session.scalars(query)]


def count_generations(
    *,
    session: Session,
    user_name: str | None = None,
    text: str | None = None,
    doc_type: str | None = None,
    status: str | None = None,
    ids: Collection[int] | None = None,
) -> int:
    query = select(func.count(Generation.id)).where(
        *_filters(user_name, text, doc_type, status, ids)
    )
    return int(session.scalar(query) or 0)


def list_events(
    *, session: Session, kind: EventKind | None = None, limit: int = 100, offset: int = 0
) -> list[AuditEvent]:
    """Newest first."""
    query = select(Event).order_by(Event.seq.desc()).limit(limit).offset(offset)
    if kind is not None:
        query = query.where(Event.kind == kind)
    return [
        AuditEvent(
            r.id, r.seq, _aware(r.created_at), r.actor, EventKind(r.kind), r.payload, r.row_hash
        )
        for r in session.scalars(query)
    ]


def _chained_here(session: Session) -> tuple[Any, ...]:
    """The chained models whose tables the database has: one not yet upgraded (verified before
    `db upgrade`, say) lacks the tables later migrations add, and so holds none of their rows."""
    tables = set(inspect(session.connection()).get_table_names())
    return tuple(m for m in CHAINED if m.__tablename__ in tables)


def _links(session: Session, max_seq: int, models: tuple[Any, ...]) -> Iterator[chain.Link]:
    """Every chained row in seq order, fetched in seq windows so memory stays flat."""
    low = 0
    while low < max_seq:
        high = low + VERIFY_BATCH
        batch: list[tuple[Table, Any]] = []
        for model in models:
            table = cast(Table, model.__table__)
            query = select(table).where(table.c.seq > low, table.c.seq <= high)
            batch.extend((table, row._mapping) for row in session.execute(query))
        batch.sort(key=lambda item: item[1]["seq"])
        for table, row in batch:
            computed = chain.row_hash(table.name, _row_content(table, row))
            yield chain.Link(
                table.name, row["id"], row["seq"], row["prev_hash"], row["row_hash"], computed
            )
        low = high


def verify_chain(*, session: Session) -> ChainReport:
    """Walk the whole chain; report the first altered, inserted or deleted row by table and id,
    and every account or verdict changed outside the chain (audit.coverage)."""
    query = select(ChainHead.last_seq, ChainHead.last_hash)
    if session.get_bind().dialect.name != "sqlite":
        # FOR SHARE: appends wait until the walk ends, so no row lands beyond the head we read
        # (SQLite: one transaction reads one WAL snapshot already).
        query = query.with_for_update(read=True)
    head = session.execute(query).one()
    models = _chained_here(session)
    max_seq = max([head.last_seq, *(session.scalar(select(func.max(m.seq))) or 0 for m in models)])
    report = chain.walk(
        _links(session, max_seq, models), head_seq=head.last_seq, head_hash=head.last_hash
    )
    uncovered = tuple(coverage_faults(session=session))
    return replace(report, ok=report.ok and not uncovered, uncovered=uncovered)


def chain_head(*, session: Session) -> tuple[int, str]:
    """The chain head's (seq, hash) as the database holds it."""
    head = session.execute(select(ChainHead.last_seq, ChainHead.last_hash)).one()
    return int(head.last_seq), str(head.last_hash)


def hashes_at(seqs: Iterable[int], *, session: Session) -> dict[int, str]:
    """The stored row hash at each of `seqs` that a chained row holds (absent: no such row)."""
    wanted = sorted(set(seqs))
    found: dict[int, str] = {}
    for start in range(0, len(wanted), VERIFY_BATCH):
        window = wanted[start : start + VERIFY_BATCH]
        for model in CHAINED:
            query = select(model.seq, model.row_hash).where(model.seq.in_(window))
            found.update((int(seq), str(h)) for seq, h in session.execute(query))
    return found
