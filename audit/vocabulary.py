"""The closed vocabularies of LexSpec: every status, role, design, kind and slot that is
stored in a column or compared in code, each declared once as a StrEnum.

A member is a `str` whose value is the stored text, so rows, JSON payloads and chain hashes
hold the same bytes as before the enums (json.dumps(GenerationStatus.COMPLETE) is
'"complete"'). The models build a CHECK constraint from each enum (`one_of`), so the
database refuses a value outside the vocabulary too; adding a member therefore takes a
migration that widens the constraint (as 0010 added them and 0011 widened the event kinds).

The lowest layer (audit/) holds it, so the record and the app share one definition;
app.domain re-exports what app code uses.
"""

from __future__ import annotations

from enum import StrEnum

from sqlalchemy import CheckConstraint


class GenerationStatus(StrEnum):
    """How a logged generation ended (generations.status)."""

    COMPLETE = "complete"  # the model ended the draft
    TRUNCATED = "truncated"  # cut by max_tokens (finish_reason "length")
    STOPPED = "stopped"  # the user stopped it
    ERROR = "error"  # the model server or the network failed


class StreamStatus(StrEnum):
    """Where a streaming completion stands (app.llm.client); not stored."""

    RUNNING = "running"
    COMPLETE = "complete"
    STOPPED = "stopped"
    ERROR = "error"


class Role(StrEnum):
    """What an account may do (users.role)."""

    DRAFTER = "drafter"
    REVIEWER = "reviewer"
    ADMIN = "admin"


class StudyDesign(StrEnum):
    """What a study's reviewers are asked (studies.design)."""

    SCORES = "scores"  # per-criterion scores
    PREFERENCE = "preference"  # a pairwise preference
    BOTH = "both"


class ItemStatus(StrEnum):
    """Whether a study item's draft is generated (study_items.status)."""

    PENDING = "pending"
    COMPLETE = "complete"
    ERROR = "error"


class GoldKind(StrEnum):
    """The seeded error of a gold item (study_items.gold_kind; NULL for a real draft)."""

    WRONG_ARTICLE = "wrong_article"
    MISSING_SECTION = "missing_section"
    WRONG_COUNT = "wrong_count"


class Slot(StrEnum):
    """Where a draft is shown to a reviewer (study_assignments.slot)."""

    A = "A"
    B = "B"


class Choice(StrEnum):
    """A reviewer's pairwise preference (study_preferences.choice)."""

    A = "A"
    B = "B"
    TIE = "tie"


class ClauseStatus(StrEnum):
    """A firm clause version's state (firm_clauses.status)."""

    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"


class EventKind(StrEnum):
    """What a chained audit event records (audit_events.kind): every kind LexSpec appends."""

    COVERAGE_BASELINE = "audit.coverage_baseline"  # migrations 0005 and 0011, once each
    ENDPOINT_SWITCH = "endpoint.switch"
    OUTPUT_APPROVED = "output.approved"
    REVIEW_VERDICT = "review.verdict"
    REVIEW_PREFERENCE = "review.preference"
    STUDY_UNBLINDED_EARLY = "study.unblinded_early"
    USER_CREATED = "user.created"
    USER_PASSWORD_REHASHED = "user.password_rehashed"
    USER_PASSWORD_CHANGED = "user.password_changed"
    USER_PASSWORD_RESET = "user.password_reset"
    USER_DISABLED = "user.disabled"
    USER_ENABLED = "user.enabled"
    USER_ROLE_CHANGED = "user.role_changed"
    USER_SIGNED_OUT = "user.signed_out"  # from migration 0011
    CLAUSE_PROPOSED = "clause.proposed"
    CLAUSE_APPROVED = "clause.approved"
    CLAUSE_REJECTED = "clause.rejected"
    DOCUMENT_REVIEWED = "document.reviewed"  # from migration 0014


def one_of(column: str, vocabulary: type[StrEnum]) -> CheckConstraint:
    """CHECK (column IN (...every value of `vocabulary`...)), named after the column (the
    naming convention makes it ck_<table>_<column>). NULL passes, as in any CHECK."""
    return CheckConstraint(in_list(column, [m.value for m in vocabulary]), name=column)


def in_list(column: str, values: list[str]) -> str:
    """The SQL condition `column IN ('v1', 'v2', ...)` (values are code's words, never input)."""
    assert all(v.replace("_", "").replace(".", "").isalnum() for v in values), values
    quoted = ", ".join(f"'{v}'" for v in values)
    return f"{column} IN ({quoted})"
