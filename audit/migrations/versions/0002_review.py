"""Blind review studies: studies, arms, cases, items, reviewers, assignments, verdicts.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "studies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("doc_type", sa.String(length=64), nullable=False),
        sa.Column("created_by", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("unblinded_at", sa.DateTime(), nullable=True),
        sa.Column("unblinded_by", sa.String(length=64), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_studies")),
    )
    op.create_table(
        "study_arms",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("endpoint", sa.String(length=128), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["study_id"], ["studies.id"], name=op.f("fk_study_arms_study_id_studies")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_study_arms")),
        sa.UniqueConstraint("study_id", "position", name="uq_study_arms_position"),
    )
    op.create_index(op.f("ix_study_arms_study_id"), "study_arms", ["study_id"])

    op.create_table(
        "study_cases",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("field_values", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["study_id"], ["studies.id"], name=op.f("fk_study_cases_study_id_studies")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_study_cases")),
        sa.UniqueConstraint("study_id", "position", name="uq_study_cases_position"),
    )
    op.create_index(op.f("ix_study_cases_study_id"), "study_cases", ["study_id"])

    op.create_table(
        "study_reviewers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["study_id"], ["studies.id"], name=op.f("fk_study_reviewers_study_id_studies")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_study_reviewers_user_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_study_reviewers")),
        sa.UniqueConstraint("study_id", "user_id", name="uq_study_reviewers_user"),
    )
    op.create_index(op.f("ix_study_reviewers_study_id"), "study_reviewers", ["study_id"])

    op.create_table(
        "study_items",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("case_id", sa.Integer(), nullable=False),
        sa.Column("arm_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("output_text", sa.Text(), nullable=False),
        sa.Column("generation_id", sa.Integer(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("generated_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["arm_id"], ["study_arms.id"], name=op.f("fk_study_items_arm_id_study_arms")
        ),
        sa.ForeignKeyConstraint(
            ["case_id"], ["study_cases.id"], name=op.f("fk_study_items_case_id_study_cases")
        ),
        sa.ForeignKeyConstraint(
            ["generation_id"],
            ["generations.id"],
            name=op.f("fk_study_items_generation_id_generations"),
        ),
        sa.ForeignKeyConstraint(
            ["study_id"], ["studies.id"], name=op.f("fk_study_items_study_id_studies")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_study_items")),
        sa.UniqueConstraint("case_id", "arm_id", name="uq_study_items_case_arm"),
    )
    op.create_index(op.f("ix_study_items_study_id"), "study_items", ["study_id"])

    op.create_table(
        "study_assignments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_reviewer_id", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("slot", sa.String(length=1), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["item_id"], ["study_items.id"], name=op.f("fk_study_assignments_item_id_study_items")
        ),
        sa.ForeignKeyConstraint(
            ["study_reviewer_id"],
            ["study_reviewers.id"],
            name=op.f("fk_study_assignments_study_reviewer_id_study_reviewers"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_study_assignments")),
        sa.UniqueConstraint("study_reviewer_id", "item_id", name="uq_study_assignments_item"),
        sa.UniqueConstraint("token", name=op.f("uq_study_assignments_token")),
    )
    op.create_index(
        op.f("ix_study_assignments_study_reviewer_id"), "study_assignments", ["study_reviewer_id"]
    )

    op.create_table(
        "study_verdicts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("supersedes_id", sa.Integer(), nullable=True),
        sa.Column("citation", sa.Integer(), nullable=False),
        sa.Column("structure", sa.Integer(), nullable=False),
        sa.Column("terminology", sa.Integer(), nullable=False),
        sa.Column("hard_error_count", sa.Integer(), nullable=False),
        sa.Column("hard_errors", sa.JSON(), nullable=False),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["study_assignments.id"],
            name=op.f("fk_study_verdicts_assignment_id_study_assignments"),
        ),
        sa.ForeignKeyConstraint(
            ["supersedes_id"],
            ["study_verdicts.id"],
            name=op.f("fk_study_verdicts_supersedes_id_study_verdicts"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_study_verdicts")),
        sa.UniqueConstraint("assignment_id", "revision", name="uq_study_verdicts_revision"),
        sa.UniqueConstraint("supersedes_id", name=op.f("uq_study_verdicts_supersedes_id")),
    )
    op.create_index(op.f("ix_study_verdicts_assignment_id"), "study_verdicts", ["assignment_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_study_verdicts_assignment_id"), table_name="study_verdicts")
    op.drop_table("study_verdicts")
    op.drop_index(op.f("ix_study_assignments_study_reviewer_id"), table_name="study_assignments")
    op.drop_table("study_assignments")
    op.drop_index(op.f("ix_study_items_study_id"), table_name="study_items")
    op.drop_table("study_items")
    op.drop_index(op.f("ix_study_reviewers_study_id"), table_name="study_reviewers")
    op.drop_table("study_reviewers")
    op.drop_index(op.f("ix_study_cases_study_id"), table_name="study_cases")
    op.drop_table("study_cases")
    op.drop_index(op.f("ix_study_arms_study_id"), table_name="study_arms")
    op.drop_table("study_arms")
    op.drop_table("studies")
