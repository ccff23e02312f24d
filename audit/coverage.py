"""Rows covered by the chain: accounts, review verdicts and preferences, firm clauses, checked against
chained events, each vouched for by a signature a database-only attacker cannot make.

A user account changes in place (role, disabled, password), so it cannot be a chained row
itself; a verdict is a row of its own table. Both are covered the same way: every change
appends a chained event (audit.store.append_event) whose payload carries
`"covers": [{"table": ..., "id": ..., "digest": ..., "mac": ...}]`, the digest being the row's
hash (audit.chain.row_hash over its COVERED_COLUMNS, as the database holds it after the change)
and `mac` an HMAC-SHA256, under the audit key (the anchor's key file, outside the database:
audit.anchor), of the table, id, digest and the seq of the event that carries it. The chain
alone cannot vouch for a row: anyone who can write the database can append a correctly chained
event (issue 37: `UPDATE users SET role='admin', password_hash=...` plus one `user.role_changed`
event passed). Only an entry whose MAC verifies counts, and the seq in it keeps a genuine
entry from being copied into a later event.

The key reaches the audit layer through the session: `sign_covers(factory, key_of)` gives the
sessions of a factory a function that returns it (app.database does so with the anchor's key,
read when it is first needed). `coverage_faults` compares each covered table with the newest
entry the chain holds for each row: a row changed outside LexSpec (`UPDATE users SET
role='admin'`, an edited verdict), added or deleted outside it, or vouched for by an entry
LexSpec did not sign, is reported by table and id, with the account's name and what the
unsigned event claimed. Migrations 0005 and 0011 chained unsigned baselines; 0012 chained one,
signed, for every row they vouched for.

Before LexSpec chains an event about an existing row it calls `check_unchanged`: a row that
differs from its newest entry, or whose newest entry is not signed (or that the chain has
never covered), is refused with CoveredRowChanged, so the new event never absorbs a change made
outside LexSpec; an account so refused cannot sign in (audit.users).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Table, select
from sqlalchemy.orm import Session, sessionmaker

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


MAC_CONTEXT = b"lexspec covered row v1\n"  # a cover MAC is never valid as another signature
COVER_KEY = "lexspec.cover_key"  # session.info: () -> the audit key (sign_covers)
KeyOf = Callable[[], bytes]


class NoCoverKey(BilingualError, RuntimeError):
    """A session without the audit key cannot sign nor check what the chain vouches for."""


def sign_covers(factory: sessionmaker[Session], key_of: KeyOf) -> sessionmaker[Session]:
    """Give the sessions of `factory` the audit key (`key_of()` is called when one is needed):
    they sign the `covers` of the events they chain and check the signatures they read."""
    info = {**factory.kw.get("info", {}), COVER_KEY: key_of}
    factory.configure(info=info)
    return factory


def _key(session: Session) -> bytes:
    """The session's audit key, read once per session."""
    if _READ_KEY in session.info:
        return bytes(session.info[_READ_KEY])
    key_of = session.info.get(COVER_KEY)
    if key_of is None:
        raise NoCoverKey(
            "此会话没有审计密钥，无法签署或核对账户等记录的摘要",
            "this session has no audit key: it can neither sign nor check covered rows",
        )
    key = session.info[_READ_KEY] = bytes(key_of())
    return key


_READ_KEY = "lexspec.cover_key.read"


def cover_mac(key: bytes, table: str, row_id: int, row_digest: str, seq: int) -> str:
    """The MAC of one covers entry, bound to the seq of the event that carries it."""
    message = chain.canonical_json({"table": table, "id": row_id, "digest": row_digest, "seq": seq})
    return hmac.new(key, MAC_CONTEXT + message, hashlib.sha256).hexdigest()


def signed(payload: Mapping[str, Any], seq: int, *, session: Session) -> dict[str, Any]:
    """`payload` with each `covers` entry signed for the event at `seq` (audit.store calls it
    when it appends an event that covers rows)."""
    entries = payload.get("covers")
    if not isinstance(entries, list) or not entries:
        return dict(payload)
    key = _key(session)
    signed_entries = [
        {**e, "mac": cover_mac(key, str(e["table"]), int(e["id"]), str(e["digest"]), seq)}
        for e in entries
    ]
    return {**payload, "covers": signed_entries}


def digest(table: Table, row: Mapping[Any, Any]) -> str:
    """The hash of a covered row's covered columns, as audit.chain hashes a chained row."""
    return chain.row_hash(table.name, {c: row[c] for c in COVERED_COLUMNS[table.name]})


def covers(table_name: str, row_id: int, *, session: Session) -> dict[str, Any]:
    """The `covers` entry for one row as the database holds it now (after a flush); signed
    when its event is appended."""
    table = COVERED[table_name]
    row = session.execute(select(table).where(table.c.id == row_id)).one()._mapping
    return {"table": table_name, "id": row_id, "digest": digest(table, row)}


