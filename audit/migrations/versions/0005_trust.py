"""Trust: a shared sign-in throttle table; accounts and verdicts covered by the chain.

`sign_in_attempts` lets every app process count failed sign-ins in one place, atomically
(audit.throttle). Accounts and review verdicts are from now on covered by chained events
(audit.coverage); this migration appends one `audit.coverage_baseline` event to the chain
that covers the rows existing before it, so `lexspec audit verify` checks them too. It
hashes with audit.chain, the chain's own format (which no migration may change).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

from audit import chain

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "sign_in_attempts",
        sa.Column("name_key", sa.String(length=80), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("name_key", name=op.f("pk_sign_in_attempts")),
    )
    _chain_baseline(op.get_bind())


# kept equal to audit.coverage.COVERED_COLUMNS as of this revision (a migration is frozen)
COVERED_COLUMNS = {
    "users": (
        "id", "name", "name_key", "role", "password_hash", "must_change_password",
        "created_at", "password_changed_at", "disabled",
    ),
    "study_verdicts": (
        "id", "assignment_id", "revision", "supersedes_id", "citation", "structure",
        "terminology", "hard_error_count", "hard_errors", "comment", "created_at",
    ),
}  # fmt: skip


def _chain_baseline(connection: sa.Connection) -> None:
    covers: list[dict[str, Any]] = []
    for name, columns in COVERED_COLUMNS.items():
        table = sa.Table(name, sa.MetaData(), autoload_with=connection)
        for row in connection.execute(sa.select(table).order_by(table.c.id)):
            content = {c: row._mapping[c] for c in columns}
            covers.append(
                {"table": name, "id": content["id"], "digest": chain.row_hash(name, content)}
            )
    if not covers:
        return
    events = sa.Table("audit_events", sa.MetaData(), autoload_with=connection)
    head_table = sa.Table("audit_chain_head", sa.MetaData(), autoload_with=connection)
    head = connection.execute(sa.select(head_table).where(head_table.c.id == 1)).one()
    content = {
        "seq": head.last_seq + 1,
        "created_at": datetime.now(UTC).replace(tzinfo=None),
        "actor": "migration 0005",
        "kind": "audit.coverage_baseline",
        "payload": chain.normalise({"covers": covers}),
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


def downgrade() -> None:
    # the baseline event stays: it is part of the chain, and removing it would break it
    op.drop_table("sign_in_attempts")
