"""The vocabularies as CHECK constraints (audit.vocabulary; added by migration 0010, the event
kinds widened by 0011): the database refuses a value outside a vocabulary and takes every
value in it, on every backend; a database made before 0010, with rows in it, upgrades without
any chained row or covered digest changing."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import Engine, inspect, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from audit import firm_clauses, store, users
from audit.db import current_revision, head_revision, make_engine, migrate
from audit.firm_clauses import FirmClauseDraft
from audit.vocabulary import ClauseStatus, EventKind, Role
from tests.conftest import TEST_AUDIT_KEY, keyed_factory
from tests.records import make_record

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cheap_argon2")]

BEFORE_CHECKS = "0009"  # the revision before 0010 added the constraints
# every column that holds a vocabulary, and a value outside it
CONSTRAINED = {
    ("users", "role"): "superuser",
    ("generations", "status"): "cancelled",
    ("audit_events", "kind"): "user.deleted",
    ("studies", "design"): "ranking",
    ("study_items", "status"): "running",
    ("study_items", "gold_kind"): "wrong_date",
    ("study_assignments", "slot"): "C",
    ("study_preferences", "choice"): "AB",  # fits String(3): the CHECK refuses it
    ("firm_clauses", "status"): "withdrawn",
}
CLAUSE = FirmClauseDraft("filing_guide", "firm.c1", "basis", "依据条款。", None, (), "firm")


def _seed(factory: sessionmaker[Session]) -> None:
    """One row of each kind LexSpec writes: accounts, a generation, events, a firm clause, and
    a study with an arm, a case, two items (one gold), a reviewer, an assignment and a
    preference (the study rows in SQL: the store needs the prompt library)."""
    with factory.begin() as session:
        users.create_user("root", Role.ADMIN, "root password 1", session=session)
        users.create_user("rita", Role.REVIEWER, "rita password 1", session=session)
        store.log_generation(make_record(status="truncated"), session=session)
        store.append_event(
            session=session, actor="root", kind=EventKind.ENDPOINT_SWITCH, payload={"to": "x"}
        )
        row = firm_clauses.add_proposal(CLAUSE, session=session, actor="root")
        firm_clauses.decide(row.id, ClauseStatus.APPROVED, session=session, actor="root")
    now = datetime(2026, 12, 1)
    with factory.begin() as session:
        rita = session.scalar(text("SELECT id FROM users WHERE name = 'rita'"))
        for sql, values in (
            (
                "INSERT INTO studies (id, name, doc_type, created_by, created_at, design)"
                " VALUES (1, 's', 'filing_guide', 'root', :now, 'both')",
                {},
            ),
            (
                "INSERT INTO study_arms (id, study_id, position, label, endpoint, params)"
                " VALUES (1, 1, 0, 'a', 'embedded', '{}')",
                {},
            ),
            (
                "INSERT INTO study_cases (id, study_id, position, field_values)"
                " VALUES (1, 1, 0, '{}')",
                {},
            ),
            (
                "INSERT INTO study_items (id, study_id, case_id, arm_id, status, output_text,"
                " variant, gold_kind, source_item_id) VALUES"
                " (1, 1, 1, 1, 'complete', 't', 0, NULL, NULL),"
                " (2, 1, 1, 1, 'pending', '', 1, 'wrong_count', 1)",
                {},
            ),
            (
                "INSERT INTO study_reviewers (id, study_id, user_id, seed) VALUES (1, 1, :rita, 7)",
                {"rita": rita},
            ),
            (
                "INSERT INTO study_assignments (id, study_reviewer_id, item_id, position, slot,"
                " token) VALUES (1, 1, 1, 1, 'A', 'tok')",
                {},
            ),
            (
                "INSERT INTO study_preferences (id, study_reviewer_id, position, revision,"
                " choice, created_at) VALUES (1, 1, 1, 1, 'tie', :now)",
                {},
            ),
        ):
            session.execute(text(sql), {"now": now, **values})


def _hashes(engine: Engine) -> dict[str, Any]:
    with engine.connect() as conn:
        return {
            table: conn.execute(text(f"SELECT id, seq, row_hash FROM {table} ORDER BY id")).all()
            for table in ("generations", "audit_events")
        } | {"head": conn.execute(text("SELECT last_seq, last_hash FROM audit_chain_head")).one()}


def _verify(factory: sessionmaker[Session]) -> Any:
    """The verifier's report: the chain walks clean; the one uncovered row is the preference
    the seed wrote in SQL (no event covers it), before and after the upgrade alike."""
    with factory() as session:
        report = store.verify_chain(session=session)
    assert report.first_bad is None
    assert [(f.table, f.id) for f in report.uncovered] == [("study_preferences", 1)]
    return report


@pytest.fixture
def old_engine(db_url: str) -> Any:
    """An engine on a database migrated only to the revision before the constraints."""
    engine = make_engine(db_url)
    migrate(engine, BEFORE_CHECKS)
    yield engine
    engine.dispose()


def test_every_vocabulary_column_has_its_check(db_engine: Engine) -> None:
    inspector = inspect(db_engine)
    for table, column in CONSTRAINED:
        names = {c["name"] for c in inspector.get_check_constraints(table)}
        assert f"ck_{table}_{column}" in names, (table, names)


@pytest.mark.parametrize(("table", "column"), list(CONSTRAINED))
def test_a_value_outside_the_vocabulary_is_refused(
    db_engine: Engine, table: str, column: str
) -> None:
    _seed(keyed_factory(db_engine))
    bad = CONSTRAINED[table, column]
    with pytest.raises(IntegrityError), db_engine.begin() as conn:
        conn.execute(text(f"UPDATE {table} SET {column} = :bad"), {"bad": bad})


def test_append_event_with_an_unknown_kind_is_refused(
    db_session_factory: sessionmaker[Session],
) -> None:
    with pytest.raises(IntegrityError), db_session_factory.begin() as session:
        store.append_event(session=session, actor="x", kind="made.up", payload={})  # type: ignore[arg-type]


def test_every_event_kind_is_taken_at_head(db_session_factory: sessionmaker[Session]) -> None:
    """The kind CHECK the newest migration set allows every EventKind (0011: user.signed_out)."""
    with db_session_factory.begin() as session:
        for kind in EventKind:
            store.append_event(session=session, actor="x", kind=kind, payload={})
    with db_session_factory() as session:
        kinds = [e.kind for e in reversed(store.list_events(session=session))]
    assert kinds == list(EventKind)


def test_upgrade_from_before_the_checks_keeps_rows_and_hashes(old_engine: Engine) -> None:
    factory = keyed_factory(old_engine)
    _seed(factory)
    before, verified = _hashes(old_engine), _verify(factory)
    migrate(old_engine, cover_key=lambda: TEST_AUDIT_KEY)
    assert current_revision(old_engine) == head_revision()
    assert _hashes(old_engine) == before
    assert _verify(factory) == verified
    with old_engine.connect() as conn:
        counts = {
            t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar() for t, _ in CONSTRAINED
        }
    assert counts == {
        "users": 2, "generations": 1, "audit_events": 5, "studies": 1, "study_items": 2,
        "study_assignments": 1, "study_preferences": 1, "firm_clauses": 1,
    }  # fmt: skip
    with pytest.raises(IntegrityError), old_engine.begin() as conn:
        conn.execute(text("UPDATE generations SET status = 'cancelled'"))


def test_upgrade_reads_unknown_design_and_item_status_as_the_code_did(old_engine: Engine) -> None:
    """Neither column is chained or covered: an unknown value becomes what the code read it as."""
    _seed(keyed_factory(old_engine))
    with old_engine.begin() as conn:
        conn.execute(text("UPDATE studies SET design = 'legacy'"))
        conn.execute(text("UPDATE study_items SET status = 'odd' WHERE id = 2"))
    migrate(old_engine, cover_key=lambda: TEST_AUDIT_KEY)
    with old_engine.connect() as conn:
        assert conn.execute(text("SELECT design FROM studies")).scalar() == "scores"
        statuses = conn.execute(text("SELECT status FROM study_items ORDER BY id")).scalars()
        assert list(statuses) == ["complete", "pending"]


def test_upgrade_refuses_an_edited_chained_value_and_changes_nothing(old_engine: Engine) -> None:
    """A role, status or kind outside the vocabulary was written outside LexSpec: the migration
    names it and stops before 0010, leaving the evidence for `lexspec audit verify`."""
    _seed(keyed_factory(old_engine))
    with old_engine.begin() as conn:
        conn.execute(text("UPDATE users SET role = 'superuser' WHERE name = 'rita'"))
    with pytest.raises(RuntimeError, match=r"users\.role id \d+: 'superuser'"):
        migrate(old_engine, cover_key=lambda: TEST_AUDIT_KEY)
    assert current_revision(old_engine) == BEFORE_CHECKS
    with old_engine.connect() as conn:
        assert conn.execute(sa.text("SELECT role FROM users WHERE name = 'rita'")).scalar() == (
            "superuser"
        )
