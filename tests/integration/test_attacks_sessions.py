"""Standing attacker suite: session tokens across a re-created database, and from the future
(issue 37, item 9).

Attacks: (1) the database is re-created or restored and the session key kept: an old cookie
named only `user id . version . role`, so it signed in as whoever now had that id (the same
name and role included). (2) A token dated in the future never expired. Must hold: a token is
bound to the account's creation, so it names no other account; a token from the future is
refused. The throttle's attacks (a burst of guesses, names of any length) are in
test_sign_in_throttle.py. Real databases, the real session functions the page gate calls.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from app.accounts import sessions
from audit import users
from audit.db import make_engine, migrate
from tests.conftest import TEST_AUDIT_KEY, keyed_factory

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cheap_argon2")]
KEY = bytes(range(32))
NOW = 1_800_000_000.0
IDLE = 8 * 3600.0
PASSWORD = "correct horse"


def _fresh(url: str) -> sessionmaker[Session]:
    engine = make_engine(url)
    migrate(engine, cover_key=lambda: TEST_AUDIT_KEY)
    return keyed_factory(engine)


def test_attack_an_old_token_on_a_recreated_database_names_nobody(tmp_path: Path) -> None:
    first = _fresh(f"sqlite:///{tmp_path / 'first.db'}")
    with first.begin() as session:
        users.create_user("root", "admin", PASSWORD, session=session)
        alice = users.create_user("alice", "admin", PASSWORD, session=session)
    token = sessions.issue(alice, key=KEY, now=NOW)
    # the database made anew (or an older backup restored), the session key kept: the same
    # ids, names and roles, other people
    second = _fresh(f"sqlite:///{tmp_path / 'second.db'}")
    with second.begin() as session:
        users.create_user("root", "admin", PASSWORD, session=session)
        other = users.create_user("alice", "admin", PASSWORD, session=session)
    assert (other.id, other.name, other.role, other.credential_version) == (
        alice.id, alice.name, alice.role, alice.credential_version,
    )  # fmt: skip
    with second() as session:
        restored = sessions.restore(token, key=KEY, now=NOW + 60, idle_s=IDLE, session=session)
        live = sessions.recheck(alice, last_seen=NOW, now=NOW + 60, idle_s=IDLE, session=session)
        assert restored == live == sessions.Checked(None, "gone")
        mine = sessions.issue(other, key=KEY, now=NOW)  # her own token still works
        own = sessions.restore(mine, key=KEY, now=NOW + 60, idle_s=IDLE, session=session)
        assert own.user == other


def test_attack_a_token_dated_in_the_future(db_session_factory: sessionmaker[Session]) -> None:
    """Signed with the key (a clock set wrong, or a key that leaked once): it would never
    expire. Must hold: refused beyond a minute of clock skew; a second ahead is fine."""
    with db_session_factory.begin() as session:
        dana = users.create_user("dana", "drafter", PASSWORD, session=session)
    late = sessions.issue(dana, key=KEY, now=NOW + 10 * 365 * 86400)
    skewed = sessions.issue(dana, key=KEY, now=NOW + 1)
    with db_session_factory() as session:
        refused = sessions.restore(late, key=KEY, now=NOW, idle_s=IDLE, session=session)
        kept = sessions.restore(skewed, key=KEY, now=NOW, idle_s=IDLE, session=session)
    assert refused == sessions.Checked(None, "invalid") and kept.user == dana
