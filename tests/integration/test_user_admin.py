"""Account administration (issue #11.12, #16.7): names unique regardless of case and free of
control characters; an admin disables, enables and resets accounts; a reset password must
be changed at the next sign-in, and the change form says it wants the one-time password."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from app import accounts
from app.database import session_scope
from audit import store, users
from audit.users import UserError
from tests.conftest import app_session
from tests.page_markdown import shown as as_text

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cheap_argon2")]
PASSWORD = "correct horse"


def test_names_are_unique_regardless_of_case(db_session_factory: sessionmaker[Session]) -> None:
    with db_session_factory.begin() as session:
        users.create_user("Alice", "drafter", PASSWORD, session=session)
    for taken in ("alice", "ALICE", "ａｌｉｃｅ"):  # fullwidth letters fold to the same key
        with db_session_factory.begin() as session, pytest.raises(UserError) as caught:
            users.create_user(taken, "drafter", PASSWORD, session=session)
        assert caught.value.code == "name_taken"
    with db_session_factory() as session:
        assert users.authenticate("alice", PASSWORD, session=session) is not None


@pytest.mark.parametrize("name", ["al\x00ice", "bob\u200b", "a\tb", "x\x1b[31m", "eve\u202e"])
def test_names_with_control_characters_are_refused(
    name: str, db_session_factory: sessionmaker[Session]
) -> None:
    with db_session_factory.begin() as session, pytest.raises(UserError) as caught:
        users.create_user(name, "drafter", PASSWORD, session=session)
    assert caught.value.code == "bad_name"


def test_admin_disables_enables_and_resets(db_session_factory: sessionmaker[Session]) -> None:
    with db_session_factory.begin() as session:
        admin = users.create_user("root", "admin", PASSWORD, session=session)
        drafter = users.create_user("dana", "drafter", PASSWORD, session=session)
    with db_session_factory.begin() as session:
        with pytest.raises(accounts.PermissionDenied):
            accounts.set_user_disabled("root", True, session=session, actor=drafter)
        with pytest.raises(UserError, match="your own"):
            accounts.set_user_disabled("root", True, session=session, actor=admin)
        assert accounts.set_user_disabled("dana", True, session=session, actor=admin).disabled
    with db_session_factory() as session, pytest.raises(accounts.SignInError):
        accounts.sign_in("dana", PASSWORD, session=session, throttle=accounts.FailureThrottle())
    with db_session_factory.begin() as session:
        accounts.set_user_disabled("dana", False, session=session, actor=admin)
        one_time = accounts.reset_user_password("dana", session=session, actor=admin)
    throttle = accounts.FailureThrottle()
    with session_scope(db_session_factory) as session, pytest.raises(accounts.SignInError):
        accounts.sign_in("dana", PASSWORD, session=session, throttle=throttle)  # old password
    with session_scope(db_session_factory) as session:
        back = accounts.sign_in("dana", one_time, session=session, throttle=throttle)
        assert back.must_change_password and not back.disabled
        changed = accounts.change_password(
            one_time, "my own passphrase", session=session, actor=back
        )
        assert not changed.must_change_password
    with db_session_factory() as session:
        kinds = [e.kind for e in store.list_events(session=session)]
    assert kinds[:4] == [
        "user.password_changed",
        "user.password_reset",
        "user.enabled",
        "user.disabled",
    ]


def _users_page() -> None:
    from app.pages import users as users_page

    users_page.render()


def test_users_page_reset_then_change_form_asks_for_the_one_time_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from streamlit.testing.v1 import AppTest

    from app import database
    from app.config import get_settings

    monkeypatch.setenv("LEXSPEC_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("LEXSPEC_DATABASE_URL", f"sqlite:///{tmp_path / 'app.db'}")
    monkeypatch.setenv("LEXSPEC_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    get_settings.cache_clear()
    database.reset()
    try:
        with app_session() as session:
            admin = users.create_user("root", "admin", PASSWORD, session=session)
            users.create_user("dana", "drafter", PASSWORD, session=session)
        main = str(Path(__file__).resolve().parents[2] / "app" / "main.py")
        at = AppTest.from_function(_users_page, default_timeout=60)
        at.session_state["lang"] = "en"
        at.session_state["lexspec_user"] = admin
        at.run()
        assert not at.exception
        at.selectbox(key="users.manage_name").select("dana")
        next(b for b in at.button if b.label == "Reset password").click().run()
        shown = " ".join(as_text(i.value) for i in at.info)  # as the browser shows it
        assert "New one-time password for dana" in shown
        one_time = shown.split("(shown once): ")[1].split(".")[0]

        at = AppTest.from_file(main, default_timeout=60)
        at.session_state["lang"] = "en"
        at.run()
        at.text_input(key="auth.name").input("dana")
        at.text_input(key="auth.password").input(one_time)
        at.button[0].click().run()
        assert at.title[0].value == "Choose a new password"
        assert "one-time password" in at.text_input(key="auth.old").label
    finally:
        get_settings.cache_clear()
        database.reset()
