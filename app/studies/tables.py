"""SQLAlchemy tables of blind review studies (migration 0002).

A study has two arms and a set of cases (field-value sets); every case × arm
is one item (a generated draft). Each reviewer has a stored seed and one
assignment per item: its place in that reviewer's shuffled queue, the slot (A
or B) it is shown in, and an opaque random token, the only handle the reviewer
ever sees. Verdicts are append-only: a correction is a new row with the next
revision that names the row it supersedes; (assignment, revision) is unique,
so two racing corrections cannot both claim the same revision.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from audit.models import Base
from audit.vocabulary import Choice, GoldKind, ItemStatus, Slot, StudyDesign, one_of


class StudyRow(Base):
    __tablename__ = "studies"
    __table_args__ = (one_of("design", StudyDesign),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    doc_type: Mapped[str] = mapped_column(String(64))
    created_by: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    unblinded_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    unblinded_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    design: Mapped[str] = mapped_column(
        String(16), default=StudyDesign.SCORES, server_default="scores"
    )
    gold_per_reviewer: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class StudyArmRow(Base):
    __tablename__ = "study_arms"
    __table_args__ = (UniqueConstraint("study_id", "position", name="uq_study_arms_position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("studies.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    label: Mapped[str] = mapped_column(String(200))
    endpoint: Mapped[str] = mapped_column(String(128))
    params: Mapped[Any] = mapped_column(JSON)


class StudyCaseRow(Base):
    __tablename__ = "study_cases"
    __table_args__ = (UniqueConstraint("study_id", "position", name="uq_study_cases_position"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("studies.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    field_values: Mapped[Any] = mapped_column(JSON)


class StudyItemRow(Base):
    """A draft: one case by one arm (variant 0), or a gold item: a seeded-error copy of that
    draft (gold_kind set, variant 1, 2, … — one per gold place in a reviewer's queue)."""

    __tablename__ = "study_items"
    __table_args__ = (
        UniqueConstraint("case_id", "arm_id", "variant", name="uq_study_items_case_arm_variant"),
        one_of("status", ItemStatus),
        one_of("gold_kind", GoldKind),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("studies.id"), index=True)
    case_id: Mapped[int] = mapped_column(ForeignKey("study_cases.id"))
    arm_id: Mapped[int] = mapped_column(ForeignKey("study_arms.id"))
    status: Mapped[str] = mapped_column(String(16))  # ItemStatus
    output_text: Mapped[str] = mapped_column(Text, default="")
    generation_id: Mapped[int | None] = mapped_column(ForeignKey("generations.id"), nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    generated_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    config: Mapped[Any] = mapped_column(JSON, nullable=True)  # the arm as it generated this
    variant: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    gold_kind: Mapped[str | None] = mapped_column(String(32), nullable=True)
    source_item_id: Mapped[int | None] = mapped_column(ForeignKey("study_items.id"), nullable=True)


class StudyReviewerRow(Base):
    __tablename__ = "study_reviewers"
    __table_args__ = (UniqueConstraint("study_id", "user_id", name="uq_study_reviewers_user"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("studies.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    seed: Mapped[int] = mapped_column(BigInteger)  # drives this reviewer's shuffle


class StudyAssignmentRow(Base):
    __tablename__ = "study_assignments"
    __table_args__ = (
        UniqueConstraint("study_reviewer_id", "item_id", name="uq_study_assignments_item"),
        one_of("slot", Slot),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    study_reviewer_id: Mapped[int] = mapped_column(ForeignKey("study_reviewers.id"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("study_items.id"))
    position: Mapped[int] = mapped_column(Integer)  # the case's place in this reviewer's queue
    slot: Mapped[str] = mapped_column(String(1))  # Slot
    token: Mapped[str] = mapped_column(String(64), unique=True)


class StudyVerdictRow(Base):
    __tablename__ = "study_verdicts"
    __table_args__ = (
        UniqueConstraint("assignment_id", "revision", name="uq_study_verdicts_revision"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("study_assignments.id"), index=True)
    revision: Mapped[int] = mapped_column(Integer)
    supersedes_id: Mapped[int | None] = mapped_column(
        ForeignKey("study_verdicts.id"), nullable=True, unique=True
    )
    citation: Mapped[int] = mapped_column(Integer)
    structure: Mapped[int] = mapped_column(Integer)
    terminology: Mapped[int] = mapped_column(Integer)
    hard_error_count: Mapped[int] = mapped_column(Integer)
    hard_errors: Mapped[Any] = mapped_column(JSON)
    comment: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class StudyPreferenceRow(Base):
    """A reviewer's answer to "which would you send to the client?" for one pair of their
    queue (A, B or tie). Append-only like verdicts: a correction is the next revision."""

    __tablename__ = "study_preferences"
    __table_args__ = (
        UniqueConstraint(
            "study_reviewer_id", "position", "revision", name="uq_study_preferences_revision"
        ),
        one_of("choice", Choice),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    study_reviewer_id: Mapped[int] = mapped_column(ForeignKey("study_reviewers.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)  # the pair's place in the reviewer's queue
    revision: Mapped[int] = mapped_column(Integer)
    supersedes_id: Mapped[int | None] = mapped_column(
        ForeignKey("study_preferences.id"), nullable=True, unique=True
    )
    choice: Mapped[str] = mapped_column(String(3))  # Choice
    created_at: Mapped[datetime] = mapped_column(DateTime)
