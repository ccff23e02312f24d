"""Studies page (admin): create a blind review study, generate its drafts with progress
(resumable), watch each reviewer's progress, and unblind early (confirmed, logged)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from app.domain import describe
from app.i18n import t
from app.ui_state import db_session, lang, library, require_user, session_factory, settings, tr
from audit.domain import User
from audit.review_domain import ArmSpec, StudySpec

if TYPE_CHECKING:
    from streamlit.delta_generator import DeltaGenerator
    from streamlit.elements.lib.column_types import ColumnConfig

    from app.prompts import DocType
    from app.studies import GenerationProgress
    from audit.review_domain import Study, StudyProgress

DEFAULT_TYPE = "cross-border-filing-guide"


def _reviewer_names() -> list[str]:
    from app import accounts

    with db_session() as session:
        return accounts.reviewer_names(session=session, actor=require_user("admin"))


def _arm_inputs(column: DeltaGenerator, number: int, default_endpoint: str) -> ArmSpec:
    names = list(settings().all_endpoints())
    with column:
        st.markdown(f"**{tr('studies.arm_a' if number == 1 else 'studies.arm_b')}**")
        label = st.text_input(tr("studies.arm_label"), key=f"study.arm{number}.label")
        endpoint = st.selectbox(
            tr("studies.arm_endpoint"),
            names,
            index=names.index(default_endpoint),
            key=f"study.arm{number}.endpoint",
        )
        max_tokens = st.number_input(
            tr("studies.max_tokens"), 16, 8192, 512, 16, key=f"study.arm{number}.max_tokens"
        )
    return ArmSpec(label.strip(), endpoint, {"max_tokens": int(max_tokens)})


def _case_grid(doc_type: DocType) -> pd.DataFrame:
    """One row per case; columns are the form's fields by label, choices as select cells."""
    ui_lang = lang()  # bound now: format_func may be called outside the script run
    example = doc_type.example_values()
    columns: dict[str, ColumnConfig] = {}
    for spec in doc_type.fields:
        label = spec.label(ui_lang) + (" *" if spec.required else "")
        if spec.kind == "select":
            columns[spec.name] = st.column_config.SelectboxColumn(
                label,
                options=list(spec.choices),
                default=example.get(spec.name) or spec.choices[0],
                format_func=partial(spec.choice_label, lang=ui_lang),
            )
        else:  # "" not None: a new row's empty cell would read "None"
            columns[spec.name] = st.column_config.TextColumn(
                label, default="", max_chars=spec.max_length
            )
    # Required cells are marked " *" and checked on submit with our own bilingual message
    # (Streamlit's `required=` answers in English only: "Please fill out this cell.").
    first = {spec.name: example.get(spec.name, "") for spec in doc_type.fields}
    edited: pd.DataFrame = st.data_editor(
        pd.DataFrame([first]),
        num_rows="dynamic",
        hide_index=True,
        column_config=columns,
        key=f"study.cases.{doc_type.id}",
    )
    return edited


def _create_form(actor: User) -> None:
    from app import studies

    lib = library()
    ui_lang = lang()
    ids = sorted(lib.types)
    doc_id = st.selectbox(
        tr("studies.doc_type"),
        ids,
        index=ids.index(DEFAULT_TYPE) if DEFAULT_TYPE in ids else 0,
        format_func=lambda i: lib.types[i].title(ui_lang),
        key="study.doc_type",
    )
    doc_type = lib.types[doc_id]
    names = list(settings().all_endpoints())
    with st.form(f"study.create.{doc_id}"):
        name = st.text_input(tr("studies.name"), key="study.name")
        st.caption(tr("studies.cases"))
        cases = _case_grid(doc_type)
        left, right = st.columns(2)
        arms = (
            _arm_inputs(left, 1, names[0]),
            _arm_inputs(right, 2, names[-1]),
        )
        reviewer_names = _reviewer_names()
        reviewers = st.multiselect(
            tr("studies.reviewers"),
            reviewer_names,
            key="study.reviewers",
            placeholder=tr(
                "studies.reviewers_choose" if reviewer_names else "studies.no_reviewers"
            ),
        )
        same_ok = st.checkbox(tr("study_page.same_arms_ok"), key="study.same_arms_ok")
        submitted = st.form_submit_button(tr("studies.create_submit"), type="primary")
    if not submitted:
        return
    rows = [
        {k: "" if v is None or pd.isna(v) else str(v) for k, v in row.items()}
        for row in cases.to_dict("records")
    ]
    spec = StudySpec(name.strip(), doc_id, tuple(rows), arms, tuple(reviewers))
    if studies.arms_identical(spec) and not same_ok:
        st.warning(tr("study_page.same_arms"))
        return
    try:
        with db_session() as session:
            study = studies.create_study(spec, session=session, settings=settings(), actor=actor)
    except Exception as exc:
        st.error(tr("studies.failed", detail=describe(exc).text(lang())))
        return
    st.success(tr("studies.created", id=study.id))


