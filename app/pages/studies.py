"""Studies page (admin): plan and create a blind review study (2–6 arms, each any drafting
configuration; a design; gold items), generate its drafts with progress (resumable), see what
configuration produced each draft, watch each reviewer's progress, and unblind early
(confirmed, logged)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from app.domain import Role, StudyDesign, describe
from app.i18n import t
from app.pages.plain_text import plain
from app.pages.ui_state import context, lang, require_user, tr
from app.studies.domain import ArmSpec, StudySpec
from audit.domain import User

if TYPE_CHECKING:
    from streamlit.delta_generator import DeltaGenerator
    from streamlit.elements.lib.column_types import ColumnConfig

    from app.prompts import DocType
    from app.studies.domain import Study, StudyItem, StudyProgress
    from app.studies.service import GenerationProgress

DEFAULT_TYPE = "cross-border-filing-guide"


def _reviewer_names() -> list[str]:
    from app import accounts

    with context().session() as session:
        return accounts.reviewer_names(session=session, actor=require_user(Role.ADMIN))


def _arm_inputs(column: DeltaGenerator, number: int, default_endpoint: str) -> ArmSpec:
    """One arm's drafting configuration: endpoint, mode, temperature, max tokens (the keys of
    app.studies.arms.ARM_KEYS; speculation is recorded from each generation, not set here)."""
    from app.domain import DRAFT_MODES

    names = list(context().settings.all_endpoints())
    ui_lang = lang()  # bound now: format_func may be called outside the script run
    with column:
        st.markdown(f"**{tr('studies.arm_n', n=number)}**")
        label = st.text_input(tr("studies.arm_label"), key=f"study.arm{number}.label")
        endpoint = st.selectbox(
            tr("studies.arm_endpoint"),
            names,
            index=names.index(default_endpoint),
            key=f"study.arm{number}.endpoint",
        )
        mode = st.selectbox(
            tr("studies.arm_mode"),
            DRAFT_MODES,
            format_func=lambda m: t(f"studies.mode_{m.replace('-', '_')}", ui_lang),
            key=f"study.arm{number}.mode",
        )
        temperature = st.number_input(
            tr("studies.temperature"), 0.0, 2.0, 0.0, 0.1, key=f"study.arm{number}.temperature"
        )
        max_tokens = st.number_input(
            tr("studies.max_tokens"), 16, 8192, 512, 16, key=f"study.arm{number}.max_tokens"
        )
    params = {"mode": mode, "temperature": float(temperature), "max_tokens": int(max_tokens)}
    return ArmSpec(label.strip(), endpoint, params)


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
    lib = context().knowledge.library
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
    names = list(context().settings.all_endpoints())
    n_arms = int(st.number_input(tr("studies.n_arms"), 2, 6, 2, 1, key="study.n_arms"))
    reviewer_names = _reviewer_names()
    _plan(n_arms, max(1, min(3, len(reviewer_names))))
    with st.form(f"study.create.{doc_id}"):
        name = st.text_input(tr("studies.name"), key="study.name")
        st.caption(tr("studies.cases"))
        cases = _case_grid(doc_type)
        st.caption(tr("studies.arms_help"))
        columns = [c for _ in range(0, n_arms, 3) for c in st.columns(3)]
        arms = tuple(
            _arm_inputs(columns[i], i + 1, names[0] if i == 0 else names[-1]) for i in range(n_arms)
        )
        designs: tuple[StudyDesign, ...] = tuple(StudyDesign)  # typed, as st.radio infers nothing
        design = st.radio(
            tr("studies.design"),
            designs,
            format_func=lambda d: t(f"studies.design_{d}", ui_lang),
            horizontal=True,
            key="study.design",
        )
        gold = st.number_input(tr("studies.gold"), 0, 10, 0, 1, key="study.gold")
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
    spec = StudySpec(name.strip(), doc_id, tuple(rows), arms, tuple(reviewers), design, int(gold))
    _submit(actor, spec, same_ok)


def _submit(actor: User, spec: StudySpec, same_ok: bool) -> None:
    """Create the study (after the A/A check), with a clear message on any refusal."""
    from app.studies import arms
    from app.studies import service as studies

    ctx = context()
    if arms.arms_identical(spec) and not same_ok:
        st.warning(tr("study_page.same_arms"))
        return
    try:
        with ctx.session() as session:
            study = studies.create_study(spec, session=session, settings=ctx.settings, actor=actor)
    except Exception as exc:  # noqa: BLE001 - a page shows the failure, never a traceback
        st.error(tr("studies.failed", detail=describe(exc).text(lang())))
        return
    st.success(tr("studies.created", id=study.id))


def _plan(n_arms: int, n_reviewers: int, study_id: int | None = None) -> None:
    """How many cases are needed to detect a chosen difference (80% power, α = 0.05): with
    the default spread before verdicts are in, the observed one after."""
    from app.studies import service as studies

    ctx = context()
    with st.expander(tr("studies.plan_title"), expanded=study_id is None):
        key = f"study.plan.{study_id or 'new'}"
        left, right = st.columns(2)
        difference = left.number_input(
            tr("studies.plan_difference"), 0.1, 10.0, 1.0, 0.1, key=f"{key}.difference"
        )
        reviewers = right.number_input(
            tr("studies.plan_reviewers"), 1, 50, n_reviewers, 1, key=f"{key}.reviewers"
        )
        try:
            with ctx.session() as session:
                plan = studies.plan(
                    float(difference),
                    n_arms=n_arms,
                    n_reviewers=int(reviewers),
                    study_id=study_id,
                    session=session,
                    settings=ctx.settings,
                    actor=require_user(Role.ADMIN),
                )
        except Exception as exc:  # noqa: BLE001 - a page shows the failure, never a traceback
            st.error(tr("studies.failed", detail=describe(exc).text(lang())))
            return
        st.info(plain(plan.message().text(lang())))


def _configs(actor: User, study: Study) -> None:
    """What produced each draft, as stored with it (endpoint, model, mode, sampling, the
    speculation the endpoint reported); gold items are marked."""
    from app.studies import service as studies

    with context().session() as session:
        items = studies.list_items(study.id, session=session, actor=actor)
    arms = {a.id: a.label for a in study.arms}
    cases = {c.id: c.position + 1 for c in study.cases}
    rows = [_config_row(cases[i.case_id], arms[i.arm_id], i) for i in items if i.config]
    if rows:
        with st.expander(tr("studies.configs")):
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def _identical(actor: User, study: Study) -> None:
    """Arms whose drafts are byte-identical: said before reviewers spend time on them."""
    from app.studies import service as studies
    from app.studies.sameness import identical_arms

    with context().session() as session:
        items = studies.list_items(study.id, session=session, actor=actor)
    for pair in identical_arms(study, items):
        key = "study_page.identical_all" if pair.everywhere else "study_page.identical_some"
        st.warning(tr(key, a=pair.a, b=pair.b, same=pair.identical, cases=pair.cases),
                   icon=":material/content_copy:")  # fmt: skip


def _config_row(case: int, arm: str, item: StudyItem) -> dict[str, object]:
    config = item.config or {}
    spec = config.get("speculation") or {}
    accepted, drafted = spec.get("accepted_tokens"), spec.get("draft_tokens")
    return {
        tr("studies.col_case"): case,
        tr("studies.col_arm"): arm,
        tr("studies.col_gold"): tr(f"studies.gold_{item.gold_kind}") if item.gold_kind else "",
        tr("studies.arm_endpoint"): config.get("endpoint", ""),
        tr("studies.col_model"): config.get("model", ""),
        tr("studies.arm_mode"): config.get("mode", ""),
        tr("studies.temperature"): config.get("temperature", ""),
        tr("studies.max_tokens"): config.get("max_tokens", ""),
        tr("studies.col_speculation"): spec.get("method") or ("—" if not spec else "?"),
        tr("studies.col_acceptance"): f"{accepted}/{drafted}" if drafted else "—",
    }


def _generate(actor: User, study_id: int) -> None:
    from app.studies import service as studies

    bar = st.progress(0.0, text=tr("studies.generating", done=0, total="…"))

    def on_progress(state: GenerationProgress) -> None:
        fraction = state.done / state.total if state.total else 1.0
        bar.progress(fraction, text=tr("studies.generating", done=state.done, total=state.total))

    try:
        studies.generate_items(
            study_id,
            session_factory=context().session_factory,
            settings=context().settings,
            progress=on_progress,
            actor=actor,
        )
    except Exception as exc:  # noqa: BLE001 - a page shows the failure, never a traceback
        st.error(tr("studies.failed", detail=describe(exc).text(lang())))
        return
    st.success(tr("studies.generated"))


def _progress(actor: User, study: Study) -> StudyProgress:
    from app.studies import service as studies

    with context().session() as session:
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
    from app.studies import service as studies

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
        with context().session() as session:
            studies.unblind_early(study.id, session=session, reason=reason, actor=actor)
    except Exception as exc:  # noqa: BLE001 - a page shows the failure, never a traceback
        st.error(tr("studies.failed", detail=describe(exc).text(lang())))
        return
    st.success(tr("studies.unblind_done"))


def _existing(actor: User) -> None:
    from app.studies import service as studies

    with context().session() as session:
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
            f"{' / '.join(a.label for a in by_id[i].arms)})"
        ),
        key="study.pick",
    )
    study = by_id[study_id]
    if st.button(tr("studies.generate"), key="study.generate", type="primary"):
        _generate(actor, study.id)
    progress = _progress(actor, study)
    _identical(actor, study)
    _configs(actor, study)
    _plan(len(study.arms), max(1, len(progress.reviewers)), study.id)
    _unblind(actor, study)


def render() -> None:
    user = require_user(Role.ADMIN)
    st.title(tr("studies.title"))
    create, existing = st.tabs([tr("studies.create"), tr("studies.list")])
    with create:
        _create_form(user)
    with existing:
        try:
            _existing(user)
        except Exception as exc:  # noqa: BLE001 - a page shows the failure, never a traceback
            st.error(tr("studies.load_failed", detail=describe(exc).text(lang())))
