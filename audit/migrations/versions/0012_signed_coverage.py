"""Covered rows vouched for by a signature outside the database's reach.

Until now an account (or a verdict, a preference, a firm clause) counted as unchanged when its
row matched the newest digest the chain held for it; anyone who could write the database could
append a correctly chained event with a digest of their own (issue 37: `UPDATE users SET
role='admin', password_hash=...` plus one `user.role_changed` event signed in as admin). From
this revision on every `covers` entry carries `mac`, an HMAC-SHA256 under the audit key (the
anchor's key file, outside the database) bound to the seq of its event, and only a signed
entry vouches for a row (audit.coverage).

This migration chains one `audit.coverage_baseline` event whose entries are signed, covering
every covered row whose current digest equals the newest digest the chain holds for it and
whose newest entry is not signed yet: a row changed outside LexSpec before the upgrade is left
out and stays reported (and a database whose entries are all signed gets no event). It needs the key
(`audit.db.migrate(..., cover_key=)`, which app.database and `lexspec db upgrade` pass); a
database with rows to sign migrated without it stops, changing nothing. Downgrade changes
nothing: the signed entries stay in the chain (a chained event is never removed) and the
code of revision 0011 reads their digests and ignores `mac`.

The column lists and the MAC's form are frozen here (a migration never follows later code).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import context, op

from audit import chain
from audit.domain import BilingualError

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MAC_CONTEXT = b"lexspec covered row v1\n"
COVERED_COLUMNS: dict[str, tuple[str, ...]] = {
    "users": (
        "id", "name", "name_key", "role", "password_hash", "must_change_password",
        "created_at", "password_changed_at", "disabled", "credential_version",
    ),
    "study_verdicts": (
        "id", "assignment_id", "revision", "supersedes_id", "citation", "structure",
        "terminology", "hard_error_count", "hard_errors", "comment", "created_at",
    ),
    "study_preferences": (
        "id", "study_reviewer_id", "position", "revision", "supersedes_id", "choice",
        "created_at",
    ),
    "firm_clauses": (
        "id", "doc_type", "clause_id", "part", "text", "when", "cites", "author", "status",
        "version", "proposed_by", "proposed_at", "source_revision_id", "decided_by",
        "decided_at", "note",
    ),
}  # fmt: skip


class NeedsAuditKey(BilingualError, RuntimeError):
    """Covered rows exist and no audit key was given: nothing was changed."""


def upgrade() -> None:
    connection = op.get_bind()
    vouched = _vouched(connection)
    if not vouched:
        return
    key_of: Callable[[], bytes] | None = context.config.attributes.get("cover_key")
    if key_of is None:
        raise NeedsAuditKey(
            f"迁移 0012 需要审计密钥来签署 {len(vouched)} 条记录的摘要：请用 lexspec db upgrade 运行",
            f"migration 0012 signs the digests of {len(vouched)} covered row(s) with the audit "
            "key: run it through LexSpec (lexspec db upgrade), which knows the key",
        )
    key = key_of()
    unsigned = [entry for entry, (seq, mac) in vouched if mac != _mac(key, entry, seq)]
    if unsigned:
        _append_baseline(connection, unsigned, key)


def downgrade() -> None:
    pass  # the signed entries stay in the chain; revision 0011 ignores their `mac`


Newest = tuple[str, int, Any]  # the newest entry's digest, its event's seq, and its mac


def _newest_entries(connection: sa.Connection) -> dict[tuple[str, int], Newest]:
    """The newest entry the chain holds for every covered row (as audit.coverage reads it)."""
    events = sa.table("audit_events", sa.column("seq"), sa.column("payload", sa.JSON()))
    query = sa.select(events.c.seq, events.c.payload).order_by(events.c.seq)
    newest: dict[tuple[str, int], Newest] = {}
    for seq, payload in connection.execute(query):
        entries = payload.get("covers") if isinstance(payload, dict) else None
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and entry.get("table") in COVERED_COLUMNS:
                where = (str(entry["table"]), int(entry["id"]))
                newest[where] = (str(entry.get("digest")), int(seq), entry.get("mac"))
    return newest


def _vouched(connection: sa.Connection) -> list[tuple[dict[str, Any], tuple[int, Any]]]:
    """A covers entry (unsigned) for every row the chain vouches for as it stands, with the seq
    and mac of the newest entry that vouches for it now."""
    newest = _newest_entries(connection)
    vouched: list[tuple[dict[str, Any], tuple[int, Any]]] = []
    for name, columns in COVERED_COLUMNS.items():
        table = sa.Table(name, sa.MetaData(), autoload_with=connection)
        for row in connection.execute(sa.select(table).order_by(table.c.id)):
            values = row._mapping
            digest = chain.row_hash(name, {c: values[c] for c in columns})
            found = newest.get((name, int(values["id"])))
            if found is not None and found[0] == digest:
                entry = {"table": name, "id": int(values["id"]), "digest": digest}
                vouched.append((entry, (found[1], found[2])))
    return vouched


def _mac(key: bytes, entry: dict[str, Any], seq: int) -> str:
    message = chain.canonical_json({**{k: entry[k] for k in ("table", "id", "digest")}, "seq": seq})
    return hmac.new(key, MAC_CONTEXT + message, hashlib.sha256).hexdigest()


def _append_baseline(connection: sa.Connection, covers: list[dict[str, Any]], key: bytes) -> None:
    """Append one `audit.coverage_baseline` event, its entries signed for its seq, hashed as
    audit.store appends one."""
    events = sa.Table("audit_events", sa.MetaData(), autoload_with=connection)
    head_table = sa.Table("audit_chain_head", sa.MetaData(), autoload_with=connection)
    head = connection.execute(sa.select(head_table).where(head_table.c.id == 1)).one()
    seq = head.last_seq + 1
    signed = [{**entry, "mac": _mac(key, entry, seq)} for entry in covers]
    content = {
        "seq": seq,
        "created_at": datetime.now(UTC).replace(tzinfo=None),
        "actor": "migration 0012",
        "kind": "audit.coverage_baseline",
        "payload": chain.normalise({"covers": signed}),
        "prev_hash": head.last_hash,
    }
    inserted = connection.execute(events.insert().values(**content, row_hash="pending"))
    primary = inserted.inserted_primary_key
    assert primary is not None
    content["id"] = primary[0]
    row_hash = chain.row_hash("audit_events", content)
    connection.execute(
        events.update().where(events.c.id == content["id"]).values(row_hash=row_hash)
    )
    connection.execute(
        head_table.update().where(head_table.c.id == 1).values(last_seq=seq, last_hash=row_hash)
    )
