"""Matters: a client's transfer and its facts, each version a chained row of the audit log.

A generation drafted for a matter names it in its own chained row (params.matter), so no
column is added to `generations` (one would change the hash of every row already chained).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "matters",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("number", sa.String(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("client", sa.String(length=200), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("facts", sa.JSON(), nullable=False),
        sa.Column("user_name", sa.String(length=64), nullable=False),
        sa.Column("prev_hash", sa.String(length=64), nullable=False),
        sa.Column("row_hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matters")),
        sa.UniqueConstraint("seq", name=op.f("uq_matters_seq")),
        sa.UniqueConstraint("number", "version", name="uq_matters_number_version"),
    )
    op.create_index(op.f("ix_matters_created_at"), "matters", ["created_at"])
    op.create_index(op.f("ix_matters_number"), "matters", ["number"])
    op.create_index(op.f("ix_matters_client"), "matters", ["client"])
    op.create_index(op.f("ix_matters_user_name"), "matters", ["user_name"])


def downgrade() -> None:
    op.drop_index(op.f("ix_matters_user_name"), table_name="matters")
    op.drop_index(op.f("ix_matters_client"), table_name="matters")
    op.drop_index(op.f("ix_matters_number"), table_name="matters")
    op.drop_index(op.f("ix_matters_created_at"), table_name="matters")
    op.drop_table("matters")
