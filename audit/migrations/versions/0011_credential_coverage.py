"""Accounts: the credential version covered by the chain, and signing out chained.

`users.credential_version` ends sessions (audit.users): lowering it in the database would
revive a signed-out session, so the account digests (audit.coverage) now cover it, and
signing out appends a `user.signed_out` event. This migration widens the CHECK on
audit_events.kind for that kind and chains one `audit.coverage_baseline` event that covers
every account with the new column list, so `lexspec audit verify` passes on a database it
passed before.

The baseline never absorbs a change made outside LexSpec: an account whose row differs from
the newest digest the chain holds for it (under the old column list), or that the chain never
covered, is left out, so verify keeps reporting it. Downgrade does the reverse (a baseline with
the old column list, the narrower CHECK); it stops before changing anything while a
`user.signed_out` event exists, as a chained event is never removed.

The kinds and column lists are frozen here (a migration never follows later code).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

from audit import chain
from audit.vocabulary import in_list

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SIGNED_OUT = "user.signed_out"
PREVIOUS_KINDS = [
    "audit.coverage_baseline", "endpoint.switch", "output.approved", "review.verdict",
    "review.preference", "study.unblinded_early", "user.created", "user.password_rehashed",
    "user.password_changed", "user.password_reset", "user.disabled", "user.enabled",
    "user.role_changed", "clause.proposed", "clause.approved", "clause.rejected",
]  # fmt: skip
# (table, column) -> the allowed values as of this revision
ALLOWED: dict[tuple[str, str], list[str]] = {
    ("audit_events", "kind"): [
        "audit.coverage_baseline", "endpoint.switch", "output.approved", "review.verdict",
        "review.preference", "study.unblinded_early", "user.created", "user.password_rehashed",
        "user.password_changed", "user.password_reset", "user.disabled", "user.enabled",
        "user.role_changed", SIGNED_OUT, "clause.proposed", "clause.approved",
        "clause.rejected",
    ],
}  # fmt: skip
# the account columns each digest covers before and as of this revision
PREVIOUS_USER_COLUMNS = (
    "id", "name", "name_key", "role", "password_hash", "must_change_password", "created_at",
    "password_changed_at", "disabled",
)  # fmt: skip
COVERED_COLUMNS = {"users": (*PREVIOUS_USER_COLUMNS, "credential_version")}


class SignedOutEvents(RuntimeError):
    """Chained `user.signed_out` events exist: the narrower CHECK would refuse them."""


def upgrade() -> None:
    _set_kinds(ALLOWED["audit_events", "kind"])
    _chain_baseline(op.get_bind(), PREVIOUS_USER_COLUMNS, COVERED_COLUMNS["users"])


def downgrade() -> None:
    connection = op.get_bind()
    events = sa.table("audit_events", sa.column("kind"))
    count = connection.scalar(
        sa.select(sa.func.count()).select_from(events).where(events.c.kind == SIGNED_OUT)
    )
    if count:
        raise SignedOutEvents(
            f"{count} chained {SIGNED_OUT} events exist; revision 0010 does not allow that kind "
            "and a chained event is never removed: nothing was changed"
        )
    _chain_baseline(connection, COVERED_COLUMNS["users"], PREVIOUS_USER_COLUMNS)
    _set_kinds(PREVIOUS_KINDS)


def _set_kinds(kinds: list[str]) -> None:
    """Replace the CHECK on audit_events.kind (batch mode: SQLite rebuilds the table)."""
    with op.batch_alter_table("audit_events") as batch:
        batch.drop_constraint(op.f("ck_audit_events_kind"), type_="check")
        batch.create_check_constraint(op.f("ck_audit_events_kind"), in_list("kind", kinds))


def _newest_digests(connection: sa.Connection) -> dict[int, str]:
    """The newest digest the chain holds for every account (as audit.coverage reads it)."""
    events = sa.table("audit_events", sa.column("seq"), sa.column("payload", sa.JSON()))
    newest: dict[int, str] = {}
    for (payload,) in connection.execute(sa.select(events.c.payload).order_by(events.c.seq)):
        entries = payload.get("covers") if isinstance(payload, dict) else None
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and entry.get("table") == "users":
                newest[int(entry["id"])] = str(entry.get("digest"))
    return newest


def _chain_baseline(
    connection: sa.Connection, vouched: Sequence[str], columns: Sequence[str]
) -> None:
    """Chain one baseline event covering, with `columns`, every account whose row the chain
    vouches for under `vouched` (an account changed outside LexSpec stays reported)."""
    newest = _newest_digests(connection)
    users = sa.Table("users", sa.MetaData(), autoload_with=connection)
    covers: list[dict[str, Any]] = []
    for row in connection.execute(sa.select(users).order_by(users.c.id)):
        values = row._mapping
        if newest.get(values["id"]) != chain.row_hash("users", {c: values[c] for c in vouched}):
            continue
        digest = chain.row_hash("users", {c: values[c] for c in columns})
        covers.append({"table": "users", "id": values["id"], "digest": digest})
    if covers:
        _append_event(connection, {"covers": covers})


def _append_event(connection: sa.Connection, payload: dict[str, Any]) -> None:
    """Append one `audit.coverage_baseline` event, hashed as audit.store appends one."""
    events = sa.Table("audit_events", sa.MetaData(), autoload_with=connection)
    head_table = sa.Table("audit_chain_head", sa.MetaData(), autoload_with=connection)
    head = connection.execute(sa.select(head_table).where(head_table.c.id == 1)).one()
    content = {
        "seq": head.last_seq + 1,
        "created_at": datetime.now(UTC).replace(tzinfo=None),
        "actor": "migration 0011",
        "kind": "audit.coverage_baseline",
        "payload": chain.normalise(payload),
        "prev_hash": head.last_hash,
    }
    inserted = connection.execute(events.insert().values(**content, row_hash="pending"))
    key = inserted.inserted_primary_key
    assert key is not None
    content["id"] = key[0]
    row_hash = chain.row_hash("audit_events", content)
    connection.execute(
        events.update().where(events.c.id == content["id"]).values(row_hash=row_hash)
    )
    connection.execute(
        head_table.update()
        .where(head_table.c.id == 1)
        .values(last_seq=content["seq"], last_hash=row_hash)
    )
