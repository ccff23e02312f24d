"""The session gate main.py runs before anything is drawn: re-read the signed-in account on
every page run (app.accounts.sessions), bring a reload's user back from the session cookie, and keep
that cookie (a signed, expiring token) fresh while the user works.

Streamlit can read cookies (`st.context.cookies`, as the browser sent them when the page
loaded) but not set them; the web server sets the cookie, HttpOnly, when a fixed one-line
script in the sidebar (`st.html`, JavaScript allowed for this fixed text only) hands it a
one-time code for it (app/accounts/handoff.py; the route: app/web.py). The token never
appears in the page.
"""

from __future__ import annotations

import logging
import time

import streamlit as st

from app import accounts
from app.accounts import sessions
from app.accounts.handoff import COOKIE, HANDOFF_PATH, HANDOFFS
from app.pages.ui_state import context, tr
from audit.domain import User

SEEN = "lexspec_seen"  # time of this session's last page run (idle limit)
ISSUED = "lexspec_token"  # (issued at, credential version, role, its handoff code)
NOTICE = "lexspec_session_notice"  # why the session ended or changed, shown once
NO_RESTORE = "lexspec_no_restore"  # signed out in this browser tab: ignore the page-load cookie
FORGET = "lexspec_forget_cookie"  # remove the cookie at the next run
REFRESH_S = 300.0  # re-issue the token at most this often while the user works
log = logging.getLogger(__name__)


def _idle_s() -> float:
    return context().settings.session_idle_hours * 3600.0


def _key() -> bytes:
    return sessions.session_key(context().settings.resolved_session_key_file)


def end(ended: str | None) -> None:
    """Forget the user and everything they had on screen (the language stays); say why."""
    for key in list(st.session_state):
        if key != "lang":
            del st.session_state[key]
    _forget_cookie(ended)


def _forget_cookie(ended: str | None) -> None:
    """Ignore this tab's page-load cookie from now on, remove it, and say why (once)."""
    st.session_state[NO_RESTORE] = True
    st.session_state[FORGET] = True
    if ended is not None and ended != "invalid":
        st.session_state[NOTICE] = ended


def _cookie_token() -> str | None:
    """The session cookie the browser sent when this page loaded (a string, or None)."""
    if st.session_state.get(NO_RESTORE):
        return None
    token = st.context.cookies.get(COOKIE)
    return token if isinstance(token, str) and token else None


def signed_in_user() -> User | None:
    """The user of this page run, re-read from the database; None when nobody is signed in or
    the session just ended (disabled, credentials changed, idle too long)."""
    state, now = st.session_state, time.time()
    user = accounts.current_user(state)
    token = None if user is not None else _cookie_token()
    if user is None and token is None:
        return None
    try:
        with context().session() as session:
            if user is not None:
                seen = state.get(SEEN)
                checked = sessions.recheck(
                    user, last_seen=seen, now=now, idle_s=_idle_s(), session=session
                )
            else:
                checked = sessions.restore(
                    token or "", key=_key(), now=now, idle_s=_idle_s(), session=session
                )
    except Exception as exc:  # noqa: BLE001 - database unreachable: the page says so; the session is not ended
        log.warning("session not re-checked: %s", exc)
        return user
    if checked.user is None:
        if user is not None:
            end(checked.ended)
        else:
            _forget_cookie(checked.ended)
        return None
    accounts.remember(state, checked.user)
    state[SEEN] = now
    if checked.role_changed:
        state[NOTICE] = "role_changed"
    return checked.user


def show_notice(user: User | None) -> None:
    """Why the last session ended (on the sign-in page), that the role changed, or that the
    password was changed, once."""
    notice = st.session_state.pop(NOTICE, None)
    if notice == "password_changed" and user is not None:
        st.success(tr("auth.password_changed"), icon=":material/check_circle:")
    elif notice == "role_changed" and user is not None:
        st.warning(tr("session.role_changed", role=tr(f"role.{user.role}")))
    elif notice is not None:
        st.warning(tr(f"session.ended_{notice}", hours=context().settings.session_idle_hours))


def _offer(token: str | None) -> str:
    """A one-time code for the web server to set the cookie to `token` (None: remove it)."""
    return HANDOFFS.offer(token, max_age=int(_idle_s()), now=time.time())


def _hand_off(code: str) -> None:
    """The fixed script that hands `code` (letters, digits, - and _ only) to the web server,
    which sets the cookie HttpOnly. Drawn alike on every run while the code is the same: the
    browser runs it once (again only if the sidebar is drawn anew, and then the used code is
    refused, harmlessly)."""
    script = (
        f'fetch("{HANDOFF_PATH}", {{method: "POST", body: "{code}", '
        'credentials: "same-origin", cache: "no-store"});'
    )
    st.html(f"<script>{script}</script>", unsafe_allow_javascript=True)


def keep_cookie(user: User | None) -> None:
    """Inside the sidebar: the cookie holds a fresh token while signed in (re-issued every
    REFRESH_S of use, and drawn on every run: a run cut short by a page switch may never have
    shown it), and is removed after signing out."""
    state, now = st.session_state, time.time()
    if user is None:
        if state.pop(FORGET, None):
            _hand_off(_offer(None))
        return
    issued = state.get(ISSUED)
    current = (user.credential_version, user.role)
    if issued is None or issued[1:3] != current or now - issued[0] >= REFRESH_S:
        try:
            token = sessions.issue(user, key=_key(), now=now)
        except (OSError, ValueError) as exc:  # the session goes on; only a reload would lose it
            log.warning("session cookie not set: %s", exc)
            return
        issued = state[ISSUED] = (now, *current, _offer(token))
    _hand_off(issued[3])


def sign_out() -> None:
    """Sidebar callback: end this account's sessions everywhere, then forget it here."""
    user = accounts.current_user(st.session_state)
    if user is not None:
        try:
            with context().session() as session:
                sessions.end_everywhere(user, session=session)
        except Exception:  # noqa: BLE001 - database down: this browser still forgets the user and the cookie
            pass
    end(None)
