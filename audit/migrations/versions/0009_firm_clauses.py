"""The firm's own clause library: proposed, approved (versioned) and rejected clauses.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # created empty, so no baseline event: every row is chained as it is written
    op.create_table(
        "firm_clauses",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("doc_type", sa.String(length=64), nullable=False),
        sa.Column("clause_id", sa.String(length=128), nullable=False),
        sa.Column("part", sa.String(length=128), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("when", sa.JSON(), nullable=True),
        sa.Column("cites", sa.JSON(), nullable=False),
        sa.Column("author", sa.String(length=128), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("proposed_by", sa.String(length=64), nullable=False),
        sa.Column("proposed_at", sa.DateTime(), nullable=False),
        sa.Column("source_revision_id", sa.Integer(), nullable=True),
        sa.Column("decided_by", sa.String(length=64), nullable=True),
        sa.Column("decided_at", sa.DateTime(), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_firm_clauses")),
        sa.UniqueConstraint("doc_type", "clause_id", "version", name="uq_firm_clauses_version"),
    )
    op.create_index(op.f("ix_firm_clauses_doc_type"), "firm_clauses", ["doc_type"])


def downgrade() -> None:
    op.drop_index(op.f("ix_firm_clauses_doc_type"), table_name="firm_clauses")
    op.drop_table("firm_clauses")
