"""Study designs: any drafting configuration as an arm (stored with every item), pairwise
preferences, gold items with seeded errors.

Revision ID: 0008
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("studies") as batch:
        batch.add_column(
            sa.Column("design", sa.String(length=16), nullable=False, server_default="scores")
        )
        batch.add_column(
            sa.Column("gold_per_reviewer", sa.Integer(), nullable=False, server_default="0")
        )
    with op.batch_alter_table("study_items") as batch:
        batch.add_column(sa.Column("config", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("variant", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("gold_kind", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("source_item_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            op.f("fk_study_items_source_item_id_study_items"),
            "study_items",
            ["source_item_id"],
            ["id"],
        )
        batch.drop_constraint("uq_study_items_case_arm", type_="unique")
        batch.create_unique_constraint(
            "uq_study_items_case_arm_variant", ["case_id", "arm_id", "variant"]
        )
    op.create_table(
        "study_preferences",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_reviewer_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("supersedes_id", sa.Integer(), nullable=True),
        sa.Column("choice", sa.String(length=3), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["study_reviewer_id"],
            ["study_reviewers.id"],
            name=op.f("fk_study_preferences_study_reviewer_id_study_reviewers"),
        ),
        sa.ForeignKeyConstraint(
            ["supersedes_id"],
            ["study_preferences.id"],
            name=op.f("fk_study_preferences_supersedes_id_study_preferences"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_study_preferences")),
        sa.UniqueConstraint(
            "study_reviewer_id", "position", "revision", name="uq_study_preferences_revision"
        ),
        sa.UniqueConstraint("supersedes_id", name=op.f("uq_study_preferences_supersedes_id")),
    )
    op.create_index(
        op.f("ix_study_preferences_study_reviewer_id"), "study_preferences", ["study_reviewer_id"]
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_study_preferences_study_reviewer_id"), table_name="study_preferences")
    op.drop_table("study_preferences")
    with op.batch_alter_table("study_items") as batch:
        batch.drop_constraint("uq_study_items_case_arm_variant", type_="unique")
        batch.create_unique_constraint("uq_study_items_case_arm", ["case_id", "arm_id"])
        batch.drop_constraint(op.f("fk_study_items_source_item_id_study_items"), type_="foreignkey")
        for column in ("source_item_id", "gold_kind", "variant", "config"):
            batch.drop_column(column)
    with op.batch_alter_table("studies") as batch:
        batch.drop_column("gold_per_reviewer")
        batch.drop_column("design")
