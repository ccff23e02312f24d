"""Sessions and the Users page with AppTest against a real temp database (issue 20 item 5 and
the Users page): an admin disables, resets or demotes a signed-in user from another session and
that user's next interaction signs them out (or downgrades them) with a message; an idle session
expires; the Users table shows a change at once; disabling yourself is not called an add."""

from __future__ import annotations

import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

from app import accounts
from tests.conftest import app_session
from tests.integration.test_pages_apptest import (  # noqa: F401 - app_env is a fixture
    MAIN,
    app_env,
    make_user,
)


def _signed_in(user: object) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.session_state["lang"] = "en"
    at.session_state["lexspec_user"] = user
    return at.run()


def _users_page() -> None:
    from app.pages import users

    users.render()


def _admin_clicks(admin: object, name: str, label: str) -> AppTest:
    """In the admin's own session: the Users page, pick `name`, click `label`."""
    at = AppTest.from_function(_users_page, default_timeout=60)
    at.session_state["lang"] = "en"
    at.session_state["lexspec_user"] = admin
    at.run()
    assert at.title[0].value == "Users"
    at.selectbox(key="users.manage_name").select(name)
    next(b for b in at.button if b.label == label).click().run()
    assert not at.exception
    return at


def _state_of(at: AppTest, name: str) -> str:
    table = next(d for d in at.dataframe if "State" in d.value.columns)
    return str(table.value.set_index("Username").loc[name, "State"])


def _warnings(at: AppTest) -> str:
    return " ".join(w.value for w in at.warning)


def test_disabling_a_signed_in_user_signs_them_out_at_their_next_click(app_env: Path) -> None:  # noqa: F811
    root, dana = make_user("root", "admin"), make_user("dana", "drafter")
    dana_at = _signed_in(dana)
    assert dana_at.title[0].value == "Draft"
    admin_at = _admin_clicks(root, "dana", "Disable")
    assert any("dana is disabled" in s.value for s in admin_at.success)
    assert _state_of(admin_at, "dana") == "disabled"  # at once, not after leaving the page

    next(b for b in dana_at.button if b.key == "draft.fill").click().run()  # her next click
    assert not dana_at.exception
    assert "An administrator disabled your account" in _warnings(dana_at)
    assert dana_at.title[0].value == "Sign in to LexSpec"
    assert "lexspec_user" not in dana_at.session_state

    _admin_clicks(root, "dana", "Enable")  # enabled again: the old session stays ended
    dana_at.run()
    assert dana_at.title[0].value == "Sign in to LexSpec"


def test_a_password_reset_ends_the_session_and_a_demotion_applies_at_once(
    app_env: Path,  # noqa: F811
) -> None:
    root, dana, eve = (
        make_user("root", "admin"),
        make_user("dana", "drafter"),
        make_user("eve", "admin"),
    )
    dana_at, eve_at = _signed_in(dana), _signed_in(eve)
    _admin_clicks(root, "dana", "Reset password")
    dana_at.run()
    assert "Your session has ended" in _warnings(dana_at)
    assert dana_at.title[0].value == "Sign in to LexSpec"

    with app_session() as session:  # eve is demoted by an admin
        accounts.set_user_role("eve", "reviewer", session=session, actor=root)
    eve_at.run()
    assert "changed your role to reviewer" in _warnings(eve_at)
    # she was on the Draft page at "/": a reviewer's "/" is her own first page, at once
    assert eve_at.title[0].value == "Blind review" and not eve_at.error
    assert not eve_at.text_area and not any(b.key == "draft.go" for b in eve_at.button)
    assert eve_at.session_state["lexspec_user"].role == "reviewer"


def test_an_idle_session_expires(app_env: Path) -> None:  # noqa: F811
    at = _signed_in(make_user("dana", "drafter"))
    assert at.title[0].value == "Draft"
    at.session_state["lexspec_seen"] = time.time() - 9 * 3600  # default limit: 8 hours
    at.run()
    assert "signed out after 8 hours without activity" in _warnings(at)
    assert at.title[0].value == "Sign in to LexSpec"


def test_disabling_yourself_is_refused_as_a_change_not_an_add(app_env: Path) -> None:  # noqa: F811
    root = make_user("root", "admin")
    at = _admin_clicks(root, "root", "Disable")
    (error,) = [e.value for e in at.error]
    assert error.startswith("Could not change the account:") and "your own account" in error
    assert "add" not in error.lower()
    assert _state_of(at, "root") == "active"
