"""Draft page (the home page): document type → form → streamed draft with live checks,
Stop / Regenerate, an editable result, findings, stats and downloads."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import streamlit as st

from app.domain import GenerationStatus, Role
from app.drafting.writing_mode import decide, decision_line, measure_details
from app.i18n import t
from app.outline.compose import parts_fallen_back, parts_without_text
from app.outline.provenance import (
    counts_line,
    detail_line,
    fallback_lines,
    part_counts,
    source_line,
    status_text,
    truncation_lines,
)
from app.pages import draft_run, draft_state, matter_panel, revisions_view, route_panel
from app.pages.findings_view import show_stats, text_and_findings
from app.pages.plain_text import plain
from app.pages.ui_state import chosen_endpoint, context, lang, outline_problems, require_user, tr

if TYPE_CHECKING:
    from app.prompts import DocType, FieldError, FieldSpec

RESULT = "draft.result"
REQUEST = "draft.request"
ERRORS = "draft.field_errors"
PROBLEM = "draft.template_problem"
MODE = "draft.mode"


def _field_key(doc_id: str, name: str) -> str:
    return f"draft.field.{doc_id}.{name}"


def _fill_example(doc_type: DocType) -> None:
    """Button callback: put the document type's example values into the form."""
    for spec in doc_type.fields:
        if spec.kind == "select" and spec.example not in spec.choices:
            continue
        st.session_state[_field_key(doc_type.id, spec.name)] = str(spec.example or "")
    st.session_state.pop(ERRORS, None)


def _fill(doc_type: DocType, values: dict[str, str]) -> None:
    """Put a matter's facts into the form (app/pages/matter_panel.py), as _fill_example does."""
    for spec in doc_type.fields:
        value = values.get(spec.name, "")
        unset = spec.kind == "select" and value not in spec.choices  # shows its placeholder
        st.session_state[_field_key(doc_type.id, spec.name)] = None if unset else value
    st.session_state.pop(ERRORS, None)


def _field_widget(doc_id: str, spec: FieldSpec) -> None:
    """One form field, its widget chosen by kind; values stay strings for the service."""
    key = _field_key(doc_id, spec.name)
    ui_lang = lang()  # bound now: format_func may be called outside the script run
    label = spec.label(ui_lang) + (" *" if spec.required else "")
    if spec.kind == "select":  # shows the choice in the UI language, stores the canonical value
        st.selectbox(
            label,
            list(spec.choices),
            index=None,
            key=key,
            placeholder=tr("draft.choose"),
            format_func=lambda value: spec.choice_label(value, ui_lang),
        )
    elif spec.kind == "textarea":
        st.text_area(label, key=key, max_chars=spec.max_length or None, height=90)
    else:
        placeholder = {"date": "YYYY-MM-DD", "number": "0", "count": "0"}.get(spec.kind, "")
        st.text_input(label, key=key, max_chars=spec.max_length or None, placeholder=placeholder)


def _form(doc_type: DocType) -> None:
    errors: dict[str, FieldError] = st.session_state.get(ERRORS, {})
    cols = st.columns(2)
    for i, spec in enumerate(doc_type.fields):
        with cols[i % 2]:
            _field_widget(doc_type.id, spec)
            err = errors.get(spec.name)
            if err is not None:
                st.error(plain(err.message(lang())), icon=":material/error:")


def _parameters(doc_type: DocType) -> None:
    """Generation length and temperature, defaulting to the document type's own.

    The defaults go into session_state before the widgets are drawn (the values are kept
    across pages through session_state, and a widget given both a default and a session
    value makes Streamlit warn on every run)."""
    tokens_key, temp_key = f"draft.max_tokens.{doc_type.id}", f"draft.temperature.{doc_type.id}"
    st.session_state.setdefault(tokens_key, int(doc_type.defaults.max_tokens))
    st.session_state.setdefault(temp_key, float(doc_type.defaults.temperature))
    with st.expander(tr("draft.parameters")):
        cols = st.columns(2)
        cols[0].number_input(
            tr("draft.max_tokens"), min_value=16, max_value=8192, step=64, key=tokens_key
        )
        cols[1].slider(tr("draft.temperature"), 0.0, 1.5, step=0.05, key=temp_key)
        ui_lang = lang()  # bound now: format_func may be called outside the script run
        st.radio(
            tr("outline.mode"),
            ["outline", "free-form"],
            key=MODE,
            format_func=lambda mode: t(f"outline.mode_{mode}", ui_lang),
        )


