"""Sessions (issue 20 items 5 and 6) on a real database (SQLite file; PostgreSQL when it
answers): the signed session token a reload brings back, and the re-check of every page run.
A token stops working when the account is disabled, its password is reset or changed, its
role changes, its user signs out, or it was not used for longer than the idle limit."""

from __future__ import annotations

import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from app import accounts
from app.accounts import sessions
from audit import users
from audit.domain import User

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cheap_argon2")]
KEY = bytes(range(32))
IDLE = 8 * 3600.0
NOW = 1_800_000_000.0
PASSWORD = "correct horse"


def test_token_round_trip_and_forgeries() -> None:
    dana = User(7, "dana", "drafter", False, datetime.now(UTC), credential_version=3)
    token = sessions.issue(dana, key=KEY, now=NOW)
    claims = sessions.read(token, key=KEY)
    assert claims == sessions.Claims(7, 3, "drafter", NOW, sessions.created_of(dana))
    payload, signature = token.rsplit(".", 1)
    forged = [
        token.replace(".drafter.", ".admin."),  # a role of one's choosing
        token.replace("7.3.", "1.3.", 1),  # someone else's account
        f"{payload}.{signature[:-2]}",  # a cut signature
        "",
        "not-a-token",
        "1.0.admin.1800000000.",
        payload.rsplit(".", 1)[0] + "." + signature,  # a token of the old form (no creation)
    ]
    assert [sessions.read(f, key=KEY) for f in forged] == [None] * len(forged)
    assert sessions.read(token, key=bytes(32)) is None  # another installation's key


def test_the_key_file_is_created_private_once(tmp_path: Path) -> None:
    path = tmp_path / "data" / "session.key"
    first = sessions.session_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(first) == sessions.KEY_BYTES and sessions.session_key(path) == first
    path.write_text("abc\n")
    with pytest.raises(ValueError, match="damaged"):
        sessions.session_key(path)


def _restore(token: str, session: Session, *, now: float = NOW + 60) -> sessions.Checked:
    return sessions.restore(token, key=KEY, now=now, idle_s=IDLE, session=session)


def test_a_token_ends_with_every_account_change(db_session_factory: sessionmaker[Session]) -> None:
    with db_session_factory.begin() as session:
        root = users.create_user("root", "admin", PASSWORD, session=session)
        dana = users.create_user("dana", "drafter", PASSWORD, session=session)

    def token_now() -> str:
        with db_session_factory() as session:
            user = users.get_user("dana", session=session)
            assert user is not None
            token = sessions.issue(user, key=KEY, now=NOW)
            valid = _restore(token, session).user == user
            assert valid != user.disabled  # good until the change (none while disabled)
            return token

    token = sessions.issue(dana, key=KEY, now=NOW)
    with db_session_factory() as session:
        assert _restore(token, session).user == dana
        assert _restore(token, session, now=NOW + IDLE + 1).ended == "expired"
        assert _restore(token + "x", session).ended == "invalid"
    changes = [
        lambda s: accounts.set_user_disabled("dana", True, session=s, actor=root),
        lambda s: accounts.set_user_disabled("dana", False, session=s, actor=root),
        lambda s: accounts.reset_user_password("dana", session=s, actor=root),
        lambda s: sessions.end_everywhere(dana, session=s),  # signing out
        lambda s: s.execute(text("UPDATE users SET role = 'admin' WHERE name = 'dana'")),
    ]
    ended = []
    for change in changes:
        token = token_now()
        with db_session_factory.begin() as session:
            change(session)
        with db_session_factory() as session:
            ended.append(_restore(token, session).ended)
    assert ended == ["disabled", "credentials", "credentials", "credentials", "credentials"]


def test_recheck_signs_out_or_downgrades_at_once(
    db_session_factory: sessionmaker[Session],
) -> None:
    with db_session_factory.begin() as session:
        root = users.create_user("root", "admin", PASSWORD, session=session)
        dana = users.create_user("dana", "admin", PASSWORD, session=session)

    def recheck(last_seen: float | None = NOW) -> sessions.Checked:
        with db_session_factory() as session:
            return sessions.recheck(
                dana, last_seen=last_seen, now=NOW + 60, idle_s=IDLE, session=session
            )

    assert recheck() == sessions.Checked(dana)
    assert recheck(last_seen=NOW - IDLE).ended == "expired"
    with db_session_factory.begin() as session:  # demoted by an admin: at once
        accounts.set_user_role("dana", "drafter", session=session, actor=root)
    downgraded = recheck()
    assert downgraded.role_changed and downgraded.user is not None
    assert downgraded.user.role == "drafter" and not accounts.has_role(downgraded.user, "admin")
    with db_session_factory.begin() as session:
        accounts.set_user_disabled("dana", True, session=session, actor=root)
    assert recheck() == sessions.Checked(None, "disabled")
