"""Standing attacker suite: an account change forged in the database (issue 37, item 2).

Attack (database write access only): `UPDATE users SET role='admin', password_hash=<own
argon2>` plus one correctly chained `user.role_changed` event whose `covers` holds the new
row's digest. Before: the attacker signed in as admin, and `audit verify` only said some rows
were "vouched for by no checkpoint". Must hold: an entry vouches for a row only when its MAC,
under the audit key outside the database, verifies for that row and for the seq of its event
(audit.coverage); so sign-in, a reload's token and every account operation refuse the account,
and verify names the account and the change the forged event claims. Also: a genuine entry
copied into a new event (the row set back to a state it once had), and an entry signed with a
key of the attacker's. Real databases (SQLite, PostgreSQL), real argon2, the real CLI; the
migration that signs what the chain vouched for before (0012).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher, profiles
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from app import accounts
from app.accounts import sessions
from audit import chain, store, users
from audit.coverage import cover_mac, covers
from audit.db import current_revision, make_engine, migrate
from audit.models import Event
from tests.conftest import TEST_AUDIT_KEY, MakeContext, keyed_factory
from tests.servers import run_lexspec

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cheap_argon2")]
PASSWORD = "correct horse"
MINE = "attacker's own password"
SESSION_KEY = bytes(range(32, 64))
NOW = 1_800_000_000.0


def _forge(engine: Engine, kind: str, payload: dict[str, Any]) -> int:
    """Append a correctly chained event with plain SQL, as anyone with the database can (the
    hash chain's own rules: the next seq, the head's hash, the row's hash); its seq."""
    with engine.begin() as conn:
        head = conn.execute(text("SELECT last_seq, last_hash FROM audit_chain_head")).one()
        content: dict[str, Any] = {
            "seq": head.last_seq + 1,
            "created_at": datetime.now(UTC).replace(tzinfo=None),
            "actor": "root",
            "kind": kind,
            "payload": chain.normalise(payload),
            "prev_hash": head.last_hash,
        }
        inserted = conn.execute(Event.__table__.insert().values(**content, row_hash="pending"))
        row_id = inserted.inserted_primary_key[0]  # type: ignore[index]
        content["id"] = row_id
        digest = chain.row_hash("audit_events", content)
        conn.execute(
            text("UPDATE audit_events SET row_hash = :h WHERE id = :i"), {"h": digest, "i": row_id}
        )
        conn.execute(
            text("UPDATE audit_chain_head SET last_seq = :s, last_hash = :h"),
            {"s": content["seq"], "h": digest},
        )
        return int(content["seq"])


def _alice(factory: sessionmaker[Session]) -> int:
    with factory.begin() as session:
        users.create_user("root", "admin", PASSWORD, session=session)
        alice = users.create_user("alice", "drafter", PASSWORD, session=session, actor="root")
    return alice.id


def _promote_with_own_password(engine: Engine, alice_id: int) -> None:
    own = PasswordHasher.from_parameters(profiles.CHEAPEST).hash(MINE)
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE users SET role = 'admin', password_hash = :h WHERE id = :i"),
            {"h": own, "i": alice_id},
        )


def _entry(factory: sessionmaker[Session], alice_id: int) -> dict[str, Any]:
    with factory() as session:
        return covers("users", alice_id, session=session)


def _refused_everywhere(factory: sessionmaker[Session], alice_id: int, token: str) -> None:
    with factory() as session, pytest.raises(accounts.SignInError) as refused:
        accounts.sign_in("alice", MINE, session=session)
    assert "did not sign" in refused.value.message_en, refused.value.message_en
    with factory() as session:
        restored = sessions.restore(
            token, key=SESSION_KEY, now=NOW + 1, idle_s=3600, session=session
        )
    assert restored.user is None
    with factory.begin() as session, pytest.raises(users.AccountChanged):
        users.reset_password("alice", session=session, actor="root")  # nothing absorbs it