def _values(doc_type: DocType) -> dict[str, str]:
    values: dict[str, str] = {}
    for spec in doc_type.fields:
        raw = st.session_state.get(_field_key(doc_type.id, spec.name))
        values[spec.name] = "" if raw is None else str(raw).strip()
    return values


def _on_generate(doc_type: DocType) -> None:
    """Button callback: validate the form; a valid form becomes the pending request (a
    template that fails to render is reported when the draft is prepared)."""
    from app.prompts import FieldErrors, validate_values

    st.session_state.pop(PROBLEM, None)
    try:
        clean = validate_values(doc_type, _values(doc_type))
    except FieldErrors as exc:
        st.session_state[ERRORS] = dict(exc.errors)
        return
    st.session_state.pop(ERRORS, None)
    params = replace(
        doc_type.defaults,
        max_tokens=int(st.session_state.get(f"draft.max_tokens.{doc_type.id}", 0) or 0)
        or doc_type.defaults.max_tokens,
        temperature=float(
            st.session_state.get(f"draft.temperature.{doc_type.id}", doc_type.defaults.temperature)
        ),
    )
    st.session_state[REQUEST] = draft_run.DraftRequest(
        doc_type_id=doc_type.id,
        title=doc_type.title(lang()),
        values={k: v for k, v in clean.items() if v},
        params=params,
        endpoint=chosen_endpoint(),
        mode=None if st.session_state.get(MODE, "outline") == "outline" else "free-form",
        matter=matter_panel.current(),  # the matter the draft is for: recorded with it
    )


def _form_changed(doc_type: DocType) -> bool:
    """True when the form (or document type) differs from what the last draft was made from."""
    last = st.session_state.get(RESULT)
    if last is None:
        return False
    return bool(last.request.doc_type_id != doc_type.id or last.request.values != _values(doc_type))


def _pick_type() -> DocType | None:
    lib = context().knowledge.library
    for problem in getattr(lib, "errors", []):
        st.warning(tr("draft.broken_type", detail=problem))
    for problem in outline_problems():
        st.warning(tr("outline.broken", detail=problem))
    if not lib.types:
        st.error(tr("draft.no_types"))
        return None
    ids = sorted(lib.types)
    if st.session_state.get("draft.doc_type") not in ids:  # the default, set once (no warning)
        default = "cross-border-filing-guide"
        st.session_state["draft.doc_type"] = default if default in ids else ids[0]
    ui_lang = lang()  # bound now: format_func may be called outside the script run
    doc_id = st.selectbox(
        tr("draft.doc_type"),
        ids,
        key="draft.doc_type",
        format_func=lambda i: lib.types[i].title(ui_lang),
    )
    doc_type = lib.types[doc_id]
    help_text = doc_type.help(ui_lang)
    if help_text:
        st.caption(help_text)
    return doc_type


def _inputs_of(result: draft_run.DraftResult, doc_type: DocType) -> None:
    """The inputs this draft was made from, labelled as in the form."""
    same_type = doc_type.id == result.request.doc_type_id
    ui_lang = lang()
    with st.expander(tr("regenerate.inputs")):
        for name, value in result.request.values.items():
            spec = doc_type.get_field(name) if same_type else None
            label = spec.label(ui_lang) if spec else name
            shown = spec.choice_label(value, ui_lang) if spec else value
            st.markdown(f"**{plain(label)}**: {plain(shown or '—')}")


def _show_parts(result: draft_run.DraftResult) -> None:
    """An outline draft's parts: the budget that cut one, why one fell back, and a small
    marker per part saying where it came from (app, clause, adapted, model, to write)."""
    if not result.provenance:
        if result.marks:
            with st.expander(tr("outline.details")):
                st.caption(tr("outline.marks", marks=", ".join(str(m) for m in result.marks)))
        return
    st.caption(plain(counts_line(part_counts(result.provenance, result.parts), lang())))
    for line in truncation_lines(result.parts, result.provenance, lang()):
        st.caption(plain(line))
    for line in fallback_lines(result.provenance, lang()):  # may quote the model's words
        st.caption(plain(line))
    decision = decide(result.request.endpoint, context().settings)
    st.caption(plain(source_line(result.provenance, lang())))
    st.caption(plain(decision_line(decision, lang())))  # how it writes, and why
    with st.expander(tr("outline.details")):  # ids and guard codes: not in the lawyer's text
        st.caption(plain(detail_line(result.provenance, result.marks, lang())))
        if decision.measure is not None:
            st.caption(plain(measure_details(decision.measure, lang())))


