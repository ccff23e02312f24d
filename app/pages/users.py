"""Users page (admin): add an account with a one-time password, list the accounts."""

from __future__ import annotations

import streamlit as st

from app import accounts
from app.i18n import t
from app.pages.draft_run import message_of
from app.ui_state import lang, require_user, tr
from audit.domain import User


def _add_form(admin: User) -> None:
    st.subheader(tr("users.add"))
    with st.form("users.add", clear_on_submit=True):
        name = st.text_input(tr("users.name"))
        ui_lang = lang()
        role = st.selectbox(
            tr("users.role"), accounts.ROLES, format_func=lambda r: t(f"role.{r}", ui_lang)
        )
        password = st.text_input(tr("users.password"), type="password")
        submitted = st.form_submit_button(tr("users.submit"), type="primary")
    if not submitted:
        return
    try:
        created, generated = accounts.add_user(admin, name, role, password or None)
    except Exception as exc:  # bad name, weak password, taken name: the service explains
        st.error(tr("users.failed", detail=message_of(exc, lang())))
        return
    st.success(tr("users.added", name=created.name, role=tr(f"role.{created.role}")))
    if generated:
        st.info(tr("users.one_time_password", password=generated))


def render() -> None:
    user = require_user("admin")
    accounts.require_role(user, "admin")
    st.title(tr("users.title"))
    _add_form(user)
    st.subheader(tr("users.list"))
    everyone = accounts.list_users(user)
    st.dataframe(
        [{tr("users.name"): u.name, tr("users.role"): tr(f"role.{u.role}")} for u in everyone],
        hide_index=True,
    )