@dataclass(frozen=True)
class Entry:
    """The newest entry the chain holds for a row, and the event that carries it."""

    digest: str
    seq: int
    kind: str
    actor: str
    signed: bool  # its MAC verifies under the audit key (for this table, id and seq)
    claims: tuple[tuple[str, str], ...] = ()  # what the event says besides (role, previous ...)

    def unsigned(self) -> Bilingual:
        said = "".join(f", {k}: {v}" for k, v in self.claims)
        return Bilingual(
            f"由 LexSpec 未签署的事件担保（第 {self.seq} 行 {self.kind}，操作人 {self.actor}{said}）："
            "在 LexSpec 之外写入（或审计密钥被替换）",
            f"vouched for by an event LexSpec did not sign (seq {self.seq} {self.kind} by "
            f"{self.actor}{said}): written outside LexSpec (or the audit key was replaced)",
        )


class CoveredRowChanged(BilingualError):
    """A covered row is not what the chain last recorded: no event about it may be chained."""

    def __init__(self, table: str, row_id: int, reason: Bilingual) -> None:
        super().__init__(
            f"{table} id={row_id} {reason.zh}；LexSpec 拒绝在此基础上继续记录（请运行 lexspec audit verify）",
            f"{table} id={row_id} {reason.en}; LexSpec refuses to chain a change on top of it "
            "(run lexspec audit verify)",
        )
        self.table, self.row_id, self.reason = table, row_id, reason


def _entries(payload: object) -> list[dict[str, Any]]:
    entries = payload.get("covers") if isinstance(payload, dict) else None
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def _entry(event: Event, found: dict[str, Any], session: Session) -> Entry:
    row_digest, mac = str(found.get("digest")), found.get("mac")
    key = _key(session)  # read only where a row must be checked
    expected = cover_mac(key, str(found.get("table")), int(found["id"]), row_digest, event.seq)
    claims = tuple((k, str(v)[:40]) for k, v in sorted(event.payload.items()) if k in CLAIMS)
    ok = isinstance(mac, str) and hmac.compare_digest(expected, mac)
    return Entry(row_digest, event.seq, str(event.kind), event.actor, ok, claims)


CLAIMS = ("name", "role", "previous")  # what an account event says, shown with an unsigned one


def newest_entry(table_name: str, row_id: int, *, session: Session) -> Entry | None:
    """The newest entry the chain holds for one covered row (None: never covered)."""
    query = select(Event).order_by(Event.seq.desc()).execution_options(yield_per=200)
    for event in session.scalars(query):
        for found in _entries(event.payload):
            if found.get("table") == table_name and found.get("id") == row_id:
                return _entry(event, found, session)
    return None


def check_unchanged(table_name: str, row_id: int, *, session: Session) -> None:
    """Raise CoveredRowChanged when the row as the database holds it now differs from the
    newest entry the chain holds for it, that entry is not signed, or the chain never covered
    it (call it before changing the row)."""
    table = COVERED[table_name]
    row = session.execute(select(table).where(table.c.id == row_id)).one()._mapping
    reason = _fault(newest_entry(table_name, row_id, session=session), digest(table, row))
    if reason is not None:
        raise CoveredRowChanged(table_name, row_id, reason)


def _fault(entry: Entry | None, row_digest: str) -> Bilingual | None:
    if entry is None:
        return _NOT_LOGGED
    if entry.digest != row_digest:
        return _CHANGED
    if not entry.signed:
        return entry.unsigned()
    return None


def _logged(session: Session) -> dict[tuple[str, int], Entry]:
    """The newest entry the chain holds for every covered row."""
    newest: dict[tuple[str, int], tuple[Event, dict[str, Any]]] = {}
    query = select(Event).order_by(Event.seq).execution_options(yield_per=500)
    for event in session.scalars(query):
        for found in _entries(event.payload):
            if found.get("table") in COVERED:
                newest[(str(found["table"]), int(found["id"]))] = (event, found)
    return {where: _entry(event, found, session) for where, (event, found) in newest.items()}


def coverage_faults(*, session: Session) -> list[ChainFault]:
    """Every covered row the chain does not vouch for, and every vouched-for row now gone
    (an account named: `users id=2 (alice)`)."""
    logged = _logged(session)
    faults: list[ChainFault] = []
    for name, table in COVERED.items():
        seen: set[int] = set()
        for row in session.execute(select(table).order_by(table.c.id)):
            values = row._mapping
            row_id = int(values["id"])
            seen.add(row_id)
            reason = _fault(logged.get((name, row_id)), digest(table, values))
            if reason is not None:
                faults.append(ChainFault(name, row_id, _named(name, values, reason)))
        gone = sorted(i for t, i in logged if t == name and i not in seen)
        faults.extend(ChainFault(name, i, _DELETED) for i in gone)
    return faults


def _named(table: str, row: Mapping[Any, Any], reason: Bilingual) -> Bilingual:
    """An account's fault says whose account it is and what it holds now."""
    if table != "users":
        return reason
    return Bilingual(
        f"{reason.zh}；该账户现为 {row['name']}，角色 {row['role']}",
        f"{reason.en}; the account is {row['name']}, role {row['role']} now",
    )


_NOT_LOGGED = Bilingual(
    "不在审计链中（在 LexSpec 之外添加）", "not in the audit chain (added outside LexSpec)"
)
_CHANGED = Bilingual(
    "在 LexSpec 之外被修改（与审计链最后记录的内容不符）",
    "changed outside LexSpec (differs from what the audit chain last recorded)",
)
_DELETED = Bilingual("在 LexSpec 之外被删除", "deleted outside LexSpec")