def _show_result(doc_type: DocType, user_name: str) -> None:
    result: draft_run.DraftResult | None = st.session_state.get(RESULT)
    if result is None:
        return
    st.divider()
    if result.request.doc_type_id != doc_type.id:  # kept for its own type, not shown under this
        st.info(tr("workstate.other_type", type=_type_title(result.request.doc_type_id)))
        return
    draft_state.opened_note()
    counts = part_counts(result.provenance, result.parts)
    status_line = status_text(result.status, counts, lang())  # in a lawyer's words (tr escapes)
    empty, fallen = parts_without_text(result.marks), parts_fallen_back(result.marks)
    if result.status == GenerationStatus.ERROR:
        st.error(tr("draft.failed", detail=result.error_text(lang())))
        st.button(
            tr("draft.retry"),
            on_click=_on_generate,
            args=(doc_type,),
            key="draft.retry",
            type="primary",
            help=tr("regenerate.help"),
        )
    elif result.status == GenerationStatus.STOPPED:
        st.warning(tr("draft.stopped_note"))
    elif result.status == GenerationStatus.TRUNCATED:
        st.warning(tr("outline.truncated_parts_note" if result.parts else "outline.truncated_note"))
    elif not counts.as_labelled:
        st.warning(tr("outline.not_as_labelled"))
    elif not empty and not fallen:
        st.success(tr("draft.complete_note"))
    if empty:
        st.warning(tr("outline.no_text_note", parts=empty))
    if fallen:
        st.warning(tr("outline.fallback_note", parts=fallen))
    _show_parts(result)
    if result.thinking:
        st.caption(tr("outline.thinking", chars=len(result.thinking)))
    st.caption(tr("draft.result_caption", status=status_line, id=result.generation_id or "—"))
    if result.record_error:
        st.error(tr("draft.record_failed", detail=result.record_error))
    show_stats(result.stats)
    _inputs_of(result, doc_type)
    context = result.context  # the document's date, the form's facts, a continuation's prefix
    if not result.text or context is None:
        return
    edited = revisions_view.editor(result)  # the newest saved revision, else the model's text
    revisions_view.save_button(result, edited)
    check = draft_run.check_text(context, edited)
    text_and_findings(
        edited,
        check.findings,
        citations=check.citations,
        on=context.doc_date,
        heading=tr("draft.highlighted"),
    )
    draft_run.download_buttons(result, edited, check, user_name)
    revisions_view.approve_button(result, edited)


def _type_title(doc_id: str) -> str:
    types = context().knowledge.types
    return types[doc_id].title(lang()) if doc_id in types else doc_id


def render() -> None:
    user = require_user(Role.DRAFTER)
    st.title(tr("draft.title"))
    draft_state.restore(user)  # a reload or History's Continue editing: before the widgets
    draft_run.collect_interrupted()
    doc_type = _pick_type()
    if doc_type is None:
        return
    matter_panel.pick(user, doc_type.id, lambda values: _fill(doc_type, values))
    st.button(tr("draft.fill_example"), on_click=_fill_example, args=(doc_type,), key="draft.fill")
    _form(doc_type)
    route_panel.show(doc_type, _values(doc_type))
    matter_panel.warn_freshness([f.name for f in doc_type.fields], _values(doc_type))
    _parameters(doc_type)
    outlined = context().knowledge.has_outline(doc_type.id)
    if outlined and st.session_state.get(MODE, "outline") == "outline":  # how parts are written
        st.caption(plain(decision_line(decide(chosen_endpoint(), context().settings), lang())))
    cols = st.columns([1, 1, 4])
    cols[0].button(
        tr("draft.generate"),
        on_click=_on_generate,
        args=(doc_type,),
        type="primary",
        key="draft.go",
    )
    if st.session_state.get(RESULT) is not None:
        # Regenerate always reads the form as it is now (Retry too): never the old inputs
        cols[1].button(
            tr("draft.regenerate"),
            on_click=_on_generate,
            args=(doc_type,),
            key="draft.again",
            help=tr("regenerate.help"),
        )
        if REQUEST not in st.session_state and _form_changed(doc_type):
            cols[2].caption(tr("regenerate.form_changed"))
    if st.session_state.get(ERRORS):
        st.error(tr("draft.fix_fields"))
    if st.session_state.get(PROBLEM):
        st.error(tr("draft.template_problem", detail=st.session_state[PROBLEM]))
    request = st.session_state.pop(REQUEST, None)
    if request is not None:
        st.session_state[RESULT] = None
        draft_run.stream(request, user.name)
    _show_result(doc_type, user.name)
    draft_state.keep(user, doc_type)
