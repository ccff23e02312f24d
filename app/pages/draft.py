"""Draft page (the home page): document type → form → streamed draft with live checks,
Stop / Regenerate, an editable result, findings, stats and downloads."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import streamlit as st

from app.i18n import pick
from app.pages import draft_run
from app.pages.findings_view import show_findings, show_stats, show_text
from app.ui_state import chosen_endpoint, lang, library, require_user, tr

RESULT = "draft.result"
REQUEST = "draft.request"
ERRORS = "draft.field_errors"
PROBLEM = "draft.template_problem"


def _field_key(doc_id: str, name: str) -> str:
    return f"draft.field.{doc_id}.{name}"


def _fill_example(doc_type: Any) -> None:
    """Button callback: put the document type's example values into the form."""
    for spec in doc_type.fields:
        if spec.kind == "select" and spec.example not in spec.choices:
            continue
        st.session_state[_field_key(doc_type.id, spec.name)] = str(spec.example or "")
    st.session_state.pop(ERRORS, None)


def _field_widget(doc_id: str, spec: Any) -> None:
    """One form field, its widget chosen by kind; values stay strings for the service."""
    key = _field_key(doc_id, spec.name)
    label = spec.label(lang()) + (" *" if spec.required else "")
    if spec.kind == "select":
        st.selectbox(label, list(spec.choices), index=None, key=key, placeholder=tr("draft.choose"))
    elif spec.kind == "textarea":
        st.text_area(label, key=key, max_chars=spec.max_length or None, height=90)
    else:
        placeholder = {"date": "YYYY-MM-DD", "number": "0"}.get(spec.kind, "")
        st.text_input(label, key=key, max_chars=spec.max_length or None, placeholder=placeholder)


def _form(doc_type: Any) -> None:
    errors: dict[str, Any] = st.session_state.get(ERRORS, {})
    cols = st.columns(2)
    for i, spec in enumerate(doc_type.fields):
        with cols[i % 2]:
            _field_widget(doc_type.id, spec)
            err = errors.get(spec.name)
            if err is not None:
                st.error(pick(lang(), err.message_zh, err.message_en), icon=":material/error:")


def _parameters(doc_type: Any) -> None:
    """Generation length and temperature, defaulting to the document type's own."""
    with st.expander(tr("draft.parameters")):
        cols = st.columns(2)
        cols[0].number_input(
            tr("draft.max_tokens"),
            min_value=16,
            max_value=8192,
            value=int(doc_type.defaults.max_tokens),
            step=64,
            key=f"draft.max_tokens.{doc_type.id}",
        )
        cols[1].slider(
            tr("draft.temperature"),
            0.0,
            1.5,
            float(doc_type.defaults.temperature),
            0.05,
            key=f"draft.temperature.{doc_type.id}",
        )


def _values(doc_type: Any) -> dict[str, str]:
    values: dict[str, str] = {}
    for spec in doc_type.fields:
        raw = st.session_state.get(_field_key(doc_type.id, spec.name))
        values[spec.name] = "" if raw is None else str(raw).strip()
    return values


def _on_generate(doc_type: Any) -> None:
    """Button callback: validate the form; a valid form becomes the pending request."""
    from app.prompts import FieldErrors, TemplateProblem, render

    st.session_state.pop(PROBLEM, None)
    try:
        rendered = render(doc_type, _values(doc_type))
    except FieldErrors as exc:
        st.session_state[ERRORS] = dict(exc.errors)
        return
    except TemplateProblem as exc:
        st.session_state[PROBLEM] = str(exc)
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
        rendered=rendered,
        params=params,
        required_sections=tuple(doc_type.required_sections),
        endpoint=chosen_endpoint(),
    )


def _regenerate() -> None:
    last = st.session_state.get(RESULT)
    if last is not None:
        st.session_state[REQUEST] = last.request.with_endpoint(chosen_endpoint())


def _pick_type() -> Any | None:
    lib = library()
    for problem in getattr(lib, "errors", []):
        st.warning(tr("draft.broken_type", detail=problem))
    if not lib.types:
        st.error(tr("draft.no_types"))
        return None
    ids = sorted(lib.types)
    default = ids.index("cross-border-filing-guide") if "cross-border-filing-guide" in ids else 0
    ui_lang = lang()  # bound now: format_func may be called outside the script run
    doc_id = st.selectbox(
        tr("draft.doc_type"),
        ids,
        index=default,
        key="draft.doc_type",
        format_func=lambda i: lib.types[i].title(ui_lang),
    )
    doc_type = lib.types[doc_id]
    help_text = doc_type.help_en if lang() == "en" else doc_type.help_zh
    if help_text:
        st.caption(help_text)
    return doc_type


def _show_result(user_name: str) -> None:
    result: draft_run.DraftResult | None = st.session_state.get(RESULT)
    if result is None:
        return
    st.divider()
    status_text = tr(f"status.{result.status}")
    if result.status == "error":
        st.error(tr("draft.failed", detail=result.error_text(lang())))
        st.button(tr("draft.retry"), on_click=_regenerate, key="draft.retry", type="primary")
    elif result.status == "stopped":
        st.warning(tr("draft.stopped_note"))
    else:
        st.success(tr("draft.complete_note"))
    st.caption(tr("draft.result_caption", status=status_text, id=result.generation_id or "—"))
    if result.record_error:
        st.error(tr("draft.record_failed", detail=result.record_error))
    show_stats(result.stats)
    if not result.text:
        return
    edited = st.text_area(
        tr("draft.edit"), value=result.text, height=320, key=f"draft.edit.{result.token}"
    )
    check = draft_run.check_text(edited, result.request.required_sections)
    left, right = st.columns([3, 2])
    with left:
        st.markdown(f"**{tr('draft.highlighted')}**")
        show_text(edited, check.findings)
    with right:
        show_findings(check.findings)
    draft_run.download_buttons(result, edited, check, user_name)
    draft_run.approve_button(result, edited)


def render() -> None:
    user = require_user("drafter")
    st.title(tr("draft.title"))
    draft_run.collect_interrupted()
    doc_type = _pick_type()
    if doc_type is None:
        return
    st.button(tr("draft.fill_example"), on_click=_fill_example, args=(doc_type,), key="draft.fill")
    _form(doc_type)
    _parameters(doc_type)
    cols = st.columns([1, 1, 4])
    cols[0].button(
        tr("draft.generate"),
        on_click=_on_generate,
        args=(doc_type,),
        type="primary",
        key="draft.go",
    )
    if st.session_state.get(RESULT) is not None:
        cols[1].button(tr("draft.regenerate"), on_click=_regenerate, key="draft.again")
    if st.session_state.get(ERRORS):
        st.error(tr("draft.fix_fields"))
    if st.session_state.get(PROBLEM):
        st.error(tr("draft.template_problem", detail=st.session_state[PROBLEM]))
    request = st.session_state.pop(REQUEST, None)
    if request is not None:
        st.session_state[RESULT] = None
        draft_run.stream(request, user.name)
    _show_result(user.name)
