"""Streamlit entry point: sign-in gate, language switch, endpoint chooser, and
st.navigation over the pages the signed-in user's role may see."""

from __future__ import annotations

import streamlit as st

from app.i18n import LANGUAGES
from app.pages import (
    draft,
    history,
    monitor,
    my_reviews,
    results,
    review,
    sign_in,
    studies,
    users,
)
from app.ui_state import (
    active_endpoint,
    bootstrap,
    current_user,
    endpoint_names,
    keep_widget_values,
    lang,
    tr,
)
from audit.domain import User

LANGUAGE_NAMES = {"zh": "简体中文", "en": "English"}
# URL paths differ from the module names in app/pages/ on purpose: Streamlit's older
# pages-directory discovery (still used by its AppTest harness) would otherwise run the
# module file itself instead of the page function.


def _pages_for(user: User) -> list[st.Page]:
    draft_page = st.Page(
        draft.render, title=tr("nav.draft"), icon=":material/edit_note:", url_path="drafting"
    )
    history_page = st.Page(
        history.render, title=tr("nav.history"), icon=":material/history:", url_path="generations"
    )
    review_page = st.Page(
        review.render, title=tr("nav.review"), icon=":material/balance:", url_path="blind-review"
    )
    admin_pages = [
        st.Page(
            studies.render,
            title=tr("nav.studies"),
            icon=":material/science:",
            url_path="review-studies",
        ),
        st.Page(
            results.render,
            title=tr("nav.results"),
            icon=":material/bar_chart:",
            url_path="study-results",
        ),
        st.Page(
            monitor.render,
            title=tr("nav.monitor"),
            icon=":material/monitoring:",
            url_path="metrics",
        ),
        st.Page(users.render, title=tr("nav.users"), icon=":material/group:", url_path="accounts"),
    ]
    if user.role == "reviewer":  # their History is their own verdicts, blind like Review
        reviews_page = st.Page(
            my_reviews.render,
            title=tr("nav.history"),
            icon=":material/history:",
            url_path="my-verdicts",
        )
        return [review_page, reviews_page]
    if user.role == "admin":
        return [draft_page, history_page, review_page, *admin_pages]
    return [draft_page, history_page]


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
        if user.role in ("drafter", "admin"):
            names = endpoint_names()
            st.selectbox(
                tr("sidebar.endpoint"),
                names,
                index=names.index(active_endpoint()),
                key="endpoint",
                help=tr("sidebar.endpoint_help"),
            )
        st.caption(tr("sidebar.signed_in_as", name=user.name, role=tr(f"role.{user.role}")))
        st.button(tr("sidebar.sign_out"), on_click=sign_in.sign_out, key="sign_out")


def main() -> None:
    st.set_page_config(page_title="LexSpec", page_icon="⚖️", layout="wide")
    bootstrap()
    lang()  # make sure the session has a language before any text is drawn
    keep_widget_values("draft.field.", "draft.max_tokens.", "draft.temperature.", "draft.doc_type")
    user = current_user()
    _sidebar(user)
    if user is None or user.must_change_password:
        pages = [
            st.Page(
                sign_in.render, title=tr("nav.sign_in"), icon=":material/login:", url_path="sign-in"
            )
        ]
    else:
        pages = _pages_for(user)
    st.navigation(pages).run()


main()
