"""Sign-in page: username + password; a one-time password must be changed before use."""

from __future__ import annotations

import streamlit as st

from app import accounts
from app.domain import describe
from app.pages.plain_text import plain
from app.pages.session_gate import NOTICE
from app.pages.ui_state import context, current_user, lang, tr
from audit.domain import User


def _sign_in_form() -> None:
    st.title(tr("auth.title"))
    st.caption(tr("auth.intro"))
    with st.form("sign_in"):
        name = st.text_input(tr("auth.username"), key="auth.name")
        password = st.text_input(tr("auth.password"), type="password", key="auth.password")
        submitted = st.form_submit_button(tr("auth.submit"), type="primary")
    if not submitted:
        return
    if not name.strip() or not password:
        st.error(tr("auth.missing"))
        return
    try:
        with context().session() as session:
            user = accounts.sign_in(name.strip(), password, session=session)
    except accounts.SignInError as exc:
        st.error(plain(exc.message(lang())))
        return
    except Exception as exc:  # noqa: BLE001 - database unreachable etc.: a message, never a traceback
        st.error(tr("auth.failed", detail=describe(exc).text(lang())))
        return
    accounts.remember(st.session_state, user)
    st.rerun()


def _change_password_form(user: User) -> None:
    st.title(tr("auth.change_title"))
    st.info(tr("auth.change_intro"))
    st.caption(tr("auth.one_time_help"))
    with st.form("change_password"):
        old = st.text_input(tr("auth.one_time_password"), type="password", key="auth.old")
        new = st.text_input(tr("auth.new_password"), type="password", key="auth.new")
        again = st.text_input(tr("auth.new_password_again"), type="password", key="auth.again")
        submitted = st.form_submit_button(tr("auth.change_submit"), type="primary")
    if not submitted:
        return
    if new != again:
        st.error(tr("auth.mismatch"))
        return
    try:
        with context().session() as session:
            updated = accounts.change_password(old, new, session=session, actor=user)
    except Exception as exc:  # noqa: BLE001 - too short, wrong old password, ...: the service explains
        st.error(plain(describe(exc).text(lang())))
        return
    accounts.remember(st.session_state, updated)
    st.session_state[NOTICE] = "password_changed"  # said once, on the page that opens next
    st.rerun()


def render() -> None:
    user = current_user()
    if user is not None and user.must_change_password:
        _change_password_form(user)
    else:
        _sign_in_form()
