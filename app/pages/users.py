"""Users page (admin): add an account with a one-time password, list the accounts, disable or
enable one, reset a password (the user must change it at the next sign-in)."""

from __future__ import annotations

import streamlit as st

from app import accounts
from app.domain import Role, describe
from app.i18n import t
from app.pages.ui_state import context, lang, require_user, tr
from audit.domain import User


def _add_form(admin: User) -> None:
    st.subheader(tr("users.add"))
    with st.form("users.add", clear_on_submit=True):
        name = st.text_input(tr("users.name"))
        ui_lang = lang()
        roles: tuple[Role, ...] = tuple(Role)  # typed: st.selectbox infers nothing from tuple(Role)
        role = st.selectbox(tr("users.role"), roles, format_func=lambda r: t(f"role.{r}", ui_lang))
        password = st.text_input(tr("users.password"), type="password")
        submitted = st.form_submit_button(tr("users.submit"), type="primary")
    if not submitted:
        return
    try:
        with context().session() as session:
            created, generated = accounts.add_user(
                name, role, password or None, session=session, actor=admin
            )
    except Exception as exc:  # noqa: BLE001 - bad name, weak password, taken name: the service explains
        st.error(tr("users.failed", detail=describe(exc).text(lang())))
        return
    st.success(tr("users.added", name=created.name, role=tr(f"role.{created.role}")))
    if generated:
        st.info(tr("users.one_time_password", password=generated))


def _manage_form(admin: User, everyone: list[User]) -> None:
    """Disable / enable an account, or reset its password to a one-time one (drawn before the
    table, which is read after it, so the table shows the change at once)."""
    st.subheader(tr("users.manage"))
    names = [u.name for u in everyone]
    with st.form("users.manage"):
        name = st.selectbox(tr("users.name"), names, key="users.manage_name")
        cols = st.columns(3)
        disable = cols[0].form_submit_button(tr("users.disable"))
        enable = cols[1].form_submit_button(tr("users.enable"))
        reset = cols[2].form_submit_button(tr("users.reset"))
    if not (disable or enable or reset) or name is None:
        return
    try:
        with context().session() as session:
            if reset:
                password = accounts.reset_user_password(name, session=session, actor=admin)
            else:
                accounts.set_user_disabled(name, disable, session=session, actor=admin)
    except Exception as exc:  # noqa: BLE001 - unknown user, disabling oneself: the service explains
        st.error(tr("users.manage_failed", detail=describe(exc).text(lang())))
        return
    if reset:
        st.info(tr("users.reset_done", name=name, password=password))
    else:
        st.success(tr("users.disabled_done" if disable else "users.enabled_done", name=name))


def render() -> None:
    ctx = context()
    user = require_user(Role.ADMIN)
    accounts.require_role(user, Role.ADMIN)
    st.title(tr("users.title"))
    _add_form(user)
    with ctx.session() as session:
        before = accounts.list_users(session=session, actor=user)
    _manage_form(user, before)
    with ctx.session() as session:  # read again: the table shows what the form just changed
        everyone = accounts.list_users(session=session, actor=user)
    st.subheader(tr("users.list"))
    st.dataframe(
        [
            {
                tr("users.name"): u.name,
                tr("users.role"): tr(f"role.{u.role}"),
                tr("users.state"): tr(
                    "users.state_disabled" if u.disabled else "users.state_active"
                ),
                tr("users.must_change"): tr("users.yes") if u.must_change_password else "",
            }
            for u in everyone
        ],
        hide_index=True,
    )
