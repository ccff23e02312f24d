"""Revisions: a lawyer's saved edits of a generation, chained into the audit log.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "revisions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("generation_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("user_name", sa.String(length=64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("findings", sa.JSON(), nullable=False),
        sa.Column("prev_hash", sa.String(length=64), nullable=False),
        sa.Column("row_hash", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["generation_id"],
            ["generations.id"],
            name=op.f("fk_revisions_generation_id_generations"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_revisions")),
        sa.UniqueConstraint("seq", name=op.f("uq_revisions_seq")),
        sa.UniqueConstraint("generation_id", "number", name="uq_revisions_generation_number"),
    )
    op.create_index(op.f("ix_revisions_created_at"), "revisions", ["created_at"])
    op.create_index(op.f("ix_revisions_generation_id"), "revisions", ["generation_id"])
    op.create_index(op.f("ix_revisions_user_name"), "revisions", ["user_name"])


def downgrade() -> None:
    op.drop_index(op.f("ix_revisions_user_name"), table_name="revisions")
    op.drop_index(op.f("ix_revisions_generation_id"), table_name="revisions")
    op.drop_index(op.f("ix_revisions_created_at"), table_name="revisions")
    op.drop_table("revisions")
