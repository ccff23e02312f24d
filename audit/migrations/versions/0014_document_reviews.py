"""Documents reviewed: the `document.reviewed` event kind (a review of an uploaded document,
app/review: the file's name and SHA-256, the date it was checked on, its findings, who).

Widens the CHECK on audit_events.kind for it. Downgrade narrows it again, and stops before
changing anything while a `document.reviewed` event exists, as a chained event is never
removed. The kinds are frozen here (a migration never follows later code).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from audit.vocabulary import in_list

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

REVIEWED = "document.reviewed"
PREVIOUS_KINDS = [
    "audit.coverage_baseline", "endpoint.switch", "output.approved", "review.verdict",
    "review.preference", "study.unblinded_early", "user.created", "user.password_rehashed",
    "user.password_changed", "user.password_reset", "user.disabled", "user.enabled",
    "user.role_changed", "user.signed_out", "clause.proposed", "clause.approved",
    "clause.rejected",
]  # fmt: skip

# (table, column) -> the allowed values as of this revision
ALLOWED: dict[tuple[str, str], list[str]] = {("audit_events", "kind"): [*PREVIOUS_KINDS, REVIEWED]}


class ReviewedEvents(RuntimeError):
    """Chained `document.reviewed` events exist: the narrower CHECK would refuse them."""


def upgrade() -> None:
    _set_kinds(ALLOWED["audit_events", "kind"])


def downgrade() -> None:
    events = sa.table("audit_events", sa.column("kind"))
    count = op.get_bind().scalar(
        sa.select(sa.func.count()).select_from(events).where(events.c.kind == REVIEWED)
    )
    if count:
        raise ReviewedEvents(
            f"{count} chained {REVIEWED} events exist; revision 0013 does not allow that kind "
            "and a chained event is never removed: nothing was changed"
        )
    _set_kinds(PREVIOUS_KINDS)


def _set_kinds(kinds: list[str]) -> None:
    """Replace the CHECK on audit_events.kind (batch mode: SQLite rebuilds the table)."""
    with op.batch_alter_table("audit_events") as batch:
        batch.drop_constraint(op.f("ck_audit_events_kind"), type_="check")
        batch.create_check_constraint(op.f("ck_audit_events_kind"), in_list("kind", kinds))
