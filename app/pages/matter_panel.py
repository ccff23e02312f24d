"""The matter on the Draft page: pick one of the firm's matters and the form is filled from its
facts (the lawyer may still change a field for this draft); the draft is recorded as the
matter's; the panel says which reports the matter's route needs, and warns when a report's
assessment is too old for its filing date (one-off drafts too)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import streamlit as st

from app.domain import BilingualError, MatterRef, describe
from app.filing.freshness import applies, freshness
from app.pages.ui_state import context, lang, tr
from audit.domain import User

if TYPE_CHECKING:
    from app.matters.service import MatterView

MATTER = "draft.matter"  # the matter number chosen ("" none); the matter page sets it too
FILLED = "draft.matter.filled"  # (number, version, type) the form was last filled from
REF = "draft.matter.ref"  # the MatterRef the next draft is recorded with (None: none)
NEED_KEYS = {"filed": "matter.need_filed", "kept": "matter.need_kept",
             "guide": "matter.need_guide", "optional": "matter.need_optional"}  # fmt: skip


def current() -> MatterRef | None:
    """The matter the next draft is for (read by the Generate button's callback)."""
    ref = st.session_state.get(REF)
    return ref if isinstance(ref, MatterRef) else None


def pick(user: User, doc_type_id: str, fill: Callable[[dict[str, str]], None]) -> None:
    """The matter picker for a type a matter drafts; fills the form from the matter's facts
    once per matter version and type (before the form's widgets are drawn)."""
    from app.matters import service

    doc_type = context().knowledge.types[doc_type_id]
    st.session_state[REF] = None
    if not doc_type.in_matter:
        return
    with context().session() as session:
        numbers = [m.number for m in service.list_matters(session=session, actor=user)]
    chosen = st.session_state.get(MATTER) or ""
    if chosen and chosen not in numbers:
        numbers.insert(0, chosen)
    none = tr("matter.none")  # bound now: format_func may be called outside the script run
    st.selectbox(
        tr("matter.pick"),
        ["", *numbers],
        key=MATTER,
        format_func=lambda n: n or none,
        help=tr("matter.pick_help"),
    )
    number = st.session_state.get(MATTER) or ""
    if not number:
        st.session_state.pop(FILLED, None)
        return
    try:
        with context().session() as session:
            view = service.open_matter(
                number, types=context().knowledge.types, session=session, actor=user
            )
    except BilingualError as exc:  # a matter gone or a role lost: say so, draft without it
        st.warning(describe(exc).text(lang()))
        return
    stamp = (number, view.matter.version, doc_type.id)
    if st.session_state.get(FILLED) != stamp:
        fill(service.draft_values(view, doc_type))
        st.session_state[FILLED] = stamp
    st.session_state[REF] = view.ref
    _needs_line(view, doc_type_id)


def _needs_line(view: MatterView, doc_type_id: str) -> None:
    types = context().knowledge.types
    ui_lang = lang()
    matter = view.matter
    st.caption(tr("matter.drafting_for", number=matter.number, version=matter.version,
                  client=matter.client))  # fmt: skip
    if view.decision is None:
        st.caption(tr("matter.no_route"))
        return
    needs = "；".join(
        f"{types[n.type_id].title(ui_lang) if n.type_id in types else n.type_id}"
        f"（{tr(NEED_KEYS[n.need])}）"
        for n in view.needs
    )
    st.caption(tr("matter.route_needs", route=view.decision.route_text.text(ui_lang), needs=needs))
    if not any(n.type_id == doc_type_id for n in view.needs):
        st.warning(tr("matter.type_not_needed"), icon=":material/info:")


def warn_freshness(field_names: list[str], values: Mapping[str, str]) -> None:
    """The 3-month rule of the filing templates, for a form with an assessment period."""
    if not applies(field_names):
        return
    warning = freshness(values).warning()
    if warning is not None:
        st.warning(warning.text(lang()), icon=":material/event_busy:")