@pytest.mark.parametrize("mac", ["none", "attackers-key"])
def test_attack_a_forged_role_change_event_signs_nobody_in(
    mac: str,
    db_url: str,
    db_engine: Engine,
    db_session_factory: sessionmaker[Session],
    tmp_path: Path,
) -> None:
    alice_id = _alice(db_session_factory)
    with db_session_factory() as session:
        alice = users.get_user_by_id(alice_id, session=session)
    assert alice is not None
    _promote_with_own_password(db_engine, alice_id)
    entry = _entry(db_session_factory, alice_id)  # the digest of the row as it now stands
    with db_engine.connect() as conn:
        seq = int(conn.execute(text("SELECT last_seq FROM audit_chain_head")).scalar_one()) + 1
    if mac == "attackers-key":
        entry["mac"] = cover_mac(b"k" * 32, "users", alice_id, entry["digest"], seq)
    payload = {"name": "alice", "role": "admin", "previous": "drafter", "covers": [entry]}
    assert _forge(db_engine, "user.role_changed", payload) == seq
    with db_session_factory() as session:  # a token made while she was a drafter, re-signed
        promoted = users.get_user_by_id(alice_id, session=session)
    assert promoted is not None and promoted.role == "admin"
    _refused_everywhere(
        db_session_factory, alice_id, sessions.issue(promoted, key=SESSION_KEY, now=NOW)
    )

    env = {"LEXSPEC_DATABASE_URL": db_url, "LEXSPEC_DATA_DIR": str(tmp_path / "data")}
    verified = run_lexspec("audit", "verify", env=env)
    assert verified.returncode == 1 and "Traceback" not in verified.stderr
    named = [line for line in verified.stderr.splitlines() if f"users id={alice_id}" in line]
    assert len(named) == 1, verified.stderr
    for said in (
        "did not sign",
        f"seq {seq} user.role_changed",
        "role: admin",
        "alice, role admin",
    ):
        assert said in named[0], named[0]


def test_attack_a_genuine_entry_copied_into_a_new_event(
    db_engine: Engine, db_session_factory: sessionmaker[Session]
) -> None:
    """Alice was an admin, then an admin demoted her. The attacker sets her row back as it was
    and copies the genuine, signed entry of that time into a new event. Must hold: refused
    (the MAC is bound to the seq of the event that carried it)."""
    alice_id = _alice(db_session_factory)
    with db_session_factory.begin() as session:
        users.set_role("alice", "admin", session=session, actor="root")
    with db_engine.connect() as conn:
        was = conn.execute(text("SELECT * FROM users WHERE id = :i"), {"i": alice_id}).one()
        old = conn.execute(text("SELECT payload FROM audit_events ORDER BY seq DESC")).scalar()
    with db_session_factory.begin() as session:
        users.set_role("alice", "drafter", session=session, actor="root")
    with db_engine.begin() as conn:  # the row as it was while she was an admin
        conn.execute(
            text("UPDATE users SET role = :r, credential_version = :v WHERE id = :i"),
            {"r": was.role, "v": was.credential_version, "i": alice_id},
        )
    genuine = (old if isinstance(old, dict) else json.loads(old))["covers"][0]
    assert genuine["digest"] == _entry(db_session_factory, alice_id)["digest"]  # it matches
    _forge(db_engine, "user.role_changed", {"name": "alice", "role": "admin", "covers": [genuine]})
    with db_session_factory() as session, pytest.raises(accounts.SignInError) as refused:
        accounts.sign_in("alice", PASSWORD, session=session)
    assert "did not sign" in refused.value.message_en
    with db_session_factory() as session:
        faults = store.verify_chain(session=session).uncovered
    assert [(f.table, f.id) for f in faults] == [("users", alice_id)]


def test_the_legitimate_path_signs_and_verifies(db_session_factory: sessionmaker[Session]) -> None:
    """What the forgery imitates, done by LexSpec: every entry signed, nothing reported."""
    alice_id = _alice(db_session_factory)
    with db_session_factory.begin() as session:
        users.set_role("alice", "admin", session=session, actor="root")
    with db_session_factory() as session:
        assert accounts.sign_in("alice", PASSWORD, session=session).role == "admin"
    with db_session_factory() as session:
        events = store.list_events(session=session)
        assert all("mac" in e for ev in events for e in ev.payload.get("covers", []))
        assert store.verify_chain(session=session).ok
    assert alice_id


