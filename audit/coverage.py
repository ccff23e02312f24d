"""Rows covered by the chain: accounts, review verdicts and preferences, firm clauses, checked against
chained events.

A user account changes in place (role, disabled, password), so it cannot be a chained row
itself; a verdict is a row of its own table. Both are covered the same way: every change
appends a chained event (audit.store.append_event) whose payload carries
`"covers": [{"table": ..., "id": ..., "digest": ...}]`, the digest being the row's hash
(audit.chain.row_hash over every column, as the database holds it after the change).
`coverage_faults` compares each covered table with the newest digest the chain holds for
each row: a row changed outside LexSpec (`UPDATE users SET role='admin'`, an edited verdict),
added outside it, or deleted, is reported by table and id. Migration 0005 chained one
baseline event covering the rows that existed before; 0011 chained another for the accounts
when their credential version became covered.

Before LexSpec chains an event about an existing row it calls `check_unchanged`: a row that
differs from its newest chained digest (or that the chain has never covered) is refused with
CoveredRowChanged, so the new event's digest never absorbs a change made outside LexSpec and
verify keeps reporting it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from sqlalchemy import Table, select
from sqlalchemy.orm import Session

from app.studies.tables import StudyPreferenceRow, StudyVerdictRow
from audit import chain
from audit.clause_models import FirmClauseRow
from audit.domain import Bilingual, BilingualError, ChainFault
from audit.models import Event, User

COVERED: dict[str, Table] = {
    cast(Table, model.__table__).name: cast(Table, model.__table__)
    for model in (User, StudyVerdictRow, StudyPreferenceRow, FirmClauseRow)
}
# The columns each digest covers, named once (a migration that adds a column to one of these
# tables does not silently change every digest; to cover it, add it here and chain a new
# baseline, as migrations 0005 and 0011 do).
COVERED_COLUMNS: dict[str, tuple[str, ...]] = {
    "users": (
        "id", "name", "name_key", "role", "password_hash", "must_change_password",
        "created_at", "password_changed_at", "disabled",
        # since migration 0011 (its baseline): a lowered version would revive ended sessions
        "credential_version",
    ),
    "study_verdicts": (
        "id", "assignment_id", "revision", "supersedes_id", "citation", "structure",
        "terminology", "hard_error_count", "hard_errors", "comment", "created_at",
    ),
    # created empty by migration 0008, so no baseline: every row is chained as it is written
    "study_preferences": (
        "id", "study_reviewer_id", "position", "revision", "supersedes_id", "choice",
        "created_at",
    ),
    # the firm's clause library, created empty by migration 0009 (app/precedents/firm_clauses.py)
    "firm_clauses": (
        "id", "doc_type", "clause_id", "part", "text", "when", "cites", "author", "status",
        "version", "proposed_by", "proposed_at", "source_revision_id", "decided_by",
        "decided_at", "note",
    ),
}  # fmt: skip


def digest(table: Table, row: Mapping[Any, Any]) -> str:
    """The hash of a covered row's covered columns, as audit.chain hashes a chained row."""
    return chain.row_hash(table.name, {c: row[c] for c in COVERED_COLUMNS[table.name]})


def covers(table_name: str, row_id: int, *, session: Session) -> dict[str, Any]:
    """The `covers` entry for one row as the database holds it now (after a flush)."""
    table = COVERED[table_name]
    row = session.execute(select(table).where(table.c.id == row_id)).one()._mapping
    return {"table": table_name, "id": row_id, "digest": digest(table, row)}


class CoveredRowChanged(BilingualError):
    """A covered row is not what the chain last recorded: no event about it may be chained."""

    def __init__(self, table: str, row_id: int, reason: Bilingual) -> None:
        super().__init__(
            f"{table} id={row_id} {reason.zh}；LexSpec 拒绝在此基础上继续记录（请运行 lexspec audit verify）",
            f"{table} id={row_id} {reason.en}; LexSpec refuses to chain a change on top of it "
            "(run lexspec audit verify)",
        )
        self.table, self.row_id, self.reason = table, row_id, reason


def last_digest(table_name: str, row_id: int, *, session: Session) -> str | None:
    """The newest digest the chain holds for one covered row (None: never covered)."""
    query = select(Event.payload).order_by(Event.seq.desc()).execution_options(yield_per=200)
    for payload in session.scalars(query):
        entries = payload.get("covers") if isinstance(payload, dict) else None
        for entry in entries if isinstance(entries, list) else ():
            if (
                isinstance(entry, dict)
                and entry.get("table") == table_name
                and entry.get("id") == row_id
            ):
                return str(entry.get("digest"))
    return None


def check_unchanged(table_name: str, row_id: int, *, session: Session) -> None:
    """Raise CoveredRowChanged when the row as the database holds it now differs from the
    newest digest the chain holds for it, or the chain never covered it (call it before
    changing the row)."""
    table = COVERED[table_name]
    row = session.execute(select(table).where(table.c.id == row_id)).one()._mapping
    logged = last_digest(table_name, row_id, session=session)
    if logged is None:
        raise CoveredRowChanged(table_name, row_id, _NOT_LOGGED)
    if logged != digest(table, row):
        raise CoveredRowChanged(table_name, row_id, _CHANGED)


def _logged(session: Session) -> dict[tuple[str, int], str]:
    """The newest digest the chain holds for every covered row."""
    newest: dict[tuple[str, int], str] = {}
    for payload in session.scalars(select(Event.payload).order_by(Event.seq)):
        entries = payload.get("covers") if isinstance(payload, dict) else None
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and entry.get("table") in COVERED:
                newest[(str(entry["table"]), int(entry["id"]))] = str(entry.get("digest"))
    return newest


def coverage_faults(*, session: Session) -> list[ChainFault]:
    """Every covered row the chain does not vouch for, and every vouched-for row now gone."""
    logged = _logged(session)
    faults: list[ChainFault] = []
    for name, table in COVERED.items():
        seen: set[int] = set()
        for row in session.execute(select(table).order_by(table.c.id)):
            values = row._mapping
            key = (name, int(values["id"]))
            seen.add(key[1])
            if key not in logged:
                faults.append(ChainFault(name, key[1], _NOT_LOGGED))
            elif logged[key] != digest(table, values):
                faults.append(ChainFault(name, key[1], _CHANGED))
        gone = sorted(i for t, i in logged if t == name and i not in seen)
        faults.extend(ChainFault(name, i, _DELETED) for i in gone)
    return faults


_NOT_LOGGED = Bilingual(
    "不在审计链中（在 LexSpec 之外添加）", "not in the audit chain (added outside LexSpec)"
)
_CHANGED = Bilingual(
    "在 LexSpec 之外被修改（与审计链最后记录的内容不符）",
    "changed outside LexSpec (differs from what the audit chain last recorded)",
)
_DELETED = Bilingual("在 LexSpec 之外被删除", "deleted outside LexSpec")
