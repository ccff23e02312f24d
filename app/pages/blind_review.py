"""Blind review page (reviewer): the reviewer's own queue, drafts A and B shown identically,
one scoring form per draft and/or, in a preference design, "which would you send to the
client?" (A / B / tie) per pair. Nothing on this page names the arm, model, endpoint or
timing."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from app.domain import Role, StudyDesign, describe
from app.i18n import t
from app.pages.findings_view import highlight_html
from app.pages.plain_text import plain
from app.pages.ui_state import context, lang, require_user, tr
from audit.domain import User

if TYPE_CHECKING:
    from app.studies.domain import BlindDraft, BlindPair, ReviewerStudy

DIMENSIONS = ("citation", "structure", "terminology")


def _verdict_form(study_id: int, pair: BlindPair, draft: BlindDraft, reviewer: User) -> None:
    from app.studies import service as studies
    from app.studies.domain import VerdictInput

    previous = draft.verdict
    if previous is not None:
        st.caption(tr("review.already", n=previous.corrections))
    with st.form(f"verdict.{study_id}.{pair.position}.{draft.slot}"):
        scores = {
            dim: st.slider(
                tr(f"review.{dim}"), 0, 10, int(getattr(previous, dim, 5) if previous else 5)
            )
            for dim in DIMENSIONS
        }
        errors_text = st.text_area(
            tr("review.hard_errors"),
            value="\n".join(previous.hard_errors) if previous else "",
            height=90,
        )
        comment = st.text_area(tr("review.comment"), value=previous.comment if previous else "")
        submitted = st.form_submit_button(tr("review.submit"), type="primary")
    hard_errors = tuple(line.strip() for line in errors_text.splitlines() if line.strip())
    st.caption(tr("review.hard_error_count", n=len(hard_errors)))
    if not submitted:
        return
    verdict = VerdictInput(
        scores["citation"], scores["structure"], scores["terminology"], hard_errors, comment
    )
    try:
        with context().session() as session:
            studies.submit_verdict(draft.token, verdict, session=session, actor=reviewer)
    except Exception as exc:  # noqa: BLE001 - a page shows the failure, never a traceback
        st.error(tr("review.failed", detail=describe(exc).text(lang())))
        return
    st.session_state["review.flash"] = tr("review.submitted")
    st.rerun()


def _preference_form(study_id: int, pair: BlindPair, reviewer: User) -> None:
    from app.domain import Choice
    from app.studies import service as studies

    previous = pair.preference
    ui_lang = lang()  # bound now: format_func may be called outside the script run
    if previous is not None:
        st.caption(tr("review.preference_already", n=previous.corrections))
    with st.form(f"preference.{study_id}.{pair.position}"):
        choice = st.radio(
            tr("review.preference"),
            list(Choice),
            index=list(Choice).index(previous.choice) if previous else None,
            format_func=lambda c: t(f"review.choice_{c}", ui_lang),
            horizontal=True,
            key=f"preference.choice.{study_id}.{pair.position}",
        )
        submitted = st.form_submit_button(tr("review.preference_submit"), type="primary")
    if not submitted:
        return
    if choice is None:
        st.warning(tr("review.preference_missing"))
        return
    try:
        with context().session() as session:
            studies.submit_preference(pair.drafts[0].token, choice, session=session, actor=reviewer)
    except Exception as exc:  # noqa: BLE001 - a page shows the failure, never a traceback
        st.error(tr("review.failed", detail=describe(exc).text(lang())))
        return
    st.session_state["review.flash"] = tr("review.preference_saved")
    st.rerun()


def _pair(study_id: int, pair: BlindPair, reviewer: User, design: str) -> None:
    from app.studies.design import asks_preference, asks_scores

    st.subheader(tr("review.case", position=pair.position, total=pair.total))
    doc_type = context().knowledge.types.get(pair.doc_type)
    with st.expander(tr("review.inputs")):
        for name, value in pair.values.items():
            spec = doc_type.get_field(name) if doc_type else None
            shown = spec.choice_label(value, lang()) if spec else value
            st.markdown(f"**{plain(spec.label(lang()) if spec else name)}**: {plain(shown)}")
    for column, draft in zip(st.columns(2), pair.drafts, strict=True):
        with column:
            st.markdown(f"### {tr('review.draft', slot=draft.slot)}")
            st.html(highlight_html(draft.text, ()))
            if asks_scores(design):
                _verdict_form(study_id, pair, draft, reviewer)
    if asks_preference(design):
        _preference_form(study_id, pair, reviewer)


def _open(pair: BlindPair, design: str) -> bool:
    """Does this pair still wait for a judgement the design asks for?"""
    from app.studies.design import asks_preference, asks_scores

    unscored = asks_scores(design) and any(d.verdict is None for d in pair.drafts)
    return unscored or (asks_preference(design) and pair.preference is None)


def study_label(study: ReviewerStudy) -> str:
    """A neutral label for a reviewer: the study's number and document type, never its name
    (shown as a select option and a table cell, which are text, not Markdown)."""
    types = context().knowledge.types
    kind = types[study.doc_type].title(lang()) if study.doc_type in types else study.doc_type
    return t("review.study_label", lang(), number=study.id, type=kind)  # an option, a cell: text


def _load(reviewer: User) -> tuple[ReviewerStudy, list[BlindPair]] | None:
    """The reviewer's studies, the chosen one, and its queue; None when there is nothing."""
    from app.studies import service as studies

    with context().session() as session:
        mine = studies.reviewer_studies(session=session, actor=reviewer)
        if not mine:
            return None
        names = {s.id: study_label(s) for s in mine}
        chosen = st.selectbox(
            tr("studies.pick"), list(names), format_func=names.__getitem__, key="review.study"
        )
        queue = studies.reviewer_queue(chosen, session=session, actor=reviewer)
        return next(s for s in mine if s.id == chosen), queue


def render() -> None:
    user = require_user(Role.REVIEWER)
    st.title(tr("review.title"))
    st.caption(tr("review.intro"))
    flash = st.session_state.pop("review.flash", None)
    if flash:
        st.success(flash)
    try:
        loaded = _load(user)
    except Exception as exc:  # noqa: BLE001 - a page shows the failure, never a traceback
        st.error(tr("review.load_failed", detail=describe(exc).text(lang())))
        return
    if loaded is None or not loaded[1]:
        st.info(tr("review.empty"))
        return
    study, queue = loaded
    study_id, design, done = study.id, study.design, study.done
    key = "review.progress" if design == StudyDesign.SCORES else "review.progress_judgements"
    st.progress(done / max(1, study.total), text=tr(key, done=done, total=study.total))
    first_open = next((p.position for p in queue if _open(p, design)), 1)
    positions = [p.position for p in queue]
    ui_lang = lang()  # bound now: format_func may be called outside the script run
    position = st.selectbox(
        tr("review.pick_case"),
        positions,
        index=positions.index(first_open),
        format_func=lambda p: t("review.case", ui_lang, position=p, total=len(queue)),
        key=f"review.case.{study_id}.{done}",
    )
    _pair(study_id, next(p for p in queue if p.position == position), user, design)
