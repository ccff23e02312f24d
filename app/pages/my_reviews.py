"""History page for a reviewer: the verdicts they submitted, case by case, as they saw them.

A reviewer drafts nothing, so their History is their own scoring record: study, case (in
their own shuffled order), draft A or B, the three scores, hard errors, comment and how many
times they corrected it, and the draft they would send to the client where the study asks. It is built from the same blind queue as the Review page, so it
carries nothing that names an arm, a model, an endpoint or a timing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from app.domain import Role, describe
from app.pages.blind_review import study_label
from app.pages.ui_state import context, lang, require_user, tr
from audit.domain import User

if TYPE_CHECKING:
    from app.studies.domain import BlindPair, BlindVerdict


def _rows(reviewer: User) -> list[dict[str, object]]:
    """One row per draft this reviewer has scored, in their studies and queue order."""
    from app.studies import service as studies

    rows: list[dict[str, object]] = []
    with context().session() as session:
        for study in studies.reviewer_studies(session=session, actor=reviewer):
            for pair in studies.reviewer_queue(study.id, session=session, actor=reviewer):
                for draft in pair.drafts:
                    if draft.verdict is not None:
                        rows.append(_row(study_label(study), pair, draft.slot, draft.verdict))
                if pair.preference is not None:
                    rows.append(_preference_row(study_label(study), pair))
    return rows


def _preference_row(study: str, pair: BlindPair) -> dict[str, object]:
    assert pair.preference is not None
    return {
        tr("my_reviews.col_study"): study,
        tr("my_reviews.col_case"): f"{pair.position} / {pair.total}",
        tr("my_reviews.col_draft"): "A / B",
        tr("my_reviews.col_preference"): tr(f"review.choice_{pair.preference.choice}"),
        tr("my_reviews.col_corrections"): pair.preference.corrections,
    }


def _row(study: str, pair: BlindPair, slot: str, verdict: BlindVerdict) -> dict[str, object]:
    return {
        tr("my_reviews.col_study"): study,
        tr("my_reviews.col_case"): f"{pair.position} / {pair.total}",
        tr("my_reviews.col_draft"): slot,
        tr("review.citation"): verdict.citation,
        tr("review.structure"): verdict.structure,
        tr("review.terminology"): verdict.terminology,
        tr("my_reviews.col_hard"): len(verdict.hard_errors),
        tr("my_reviews.col_corrections"): verdict.corrections,
        tr("my_reviews.col_comment"): verdict.comment.replace("\n", " ")[:80],
    }


def render() -> None:
    user = require_user(Role.REVIEWER)
    st.title(tr("nav.history"))
    st.caption(tr("my_reviews.intro"))
    try:
        rows = _rows(user)
    except Exception as exc:  # noqa: BLE001 - a page shows the failure, never a traceback
        st.error(tr("review.load_failed", detail=describe(exc).text(lang())))
        return
    if not rows:
        st.info(tr("my_reviews.empty"))
        return
    st.caption(tr("my_reviews.count", n=len(rows)))
    st.dataframe(rows, hide_index=True, width="stretch")
