"""Standing attacker suite: sessions and pages (real database, AppTest).

Each test names the attack and what must hold. Already standing elsewhere, not repeated
here: a forged or role-edited sign-in token, one signed with another key, and a token
replayed after sign-out, disable, a password reset or a role change (tests/integration/
test_sessions.py); 20 concurrent wrong passwords (test_sign_in_throttle.py); the chained
sign-out and the baseline of migration 0011 (test_account_coverage.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from app import accounts
from app.accounts import sessions
from audit import store, users
from tests.integration.test_pages_apptest import app_env, make_user, page_as

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cheap_argon2")]
__all__ = ["app_env"]
KEY = bytes(range(32))
NOW = 1_800_000_000.0
IDLE = 8 * 3600.0
PASSWORD = "correct horse"


def test_attack_db_promotion_ends_the_live_session_and_the_token(
    db_engine: Engine, db_session_factory: sessionmaker[Session]
) -> None:
    """Database attacker: `UPDATE users SET role='admin'` for a signed-in drafter. Must hold:
    the next page run signs her out (no admin page run), her cookie's token no longer
    restores, and signing in again is refused while the row differs from the chain."""
    with db_session_factory.begin() as session:
        users.create_user("root", "admin", PASSWORD, session=session)
        dana = users.create_user("dana", "drafter", PASSWORD, session=session)
    token = sessions.issue(dana, key=KEY, now=NOW)
    with db_engine.begin() as conn:
        conn.execute(text("UPDATE users SET role = 'admin' WHERE name = 'dana'"))
    with db_session_factory() as session:
        live = sessions.recheck(dana, last_seen=NOW, now=NOW + 60, idle_s=IDLE, session=session)
        restored = sessions.restore(token, key=KEY, now=NOW + 60, idle_s=IDLE, session=session)
    assert live == sessions.Checked(None, "credentials")
    assert restored.user is None
    with db_session_factory() as session, pytest.raises(accounts.SignInError) as refused:
        accounts.sign_in("dana", PASSWORD, session=session)
    assert "changed outside LexSpec" in refused.value.message_en


def _uncovered(factory: sessionmaker[Session]) -> list[tuple[str, int]]:
    with factory() as session:
        report = store.verify_chain(session=session)
    assert report.first_bad is None  # the chain itself is intact
    return [(f.table, f.id) for f in report.uncovered]


def test_attack_db_lowered_credential_version_revives_no_token(
    db_engine: Engine, db_session_factory: sessionmaker[Session]
) -> None:
    """Database attacker: after dana signs out, `UPDATE users SET credential_version =
    credential_version - 1` to bring her old token back. Must hold: `lexspec audit verify`
    reports her account, and the token made before the sign-out still does not restore."""
    with db_session_factory.begin() as session:
        dana = users.create_user("dana", "drafter", PASSWORD, session=session)
    token = sessions.issue(dana, key=KEY, now=NOW)
    with db_session_factory.begin() as session:
        sessions.end_everywhere(dana, session=session)
    assert _uncovered(db_session_factory) == []
    with db_engine.begin() as conn:
        conn.execute(
            text("UPDATE users SET credential_version = credential_version - 1 WHERE id = :id"),
            {"id": dana.id},
        )
    with db_session_factory() as session:
        assert users.get_user_by_id(dana.id, session=session) == dana  # the version is back
        restored = sessions.restore(token, key=KEY, now=NOW + 60, idle_s=IDLE, session=session)
    assert restored == sessions.Checked(None, "credentials")
    assert _uncovered(db_session_factory) == [("users", dana.id)]


def test_sign_out_of_an_account_changed_outside_still_ends_its_sessions(
    db_engine: Engine, db_session_factory: sessionmaker[Session]
) -> None:
    """Database attacker: the password hash of a signed-in drafter is replaced in the database;
    she signs out. Must hold: her sessions end all the same, no event is chained about the
    row (its digest never absorbs the change) and verify keeps reporting it."""
    with db_session_factory.begin() as session:
        dana = users.create_user("dana", "drafter", PASSWORD, session=session)
    token = sessions.issue(dana, key=KEY, now=NOW)
    with db_engine.begin() as conn:
        conn.execute(text("UPDATE users SET password_hash = 'x' WHERE id = :id"), {"id": dana.id})
    with db_session_factory() as session:
        events = len(store.list_events(session=session))
    with db_session_factory.begin() as session:
        sessions.end_everywhere(dana, session=session)
    with db_session_factory() as session:
        live = sessions.recheck(dana, last_seen=NOW, now=NOW + 60, idle_s=IDLE, session=session)
        restored = sessions.restore(token, key=KEY, now=NOW + 60, idle_s=IDLE, session=session)
        assert len(store.list_events(session=session)) == events
    assert live == restored == sessions.Checked(None, "credentials")
    assert _uncovered(db_session_factory) == [("users", dana.id)]


def test_a_promotion_by_an_admin_still_applies_at_once(
    db_session_factory: sessionmaker[Session],
) -> None:
    """The legitimate path the previous test must not break: an admin's promotion goes on."""
    with db_session_factory.begin() as session:
        root = users.create_user("root", "admin", PASSWORD, session=session)
        dana = users.create_user("dana", "drafter", PASSWORD, session=session)
    with db_session_factory.begin() as session:
        accounts.set_user_role("dana", "admin", session=session, actor=root)
    with db_session_factory() as session:
        live = sessions.recheck(dana, last_seen=NOW, now=NOW + 60, idle_s=IDLE, session=session)
    assert live.role_changed and live.user is not None and live.user.role == "admin"


def _draft() -> None:
    from app.pages import draft

    draft.render()


def _history() -> None:
    from app.pages import history

    history.render()


def _studies() -> None:
    from app.pages import studies

    studies.render()


def _results() -> None:
    from app.pages import results

    results.render()


def _monitor() -> None:
    from app.pages import monitor

    monitor.render()


def _users() -> None:
    from app.pages import users

    users.render()


def _matters() -> None:
    from app.pages import matters

    matters.render()


def _docreview() -> None:
    from app.pages import docreview

    docreview.render()


FORBIDDEN_TO_A_REVIEWER = {
    "drafting": _draft,
    "generations": _history,
    "review-studies": _studies,
    "study-results": _results,
    "metrics": _monitor,
    "accounts": _users,
    "matters": _matters,
    "document-review": _docreview,
}


def test_every_page_a_reviewer_may_not_see_is_listed() -> None:
    from app.main import PAGES

    assert set(FORBIDDEN_TO_A_REVIEWER) == {s.url_path for s in PAGES if "reviewer" not in s.roles}


@pytest.mark.parametrize("url_path", sorted(FORBIDDEN_TO_A_REVIEWER))
def test_attack_a_reviewer_opens_a_drafter_or_admin_page_by_url(
    url_path: str, app_env: Path
) -> None:
    """A reviewer types /drafting, /accounts, ... (the page runs its own render). Must hold: the
    page says the role may not open it and draws nothing else: no form, table or chart."""
    reviewer = make_user("lawyer_li", "reviewer")
    make_user("root", "admin")
    at = page_as(FORBIDDEN_TO_A_REVIEWER[url_path], reviewer)
    assert not at.exception
    assert [e.value for e in at.error] == ["Your role may not open this page."]
    assert not at.text_input and not at.text_area and not at.button and not at.dataframe
    assert not at.title
