"""The session gate main.py runs before anything is drawn: re-read the signed-in account on
every page run (app.accounts.sessions), bring a reload's user back from the session cookie, and keep
that cookie (a signed, expiring token) fresh while the user works.

Streamlit can read cookies (`st.context.cookies`, as the browser sent them when the page
loaded) but not set them; a one-line script in the sidebar (`st.html`, JavaScript allowed
for this fixed text only) sets or removes it.
"""

from __future__ import annotations

import logging
import time

import streamlit as st

from app import accounts
from app.accounts import sessions
from app.pages.ui_state import db_session, settings, tr
from audit.domain import User

COOKIE = "lexspec_session"
SEEN = "lexspec_seen"  # time of this session's last page run (idle limit)
ISSUED = "lexspec_token"  # (issued at, credential version, role, token) now in the cookie
NOTICE = "lexspec_session_notice"  # why the session ended or changed, shown once
NO_RESTORE = "lexspec_no_restore"  # signed out in this browser tab: ignore the page-load cookie
FORGET = "lexspec_forget_cookie"  # remove the cookie at the next run
REFRESH_S = 300.0  # re-issue the token at most this often while the user works
log = logging.getLogger(__name__)


def _idle_s() -> float:
    return settings().session_idle_hours * 3600.0


def _key() -> bytes:
    return sessions.session_key(settings().resolved_session_key_file)


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
        with db_session() as session:
            if user is not None:
                seen = state.get(SEEN)
                checked = sessions.recheck(
                    user, last_seen=seen, now=now, idle_s=_idle_s(), session=session
                )
            else:
                checked = sessions.restore(
                    token or "", key=_key(), now=now, idle_s=_idle_s(), session=session
                )
    except Exception as exc:  # database unreachable: the page says so; the session is not ended
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
    """Why the last session ended (on the sign-in page) or that the role changed, once."""
    notice = st.session_state.pop(NOTICE, None)
    if notice == "role_changed" and user is not None:
        st.warning(tr("session.role_changed", role=tr(f"role.{user.role}")))
    elif notice is not None:
        st.warning(tr(f"session.ended_{notice}", hours=settings().session_idle_hours))


def _script(body: str) -> None:
    st.html(f"<script>{body}</script>", unsafe_allow_javascript=True)


def keep_cookie(user: User | None) -> None:
    """Inside the sidebar: the cookie holds a fresh token while signed in (re-issued every
    REFRESH_S of use, and drawn on every run: a run cut short by a page switch may never have
    shown it), and is removed after signing out."""
    state, now = st.session_state, time.time()
    if user is None:
        if state.pop(FORGET, None):
            _script(f'document.cookie = "{COOKIE}=; path=/; max-age=0; SameSite=Strict";')
        return
    issued = state.get(ISSUED)
    current = (user.credential_version, user.role)
    if issued is None or issued[1:3] != current or now - issued[0] >= REFRESH_S:
        try:
            issued = (now, *current, sessions.issue(user, key=_key(), now=now))
        except (OSError, ValueError) as exc:  # the session goes on; only a reload would lose it
            log.warning("session cookie not set: %s", exc)
            return
        state[ISSUED] = issued
    secure = '(location.protocol === "https:" ? "; Secure" : "")'
    _script(
        f'document.cookie = "{COOKIE}={issued[3]}; path=/; max-age={int(_idle_s())}; '
        f'SameSite=Strict" + {secure};'
    )


def sign_out() -> None:
    """Sidebar callback: end this account's sessions everywhere, then forget it here."""
    user = accounts.current_user(st.session_state)
    if user is not None:
        try:
            with db_session() as session:
                sessions.end_everywhere(user, session=session)
        except Exception:  # database down: this browser still forgets the user and the cookie
            pass
    end(None)
