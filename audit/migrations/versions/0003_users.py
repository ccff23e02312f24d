"""Users: a case-insensitive unique name key, a disabled flag (must_change_password exists).

Existing rows get their key from the same function new accounts use
(`audit.users.name_key`); when two old names differ only in case, the older keeps
the plain key and the others get `key#id`, so nobody is locked out and no new name
can take any of those spellings.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _key(name: str) -> str:
    # kept equal to audit.users.name_key (a migration must not change when the app does)
    return unicodedata.normalize("NFKC", name).casefold()


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("name_key", sa.String(length=80), nullable=True))
        batch.add_column(
            sa.Column("disabled", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    users = sa.table("users", sa.column("id", sa.Integer), sa.column("name", sa.String))
    keys = sa.table("users", sa.column("id", sa.Integer), sa.column("name_key", sa.String))
    connection = op.get_bind()
    seen: set[str] = set()
    for row in connection.execute(sa.select(users.c.id, users.c.name).order_by(users.c.id)):
        key = _key(row.name)
        if key in seen:
            key = f"{key}#{row.id}"
        seen.add(key)
        connection.execute(sa.update(keys).where(keys.c.id == row.id).values(name_key=key))
    with op.batch_alter_table("users") as batch:
        batch.alter_column("name_key", existing_type=sa.String(length=80), nullable=False)
        batch.create_unique_constraint(op.f("uq_users_name_key"), ["name_key"])


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_constraint(op.f("uq_users_name_key"), type_="unique")
        batch.drop_column("disabled")
        batch.drop_column("name_key")
