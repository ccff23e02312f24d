"""The transfer route on the Draft page: shown for the transfer document types as soon as the
facts are filled in, with its basis, what would change it, and a warning before generating
when the type is written for another route."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import streamlit as st

from app.drafting.context import decide_route
from app.pages.plain_text import plain
from app.pages.ui_state import lang, tr
from app.route import load_rules
from app.route.form import COUNT_FIELDS, exempt_part_too_large, parse_count

if TYPE_CHECKING:
    from app.prompts import DocType


def _bad_counts(doc_type: DocType, values: Mapping[str, str]) -> list[str]:
    """Labels of count fields that hold something other than a non-negative whole number."""
    bad = []
    for name in COUNT_FIELDS:
        spec = doc_type.get_field(name)
        if spec is not None and values.get(name) and parse_count(values[name]) is None:
            bad.append(spec.label(lang()))
    return bad


def show(doc_type: DocType, values: Mapping[str, str]) -> None:
    """The route panel (nothing for a type that is not about a transfer)."""
    if doc_type.route is None:
        return
    ui_lang = lang()
    with st.container(border=True, key="route.panel"):
        st.markdown(f"**{tr('route.title')}**")
        bad = _bad_counts(doc_type, values)
        decision = None if bad else decide_route(doc_type, values)  # as a draft's context will
        if bad:
            st.warning(tr("route.bad_count", fields="、".join(bad)), icon=":material/warning:")
        elif exempt_part_too_large(values):
            st.warning(tr("route.exempt_too_large"), icon=":material/warning:")
        if decision is None:
            st.caption(tr("route.incomplete"))
            return
        st.info(
            tr("route.result", route=decision.route_text.text(ui_lang)), icon=":material/route:"
        )
        st.markdown(tr("route.basis", basis=decision.basis_text()))
        st.caption(plain(decision.explanation.text(ui_lang)))  # quotes the form's figures
        for watch in decision.watch:
            st.warning(plain(watch.text(ui_lang)), icon=":material/monitoring:")
        if decision.route != doc_type.route:
            st.warning(
                tr(
                    "route.contradiction",
                    title=doc_type.title(ui_lang),
                    route=decision.route_text.text(ui_lang),
                ),
                icon=":material/report:",
            )
        with st.expander(tr("route.changes")):
            for change in decision.changes:
                st.markdown(f"- {plain(change.text(ui_lang))}")
        _prevails(ui_lang)
        st.caption(plain(decision.scope_note.text(ui_lang)))


def _prevails(ui_lang: str) -> None:
    """The paragraph by which the exemptions prevail, quoted in full, and how it was read."""
    prevails = load_rules().prevails
    st.caption(plain(prevails.quote().zh))
    with st.expander(tr("route.prevails_read")):
        st.caption(plain(prevails.note.text(ui_lang)))
