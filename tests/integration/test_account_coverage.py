"""Accounts and verdicts are covered by the audit chain (real databases, the real CLI).

Issue: `UPDATE users SET role='admin'` passed `lexspec audit verify`. Every account change and
every verdict now appends a chained event carrying the row's digest (audit.coverage), and
verify reports any row changed, added or deleted outside LexSpec by table and id. Signing out
is chained too, and the digest covers the credential version (migration 0011), so a version
lowered to revive a session is reported.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from sqlalchemy import Engine, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.studies import blinding as review_blind
from audit import chain, store, users
from audit.coverage import cover_mac, covers
from audit.db import (
    alembic_config,
    current_revision,
    head_revision,
    make_engine,
    migrate,
)
from audit.domain import ChainFault
from audit.models import User as UserRow
from audit.vocabulary import EventKind
from tests.conftest import TEST_AUDIT_KEY, keyed_factory
from tests.integration.test_review_store import _generated_study, _verdict
from tests.servers import run_lexspec

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cheap_argon2")]
PASSWORD = "correct horse"


def _faults(factory: sessionmaker[Session], table: str | None = None) -> list[ChainFault]:
    with factory() as session:
        report = store.verify_chain(session=session)
    assert report.first_bad is None, report.first_bad  # the chain itself is intact
    return [f for f in report.uncovered if table is None or f.table == table]


def _accounts(factory: sessionmaker[Session]) -> None:
    """Every kind of account change LexSpec makes, each in its own unit of work."""
    steps = [
        lambda s: users.create_user("root", "admin", PASSWORD, session=s),
        lambda s: users.create_user("alice", "drafter", PASSWORD, session=s, actor="root"),
        lambda s: users.set_role("alice", "reviewer", session=s, actor="root"),
        lambda s: users.set_disabled("alice", True, session=s, actor="root"),
        lambda s: users.set_disabled("alice", False, session=s, actor="root"),
        lambda s: users.reset_password("alice", session=s, actor="root"),
        lambda s: users.change_password("root", PASSWORD, "another horse", session=s),
    ]
    for step in steps:
        with factory.begin() as session:
            step(session)


def test_every_account_change_is_a_chained_event(db_session_factory: sessionmaker[Session]) -> None:
    _accounts(db_session_factory)
    with db_session_factory() as session:
        kinds = [e.kind for e in reversed(store.list_events(session=session))]
        covered = [e.payload["covers"][0]["table"] for e in store.list_events(session=session)]
    assert kinds == [
        "user.created",
        "user.created",
        "user.role_changed",
        "user.disabled",
        "user.enabled",
        "user.password_reset",
        "user.password_changed",
    ]
    assert set(covered) == {"users"}
    assert _faults(db_session_factory) == []


def test_signing_out_is_a_chained_event(db_session_factory: sessionmaker[Session]) -> None:
    """Sign-out raises the credential version (audit.users.end_sessions) and chains it, acting
    as the user, so verify stays clean and a lowered version would be reported."""
    with db_session_factory.begin() as session:
        dana = users.create_user("dana", "drafter", PASSWORD, session=session, actor="root")
    with db_session_factory.begin() as session:
        signed_out = users.end_sessions(dana.id, session=session)
    assert signed_out is not None and signed_out.credential_version == 1
    with db_session_factory() as session:
        event = store.list_events(session=session)[0]
        (entry,) = event.payload["covers"]
        assert (event.kind, event.actor) == ("user.signed_out", "dana")
        assert {k: v for k, v in entry.items() if k != "mac"} == covers(
            "users", dana.id, session=session
        )  # signed for its event's seq with the audit key (audit.coverage, issue 37)
        assert entry["mac"] == cover_mac(
            TEST_AUDIT_KEY, "users", dana.id, entry["digest"], event.seq
        )
    assert _faults(db_session_factory) == []


def test_a_rehashed_password_is_chained_too(db_session_factory: sessionmaker[Session]) -> None:
    with db_session_factory.begin() as session:
        users.create_user("alice", "drafter", PASSWORD, session=session)
    previous = users.use_password_hasher(PasswordHasher())  # stronger parameters than the hash
    try:
        with db_session_factory.begin() as session:
            assert users.authenticate("alice", PASSWORD, session=session) is not None
    finally:
        users.use_password_hasher(previous)
    with db_session_factory() as session:
        assert store.list_events(session=session)[0].kind == "user.password_rehashed"
    assert _faults(db_session_factory) == []


DIRECT_EDITS = {
    "role": "UPDATE users SET role = 'admin' WHERE name = 'alice'",
    "enable": "UPDATE users SET disabled = false WHERE name = 'alice'",
    "password": "UPDATE users SET password_hash = 'mine' WHERE name = 'root'",
    "must_change": "UPDATE users SET must_change_password = false WHERE name = 'alice'",
}


@pytest.mark.parametrize("case", sorted(DIRECT_EDITS))
def test_a_direct_account_edit_is_caught(
    case: str, db_engine: Engine, db_session_factory: sessionmaker[Session]
) -> None:
    _accounts(db_session_factory)
    with db_session_factory.begin() as session:
        users.set_disabled("alice", True, session=session, actor="root")
    with db_engine.begin() as conn:
        user_id = conn.execute(
            text("SELECT id FROM users WHERE name = :n"),
            {"n": "root" if case == "password" else "alice"},
        ).scalar_one()
        conn.execute(text(DIRECT_EDITS[case]))
    faults = _faults(db_session_factory)
    assert [(f.table, f.id) for f in faults] == [("users", user_id)]
    assert "changed outside LexSpec" in faults[0].reason.en


def test_an_account_added_or_deleted_outside_lexspec_is_caught(
    db_engine: Engine, db_session_factory: sessionmaker[Session]
) -> None:
    _accounts(db_session_factory)
    with db_engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO users (name, name_key, role, password_hash, must_change_password,"
                " created_at, disabled) VALUES ('eve', 'eve', 'admin', 'x', false, :t, false)"
            ),
            {"t": datetime(2026, 1, 1)},
        )
        conn.execute(text("DELETE FROM users WHERE name = 'alice'"))
    reasons = {f.reason.en for f in _faults(db_session_factory, "users")}
    assert reasons == {
        "not in the audit chain (added outside LexSpec); the account is eve, role admin now",
        "deleted outside LexSpec",
    }


def test_an_edited_verdict_is_caught(
    db_engine: Engine, db_session_factory: sessionmaker[Session]
) -> None:
    study = _generated_study(db_session_factory)
    with db_session_factory() as session:
        token = review_blind.reviewer_queue(study.id, "lawyer_li", session=session)[0]
        first = review_blind.submit_verdict(
            token.drafts[0].token, _verdict(3), reviewer="lawyer_li", session=session
        )
        session.commit()
    assert first.citation == 3 and _faults(db_session_factory, "study_verdicts") == []
    with db_engine.begin() as conn:
        verdict_id = conn.execute(text("SELECT id FROM study_verdicts")).scalar_one()
        conn.execute(text("UPDATE study_verdicts SET citation = 9"))
    faults = _faults(db_session_factory, "study_verdicts")
    assert [(f.table, f.id) for f in faults] == [("study_verdicts", verdict_id)]


def test_cli_verify_reports_the_role_change(
    db_url: str, db_engine: Engine, db_session_factory: sessionmaker[Session], tmp_path: Path
) -> None:
    _accounts(db_session_factory)
    env = {"LEXSPEC_DATABASE_URL": db_url, "LEXSPEC_DATA_DIR": str(tmp_path / "data")}
    assert run_lexspec("audit", "verify", env=env).returncode == 0
    with db_engine.begin() as conn:  # the attack
        conn.execute(text("UPDATE users SET role = 'admin' WHERE name = 'alice'"))
    result = run_lexspec("audit", "verify", env=env)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "users id=2: changed outside LexSpec" in result.stderr, result.stderr


def test_migration_0005_covers_accounts_that_existed_before(db_url: str) -> None:
    engine = make_engine(db_url)
    migrate(engine, "0004")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO users (name, name_key, role, password_hash, must_change_password,"
                " created_at, disabled) VALUES ('old', 'old', 'drafter', 'x', false, :t, false)"
            ),
            {"t": datetime(2025, 6, 1, 12, 30, 0, 123456)},
        )
    migrate(engine, cover_key=lambda: TEST_AUDIT_KEY)
    factory = keyed_factory(engine)
    try:
        with factory() as session:
            assert store.list_events(session=session)[0].kind == "audit.coverage_baseline"
        assert _faults(factory) == []
        with engine.begin() as conn:
            conn.execute(text("UPDATE users SET role = 'admin'"))
        assert [(f.table, f.id) for f in _faults(factory)] == [("users", 1)]
    finally:
        engine.dispose()


def test_covered_columns_name_real_columns_the_same_in_the_migration() -> None:
    import importlib

    from audit.coverage import COVERED, COVERED_COLUMNS

    # each table's columns as the newest baseline froze them (0011 added the credential version)
    frozen = {}
    for module in ("0005_trust", "0011_credential_coverage"):
        migration = importlib.import_module(f"audit.migrations.versions.{module}")
        frozen.update(migration.COVERED_COLUMNS)
    for name, columns in frozen.items():
        assert COVERED_COLUMNS[name] == columns, name
    # tables covered since: created empty by a later migration, so no baseline is owed
    assert set(COVERED_COLUMNS) - set(frozen) == {
        "study_preferences",
        "firm_clauses",
    }
    for name, table in COVERED.items():
        assert set(COVERED_COLUMNS[name]) <= {c.key for c in table.columns}, name


# the account columns a digest covered at revision 0010 (frozen in migration 0011)
COLUMNS_0010 = (
    "id", "name", "name_key", "role", "password_hash", "must_change_password", "created_at",
    "password_changed_at", "disabled",
)  # fmt: skip


def _accounts_at_0010(engine: Engine) -> None:
    """Three accounts as LexSpec at revision 0010 left them: each chained with the digest of
    the columns covered then; carol signed out (her version raised, unchained, as then); eve's
    role then changed outside LexSpec (her row differs from her digest)."""
    with engine.begin() as conn:
        for name, version in (("root", 0), ("carol", 2), ("eve", 0)):
            conn.execute(
                text(
                    "INSERT INTO users (name, name_key, role, password_hash, must_change_password,"
                    " created_at, disabled, credential_version) VALUES"
                    " (:n, :n, 'drafter', 'x', false, :t, false, :v)"
                ),
                {"n": name, "t": datetime(2026, 11, 1, 9, 0, 0, 654321), "v": version},
            )
    factory = keyed_factory(engine)  # 0010's code wrote no `mac`; revision 0011 ignores it
    with factory.begin() as session:
        for row in session.execute(select(UserRow.__table__).order_by(UserRow.id)):
            values = {c: row._mapping[c] for c in COLUMNS_0010}
            entry = {"table": "users", "id": row.id, "digest": chain.row_hash("users", values)}
            payload = {"name": row.name, "covers": [entry]}
            store.append_event(
                session=session, actor="root", kind=EventKind.USER_CREATED, payload=payload
            )
    with engine.begin() as conn:
        conn.execute(text("UPDATE users SET role = 'admin' WHERE name = 'eve'"))


def test_migration_0011_covers_the_credential_version_of_accounts_that_existed_before(
    db_url: str,
) -> None:
    """A database at 0010 upgrades to verify clean under the new column list, but for the
    account changed outside LexSpec before it, which the baseline does not absorb."""
    engine = make_engine(db_url)
    migrate(engine, "0010")
    _accounts_at_0010(engine)
    migrate(engine, cover_key=lambda: TEST_AUDIT_KEY)
    factory = keyed_factory(engine)
    try:
        with factory() as session:
            signed, baseline = store.list_events(session=session)[:2]
            ids = dict(session.execute(text("SELECT name, id FROM users")).all())
        assert (baseline.kind, baseline.actor) == ("audit.coverage_baseline", "migration 0011")
        assert [e["id"] for e in baseline.payload["covers"]] == [ids["root"], ids["carol"]]
        assert signed.actor == "migration 0012"  # the same accounts, signed (issue 37)
        assert [e["id"] for e in signed.payload["covers"]] == [ids["root"], ids["carol"]]
        assert [(f.table, f.id) for f in _faults(factory)] == [("users", ids["eve"])]
        with engine.begin() as conn:  # the version is covered now
            conn.execute(text("UPDATE users SET credential_version = 1 WHERE name = 'carol'"))
        faults = [(f.table, f.id) for f in _faults(factory)]
        assert faults == [("users", ids["carol"]), ("users", ids["eve"])]
    finally:
        engine.dispose()


def _downgrade(engine: Engine, revision: str) -> None:
    from alembic import command

    with engine.begin() as connection:
        command.downgrade(alembic_config(connection), revision)


def test_migration_0011_downgrades_unless_a_sign_out_is_chained(db_url: str) -> None:
    """Downgrade narrows the kinds again and re-baselines with the old columns; a chained
    sign-out (a kind 0010 does not allow, and never removed) stops it before any change."""
    engine = make_engine(db_url)
    migrate(engine, "0010")
    _accounts_at_0010(engine)
    migrate(engine, cover_key=lambda: TEST_AUDIT_KEY)
    factory = keyed_factory(engine)
    try:
        _downgrade(engine, "0010")
        assert current_revision(engine) == "0010"
        with pytest.raises(IntegrityError), factory.begin() as session:
            store.append_event(
                session=session, actor="x", kind=EventKind.USER_SIGNED_OUT, payload={}
            )
        migrate(engine, cover_key=lambda: TEST_AUDIT_KEY)
        with factory.begin() as session:
            root = session.scalar(text("SELECT id FROM users WHERE name = 'root'"))
            users.end_sessions(root, session=session)
        with pytest.raises(RuntimeError, match=r"user\.signed_out"):
            _downgrade(engine, "0010")
        assert current_revision(engine) == head_revision()
        assert [f.table for f in _faults(factory)] == ["users"]  # eve, as before
    finally:
        engine.dispose()