def _generate(actor: User, study_id: int) -> None:
    from app import studies

    bar = st.progress(0.0, text=tr("studies.generating", done=0, total="…"))

    def on_progress(state: GenerationProgress) -> None:
        fraction = state.done / state.total if state.total else 1.0
        bar.progress(fraction, text=tr("studies.generating", done=state.done, total=state.total))

    try:
        studies.generate_items(
            study_id,
            session_factory=session_factory(),
            settings=settings(),
            progress=on_progress,
            actor=actor,
        )
    except Exception as exc:
        st.error(tr("studies.failed", detail=describe(exc).text(lang())))
        return
    st.success(tr("studies.generated"))


def _progress(actor: User, study: Study) -> StudyProgress:
    from app import studies

    with db_session() as session:
        progress = studies.study_progress(study.id, session=session, actor=actor)
    st.progress(
        progress.items_complete / max(1, progress.items_total),
        text=tr(
            "studies.progress_drafts",
            done=progress.items_complete,
            total=progress.items_total,
            failed=progress.items_failed,
        ),
    )
    for r in progress.reviewers:
        st.progress(
            r.done / max(1, r.total),
            text=tr("studies.progress_reviewer", name=r.reviewer, done=r.done, total=r.total),
        )
    return progress


def _unblind(actor: User, study: Study) -> None:
    from app import studies

    if study.unblinded_at is not None:
        st.info(
            tr(
                "studies.unblinded",
                at=f"{study.unblinded_at:%Y-%m-%d %H:%M}",
                by=study.unblinded_by,
            )
        )
        return
    with st.form(f"study.unblind.{study.id}"):
        reason = st.text_input(tr("studies.unblind_reason"))
        confirmed = st.checkbox(tr("studies.unblind_confirm"))
        submitted = st.form_submit_button(tr("studies.unblind"))
    if not submitted:
        return
    if not confirmed:
        st.warning(tr("studies.unblind_confirm"))
        return
    try:
        with db_session() as session:
            studies.unblind_early(study.id, session=session, reason=reason, actor=actor)
    except Exception as exc:
        st.error(tr("studies.failed", detail=describe(exc).text(lang())))
        return
    st.success(tr("studies.unblind_done"))


def _existing(actor: User) -> None:
    from app import studies

    with db_session() as session:
        everything = studies.list_studies(session=session, actor=actor)
    if not everything:
        st.info(tr("studies.none"))
        return
    by_id = {s.id: s for s in everything}
    ui_lang = lang()
    study_id = st.selectbox(
        tr("studies.pick"),
        list(by_id),
        format_func=lambda i: (
            f"#{i} {by_id[i].name} ({t('studies.arms', ui_lang)}: "
            f"{by_id[i].arms[0].label} / {by_id[i].arms[1].label})"
        ),
        key="study.pick",
    )
    study = by_id[study_id]
    if st.button(tr("studies.generate"), key="study.generate", type="primary"):
        _generate(actor, study.id)
    _progress(actor, study)
    _unblind(actor, study)


def render() -> None:
    user = require_user("admin")
    st.title(tr("studies.title"))
    create, existing = st.tabs([tr("studies.create"), tr("studies.list")])
    with create:
        _create_form(user)
    with existing:
        try:
            _existing(user)
        except Exception as exc:
            st.error(tr("studies.load_failed", detail=describe(exc).text(lang())))
