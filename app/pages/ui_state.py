"""Small non-widget helpers shared by the pages: the acting context (`context()`: the
installation's Settings, its database, the signed-in user), cached factories, the UI
language. The one place the pages read Settings (app.config.get_settings); nothing here draws
widgets except `require_user`'s refusal."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from app.config import Settings, get_settings
from app.domain import Role
from app.i18n import DEFAULT_LANG, LANGUAGES, t
from audit.domain import User

if TYPE_CHECKING:  # the factories import these lazily, at first use
    from sqlalchemy.orm import Session, sessionmaker  # noqa: TID251 (types of the factories)

    from app.context import Context
    from app.llm.client import OpenAIClient
    from app.prompts import Library


def settings() -> Settings:
    """The installation's Settings (read once per process by app.config)."""
    return get_settings()


def context() -> Context:
    """The acting context of this run of a page: the Settings, the installation's database
    (opened once per process by app.database) and the signed-in user (None before sign-in)."""
    from app.context import Context

    return Context(settings(), actor=current_user())


def lang() -> str:
    """The UI language of this session (sidebar switch), defaulting to Settings.lang."""
    value = st.session_state.get("lang")
    if value not in LANGUAGES:
        value = settings().lang if settings().lang in LANGUAGES else DEFAULT_LANG
        st.session_state["lang"] = value
    return str(value)


def tr(key: str, **values: object) -> str:
    """`t` in this session's language, every value filled in as text (`plain`: a name, a
    comment or an error quoting a form value never becomes Markdown); numbers stay numbers,
    for the strings' number formats."""
    from app.pages.plain_text import plain

    shown = {k: v if isinstance(v, int | float) else plain(v) for k, v in values.items()}
    return t(key, lang(), **shown)


@st.cache_resource(show_spinner=False)
def _library(prompts_dir: str) -> Library:
    from app.prompts import load_library

    return load_library(Path(prompts_dir))


def library() -> Library:
    """The prompt library (document types), loaded once per prompts directory."""
    return _library(str(settings().prompts_dir))


@st.cache_resource(show_spinner=False)
def _outline_problems(prompts_dir: str, corpus_dir: str, statutes_file: str) -> list[str]:
    from app.outline.prepare import load_outlines

    return load_outlines(
        Path(prompts_dir),
        _library(prompts_dir).types,
        corpus_dir=Path(corpus_dir),
        statutes_file=Path(statutes_file) if statutes_file else None,
    ).errors


def outline_problems() -> list[str]:
    """Broken outlines (prompts/<type>/outline.yaml), each named by its type."""
    s = settings()
    statutes = str(s.statutes_file) if s.statutes_file is not None else ""
    return _outline_problems(str(s.prompts_dir), str(s.resolved_corpus_dir), statutes)


@st.cache_resource(show_spinner=False)
def _client(name: str, base_url: str, model: str | None) -> OpenAIClient:
    from app.llm.client import make_client

    return make_client(name, settings())


def client(name: str) -> OpenAIClient:
    """An LLM client for a named endpoint, cached per (name, URL, model)."""
    endpoint = settings().all_endpoints()[name]
    return _client(name, endpoint.base_url, endpoint.model)


def endpoint_names() -> list[str]:
    return list(settings().all_endpoints())


def active_endpoint() -> str:
    """The endpoint new requests go to (`lexspec endpoints switch` changes it, blue/green)."""
    from app.llm.router import Router

    return Router.from_settings(settings()).active


def chosen_endpoint() -> str:
    """The endpoint picked in the sidebar (the router's active one until the user picks)."""
    names = endpoint_names()
    value = st.session_state.get("endpoint")
    return str(value) if value in names else active_endpoint()


@contextmanager
def db_session() -> Iterator[Session]:
    """One unit of work on the installation's database (migrated on first use). It does not
    read the signed-in user, so it also works where session_state cannot be read (a run's
    `finally` after Stop)."""
    from app.database import get_session_factory, session_scope

    with session_scope(get_session_factory(settings())) as session:
        yield session


def keep_widget_values(*prefixes: str) -> None:
    """Keep form values while the user visits another page.

    Streamlit forgets a widget's value when a run does not draw it; assigning the value
    back through session_state on every run keeps it (the documented workaround).
    """
    for key in list(st.session_state):
        if isinstance(key, str) and key.startswith(prefixes):
            st.session_state[key] = st.session_state[key]


def current_user() -> User | None:
    """The signed-in user of this browser session (kept by app.accounts in session_state)."""
    from app import accounts

    return accounts.current_user(st.session_state)


def require_user(*roles: Role) -> User:
    """The signed-in user if their role is allowed here; otherwise explain and stop the page."""
    user = current_user()
    if user is None:
        st.warning(tr("auth.sign_in_first"))
        st.stop()
    if roles and user.role not in roles and user.role != Role.ADMIN:
        st.error(tr("auth.not_allowed"))
        st.stop()
    return user


def session_factory() -> sessionmaker[Session]:
    """The app's session factory, for services that open one short transaction per step."""
    from app.database import get_session_factory

    return get_session_factory(settings())


@st.cache_resource(show_spinner=False)
def bootstrap() -> bool:
    """Once per server process: migrate the database and, on a fresh one, create the first
    admin and print its one-time password to the console (`lexspec run` does this before
    the app starts; this covers a bare `streamlit run`)."""
    import sys

    from app import accounts

    try:
        with db_session() as session:
            password = accounts.first_run_admin(session=session)
    except Exception as exc:  # noqa: BLE001 - the sign-in page reports a database that cannot be reached
        print(f"LexSpec: database not ready: {exc}", file=sys.stderr)
        return False
    if password:
        print(
            f"LexSpec first run: user 'admin', one-time password: {password}",
            file=sys.stderr,
            flush=True,
        )
    return True
