"""Streamlit entry point: sign-in gate, language switch, endpoint chooser, and
st.navigation over the pages the signed-in user's role may see."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from app.domain import Role
from app.i18n import LANGUAGES
from app.pages import (
    blind_review,
    docreview,
    draft,
    history,
    matters,
    monitor,
    my_reviews,
    page_chrome,
    results,
    session_gate,
    sign_in,
    studies,
    users,
)
from app.pages.ui_state import (
    active_endpoint,
    bootstrap,
    endpoint_names,
    keep_widget_values,
    lang,
    tr,
)
from audit.domain import User

LANGUAGE_NAMES = {"zh": "简体中文", "en": "English"}


@dataclass(frozen=True)
class PageSpec:
    """One page: what draws it, its title and icon, its URL path and the roles that see it."""

    render: Callable[[], None]
    title_key: str
    icon: str
    url_path: str
    roles: tuple[Role, ...]


# URL paths differ from the module names in app/pages/ on purpose: Streamlit's older
# pages-directory discovery (still used by its AppTest harness) would otherwise run the
# module file itself instead of the page function. A reviewer's History is their own
# verdicts, blind like Review.
PAGES = (
    PageSpec(
        draft.render, "nav.draft", ":material/edit_note:", "drafting", (Role.DRAFTER, Role.ADMIN)
    ),
    PageSpec(
        matters.render,
        "nav.matters",
        ":material/folder_open:",
        "matters",
        (Role.DRAFTER, Role.ADMIN),
    ),
    PageSpec(
        docreview.render,
        "nav.docreview",
        ":material/rate_review:",
        "document-review",
        (Role.DRAFTER, Role.ADMIN),
    ),
    PageSpec(
        history.render,
        "nav.history",
        ":material/history:",
        "generations",
        (Role.DRAFTER, Role.ADMIN),
    ),
    PageSpec(
        blind_review.render,
        "nav.review",
        ":material/balance:",
        "blind-review",
        (Role.REVIEWER, Role.ADMIN),
    ),
    PageSpec(
        my_reviews.render, "nav.history", ":material/history:", "my-verdicts", (Role.REVIEWER,)
    ),
    PageSpec(studies.render, "nav.studies", ":material/science:", "review-studies", (Role.ADMIN,)),
    PageSpec(results.render, "nav.results", ":material/bar_chart:", "study-results", (Role.ADMIN,)),
    PageSpec(monitor.render, "nav.monitor", ":material/monitoring:", "metrics", (Role.ADMIN,)),
    PageSpec(users.render, "nav.users", ":material/group:", "accounts", (Role.ADMIN,)),
)
SIGN_IN_PATH = "sign-in"


def _page(spec: PageSpec, render: Callable[[], None], *, hidden: bool = False) -> st.Page:
    return st.Page(
        render,
        title=tr(spec.title_key),
        icon=spec.icon,
        url_path=spec.url_path,
        visibility="hidden" if hidden else "visible",
    )


def _landing(render: Callable[[], None], title: str) -> st.Page:
    """The default page, at "/", drawing the first page. Streamlit gives the default page of
    st.navigation the URL "/" whatever its `url_path`, so were a real page the default its own
    path ("/drafting") would be unknown and show "Page not found"; this hidden one leaves
    every page its own URL. It draws the page rather than switching to it, so the first run
    of a session is one run."""
    return st.Page(render, title=title, url_path="", default=True, visibility="hidden")


def _pages_for(user: User) -> list[st.Page]:
    """The user's pages; every other page's URL stays known (hidden: a reload or a bookmark of
    it says "not allowed" instead of Streamlit's "Page not found"). "/" and the sign-in
    address (as after signing in) show the first page."""
    mine = [_page(spec, spec.render) for spec in PAGES if user.role in spec.roles]
    others = [
        _page(spec, spec.render, hidden=True) for spec in PAGES if user.role not in spec.roles
    ]

    def home() -> None:
        st.switch_page(mine[0])

    again = st.Page(home, title=tr("nav.sign_in"), url_path=SIGN_IN_PATH, visibility="hidden")
    first = next(spec for spec in PAGES if user.role in spec.roles)
    return [_landing(first.render, tr(first.title_key)), *mine, *others, again]


def _sign_in_pages() -> list[st.Page]:
    """The sign-in form, at its own address and under every page's URL: after signing in, a
    reloaded or bookmarked page's URL shows that page. "/" opens the form."""
    form = st.Page(
        sign_in.render, title=tr("nav.sign_in"), icon=":material/login:", url_path=SIGN_IN_PATH
    )
    pages = [_page(spec, sign_in.render, hidden=True) for spec in PAGES]
    return [_landing(sign_in.render, tr("nav.sign_in")), form, *pages]


def _sidebar(user: User | None) -> None:
    with st.sidebar:
        st.radio(
            "语言 / Language",
            LANGUAGES,
            key="lang",
            format_func=lambda code: LANGUAGE_NAMES.get(code, code),
            horizontal=True,
        )
        if user is None:
            return
        if user.role in (Role.DRAFTER, Role.ADMIN):
            names = endpoint_names()
            st.selectbox(
                tr("sidebar.endpoint"),
                names,
                index=names.index(active_endpoint()),
                key="endpoint",
                help=tr("sidebar.endpoint_help"),
            )
        st.caption(tr("sidebar.signed_in_as", name=user.name, role=tr(f"role.{user.role}")))
        st.button(tr("sidebar.sign_out"), on_click=session_gate.sign_out, key="sign_out")


def main() -> None:
    st.set_page_config(page_title="LexSpec", page_icon="⚖️", layout="wide")
    bootstrap()
    lang()  # make sure the session has a language before any text is drawn
    keep_widget_values(
        "draft.field.", "draft.max_tokens.", "draft.temperature.", "draft.doc_type", "draft.edit."
    )
    user = session_gate.signed_in_user()  # re-read on every run; a reload's cookie brings it back
    _sidebar(user)
    with st.sidebar:
        session_gate.keep_cookie(user)
        page_chrome.follow_language(lang())
    session_gate.show_notice(user)
    if user is None or user.must_change_password:
        st.navigation(_sign_in_pages()).run()
    else:
        st.navigation(_pages_for(user)).run()


main()
