"""Small non-widget helpers shared by the pages: the acting context (`context()`: the
installation's Settings, knowledge and database, the signed-in user), cached factories, the UI
language. The one place the pages read Settings (app.config.get_settings); nothing here draws
widgets except `require_user`'s refusal."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from app.config import get_settings
from app.domain import Role
from app.i18n import DEFAULT_LANG, LANGUAGES, t
from audit.domain import User

if TYPE_CHECKING:  # the factories import these lazily, at first use
    from app.context import Context
    from app.llm.client import OpenAIClient


def context() -> Context:
    """The acting context of this run of a page: the Settings, the installation's knowledge
    (document types, catalogue, clauses: loaded once per process, app.knowledge), its database
    (opened once per process by app.database: `context().session()` is one unit of work) and
    the signed-in user (None before sign-in). Pages read all of these through it."""
    from app.context import Context

    return Context(get_settings(), actor=current_user())


def lang() -> str:
    """The UI language of this session (sidebar switch), defaulting to Settings.lang."""
    value = st.session_state.get("lang")
    if value not in LANGUAGES:
        value = get_settings().lang if get_settings().lang in LANGUAGES else DEFAULT_LANG
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
def _outline_problems(prompts_dir: str, statutes_file: str, corpus_dir: str) -> list[str]:
    from app.knowledge import Knowledge

    knowledge = Knowledge(Path(prompts_dir), Path(statutes_file) if statutes_file else None,
                          Path(corpus_dir) if corpus_dir else None)  # fmt: skip
    return knowledge.outlines().errors


def outline_problems() -> list[str]:
    """Broken outlines (prompts/<type>/outline.yaml), each named by its type (checked once per
    process and installation)."""
    known = context().knowledge
    paths = (known.prompts_dir, known.statutes_file, known.corpus_dir)
    return _outline_problems(*(str(p or "") for p in paths))


@st.cache_resource(show_spinner=False)
def _client(name: str, base_url: str, model: str | None) -> OpenAIClient:
    from app.llm.client import make_client

    return make_client(name, get_settings())


def client(name: str) -> OpenAIClient:
    """An LLM client for a named endpoint, cached per (name, URL, model)."""
    endpoint = get_settings().all_endpoints()[name]
    return _client(name, endpoint.base_url, endpoint.model)


def endpoint_names() -> list[str]:
    return list(get_settings().all_endpoints())


def active_endpoint() -> str:
    """The endpoint new requests go to (`lexspec endpoints switch` changes it, blue/green)."""
    from app.llm.router import Router

    return Router.from_settings(get_settings()).active


def chosen_endpoint() -> str:
    """The endpoint picked in the sidebar (the router's active one until the user picks)."""
    names = endpoint_names()
    value = st.session_state.get("endpoint")
    return str(value) if value in names else active_endpoint()


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


@st.cache_resource(show_spinner=False)
def bootstrap() -> bool:
    """Once per server process: migrate the database and, on a fresh one, create the first
    admin and print its one-time password to the console (`lexspec run` does this before
    the app starts; this covers a bare `streamlit run`)."""
    import sys

    from app import accounts

    try:
        with context().session() as session:
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