def _accounts_at_0011(engine: Engine) -> dict[str, int]:
    """Accounts as LexSpec at revision 0011 left them (entries without `mac`), one of them
    then promoted by a forged event, as the issue did before this revision."""
    factory = keyed_factory(engine)
    with factory.begin() as session:
        for name in ("root", "alice", "eve"):
            users.create_user(name, "drafter", PASSWORD, session=session)
    with engine.begin() as conn:  # as 0011's code wrote them: no signatures
        for event_id, payload in conn.execute(text("SELECT id, payload FROM audit_events")):
            data = payload if isinstance(payload, dict) else json.loads(payload)
            for entry in data.get("covers", []):
                entry.pop("mac", None)
            conn.execute(
                text("UPDATE audit_events SET payload = :p WHERE id = :i"),
                {"p": json.dumps(data), "i": event_id},
            )
        ids = dict(conn.execute(text("SELECT name, id FROM users")).all())
        conn.execute(text("UPDATE users SET role = 'admin' WHERE name = 'eve'"))
    return ids


def test_migration_0012_signs_what_the_chain_vouched_for_and_needs_the_key(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        migrate(engine, "0011")
        ids = _accounts_at_0011(engine)
        with pytest.raises(RuntimeError, match="audit key"):
            migrate(engine)  # no key: nothing changed
        assert current_revision(engine) == "0011"
        migrate(engine, cover_key=lambda: TEST_AUDIT_KEY)
        factory = keyed_factory(engine)
        with factory() as session:
            baseline = store.list_events(session=session)[0]
            faults = store.verify_chain(session=session).uncovered
        assert (baseline.actor, baseline.kind) == ("migration 0012", "audit.coverage_baseline")
        assert [e["id"] for e in baseline.payload["covers"]] == [ids["root"], ids["alice"]]
        assert all(
            e["mac"] == cover_mac(TEST_AUDIT_KEY, "users", e["id"], e["digest"], baseline.seq)
            for e in baseline.payload["covers"]
        )
        assert [(f.table, f.id) for f in faults] == [("users", ids["eve"])]  # left out
        with factory() as session:
            assert accounts.sign_in("alice", PASSWORD, session=session).name == "alice"
    finally:
        engine.dispose()


def test_an_installation_upgraded_to_0012_verifies_clean(
    make_context: MakeContext, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An installation as LexSpec at 0011 left it (an account chained without a signature,
    anchored by a checkpoint) starts on this code: 0012 signs the account in a new chained row,
    and that row is checkpointed by the start that ran the migration (verify does not report it
    as vouched for by no checkpoint), and alice signs in."""
    from sqlalchemy.orm import Session as OrmSession

    from app import database
    from app.cli import main
    from app.database.anchoring import anchor

    ctx = make_context(lang="en", data_dir=tmp_path / "data")
    engine = make_engine(ctx.settings.resolved_database_url)
    migrate(engine, "0011")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO users (name, name_key, role, password_hash, must_change_password,"
                " created_at, disabled, credential_version)"
                " VALUES ('alice', 'alice', 'drafter', :h, false, :t, false, 0)"
            ),
            {"h": PasswordHasher.from_parameters(profiles.CHEAPEST).hash(PASSWORD),
             "t": datetime(2026, 11, 1, 9, 0, 0, 654321)},
        )  # fmt: skip
    with OrmSession(engine) as session:
        entry = covers("users", 1, session=session)
    seq = _forge(engine, "user.created", {"name": "alice", "covers": [entry]})
    with engine.connect() as conn:
        head = str(conn.execute(text("SELECT last_hash FROM audit_chain_head")).scalar_one())
    anchor(ctx.settings).record(1, seq, head)  # what 0011's app wrote after that commit
    engine.dispose()
    capsys.readouterr()
    assert main(["audit", "verify"], context=ctx) == 0, capsys.readouterr().err
    with ctx.session() as session:
        assert store.list_events(session=session)[0].actor == "migration 0012"
    with ctx.session_factory() as session:
        assert accounts.sign_in("alice", PASSWORD, session=session).name == "alice"
    database.reset()
