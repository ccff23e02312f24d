"""Working states: each user's Draft page form and editor text, kept across a reload.

One row per user, replaced at each change; scratch space, not chained (the generation and its
saved revisions are the record).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "working_states",
        sa.Column("user_name", sa.String(length=64), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("user_name", name=op.f("pk_working_states")),
    )


def downgrade() -> None:
    op.drop_table("working_states")
