"""Vocabularies: a CHECK constraint on every column that holds a closed vocabulary
(audit.vocabulary), so the database refuses a status, role, kind or slot the code does not know.

Existing rows. Every value any LexSpec version wrote is in these lists: the vocabularies have
only grown (generation status gained "truncated"; no value was ever renamed or dropped), so a
database LexSpec made upgrades as it is. A value outside them can only come from an edit made
outside LexSpec, and the migration handles it by what the column is:
- studies.design and study_items.status are neither chained nor covered, and the code already
  reads an unknown value as 'scores' and as 'pending': they are rewritten to that reading, so
  nothing changes for the app;
- every other column is chained (generations.status, audit_events.kind), covered by the chain
  (users.role, study_preferences.choice, firm_clauses.status) or decides what a reviewer was
  shown (study_items.gold_kind, study_assignments.slot): rewriting would destroy the evidence
  `lexspec audit verify` reports, so the migration stops before changing anything and names
  the rows (VocabularyViolation); the operator decides.

The lists are frozen here (a migration never follows later code); a new member of a
vocabulary takes a new migration that widens its constraint.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from audit.vocabulary import in_list

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (table, column) -> the allowed values as of this revision
ALLOWED: dict[tuple[str, str], list[str]] = {
    ("users", "role"): ["drafter", "reviewer", "admin"],
    ("generations", "status"): ["complete", "truncated", "stopped", "error"],
    ("audit_events", "kind"): [
        "audit.coverage_baseline", "endpoint.switch", "output.approved", "review.verdict",
        "review.preference", "study.unblinded_early", "user.created", "user.password_rehashed",
        "user.password_changed", "user.password_reset", "user.disabled", "user.enabled",
        "user.role_changed", "clause.proposed", "clause.approved", "clause.rejected",
    ],
    ("studies", "design"): ["scores", "preference", "both"],
    ("study_items", "status"): ["pending", "complete", "error"],
    ("study_items", "gold_kind"): ["wrong_article", "missing_section", "wrong_count"],
    ("study_assignments", "slot"): ["A", "B"],
    ("study_preferences", "choice"): ["A", "B", "tie"],
    ("firm_clauses", "status"): ["pending", "approved", "rejected"],
}  # fmt: skip
# columns whose unknown values the code reads as one value: the migration stores that value
READ_AS = {("studies", "design"): "scores", ("study_items", "status"): "pending"}


class VocabularyViolation(RuntimeError):
    """Rows hold values outside a vocabulary in a column the migration may not rewrite."""


def upgrade() -> None:
    connection = op.get_bind()
    _rewrite_read_as(connection)
    _refuse_unknown(connection)
    for table in dict.fromkeys(t for t, _ in ALLOWED):
        with op.batch_alter_table(table) as batch:
            for (name, column), values in ALLOWED.items():
                if name == table:
                    batch.create_check_constraint(
                        op.f(f"ck_{table}_{column}"), in_list(column, values)
                    )


def downgrade() -> None:
    for table in dict.fromkeys(t for t, _ in ALLOWED):
        with op.batch_alter_table(table) as batch:
            for name, column in ALLOWED:
                if name == table:
                    batch.drop_constraint(op.f(f"ck_{table}_{column}"), type_="check")


def _unknown(table: str, column: str) -> sa.Select[Any]:
    t = sa.table(table, sa.column("id"), sa.column(column))
    return sa.select(t.c.id, t.c[column]).where(t.c[column].not_in(ALLOWED[table, column]))


def _rewrite_read_as(connection: sa.Connection) -> None:
    for (table, column), value in READ_AS.items():
        t = sa.table(table, sa.column(column))
        connection.execute(
            sa.update(t).where(t.c[column].not_in(ALLOWED[table, column])).values({column: value})
        )


def _refuse_unknown(connection: sa.Connection) -> None:
    found = []
    for table, column in ALLOWED:
        rows = connection.execute(_unknown(table, column).limit(10)).all()
        found += [f"{table}.{column} id {row[0]}: {row[1]!r}" for row in rows]
    if found:
        raise VocabularyViolation(
            "rows hold values outside LexSpec's vocabularies (edited outside LexSpec; "
            "`lexspec audit verify` reports chained ones); nothing was changed: " + "; ".join(found)
        )
