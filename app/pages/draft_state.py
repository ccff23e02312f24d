"""The Draft page's working state across reloads: restored from the database when a browser
session first opens the page (a reload, a new tab), kept there after each change, and the
entry point for "Continue editing" from History (app/drafting/workstate.py holds the state).

Nothing of it goes into the URL; the state belongs to the signed-in user."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import streamlit as st

from app.domain import GenerationParams, MatterRef, describe
from app.pages import revisions_view
from app.pages.ui_state import chosen_endpoint, context, lang, tr

if TYPE_CHECKING:
    from app.drafting.workstate import Reopened, WorkingState
    from app.pages.draft_run import DraftResult
    from app.prompts import DocType
    from audit.domain import User

RESULT = "draft.result"
MODE = "draft.mode"
DOC_TYPE = "draft.doc_type"
RESTORED = "draft.state.restored"  # this browser session has had its state restored
LAST = "draft.state.last"  # the state as last kept, so an unchanged run writes nothing
OPEN = "draft.state.open"  # History's "Continue editing": (generation id, revision id or None)
OPENED = "draft.state.opened"  # the note to show once after opening from History


def field_key(doc_id: str, name: str) -> str:
    return f"draft.field.{doc_id}.{name}"


def open_next(generation_id: int, revision_id: int | None) -> None:
    """Have the Draft page open this generation (at this revision, None: the model's text) in
    its editor, with its form, when it next runs (History's "Continue editing")."""
    st.session_state[OPEN] = (generation_id, revision_id)


def restore(user: User) -> None:
    """At the top of the Draft page, before its widgets: History's pending "Continue editing",
    else (once per browser session) the user's kept working state."""
    pending = st.session_state.pop(OPEN, None)
    if pending is not None:
        st.session_state[RESTORED] = True
        _open(user, int(pending[0]), pending[1])
        return
    if st.session_state.get(RESTORED):
        return
    st.session_state[RESTORED] = True
    from app.drafting import workstate

    try:
        with context().session() as session:
            state = workstate.load(session=session, actor=user)
    except Exception as exc:  # noqa: BLE001 - the page still works; say why the form is empty
        st.warning(tr("workstate.load_failed", detail=describe(exc).text(lang())))
        return
    if state is not None:
        _apply(user, state)


def _apply(user: User, state: WorkingState) -> None:
    """Put a kept state back into the page's widgets and editor (values a form no longer
    accepts are left out)."""
    types = context().knowledge.types
    if state.doc_type in types:
        st.session_state[DOC_TYPE] = state.doc_type
    for key, value in state.widgets.items():
        if _acceptable(types, key, value):
            st.session_state[key] = value
    st.session_state[MODE] = state.mode
    if state.generation_id is not None:
        _open(user, state.generation_id, None, kept=True, editor=state.editor, base=state.base)
    st.session_state[LAST] = state


def _acceptable(types: Mapping[str, DocType], key: str, value: object) -> bool:
    """A kept widget value the form can still show: its type and field exist, a choice is one."""
    if not key.startswith("draft.field."):  # the parameters, within the widgets' ranges
        if key.startswith("draft.max_tokens."):
            ok = isinstance(value, int) and 16 <= value <= 8192
        else:
            ok = isinstance(value, int | float) and 0.0 <= value <= 1.5
        return ok and key.split(".", 2)[-1] in types
    doc_id, _, name = key.removeprefix("draft.field.").partition(".")
    spec = types[doc_id].get_field(name) if doc_id in types else None
    if spec is None or not (value is None or isinstance(value, str)):
        return False
    return spec.kind != "select" or value is None or value in spec.choices


def _open(user: User, generation_id: int, revision_id: int | None, *, kept: bool = False,
          editor: str | None = None, base: int = 0) -> None:  # fmt: skip
    """Generation `generation_id` into the page: its result and the editor; from History (not
    `kept`) its form too, with the chosen revision's text (None: the model's) in the editor."""
    from app.drafting import workstate

    try:
        with context().session() as session:
            opened = workstate.reopen_for_editing(
                generation_id, revision_id, session=session, actor=user, newest=kept, base=base
            )
    except Exception as exc:  # noqa: BLE001 - gone, not theirs, database down: the form stays as it is
        st.warning(tr("workstate.open_failed", id=generation_id, detail=describe(exc).text(lang())))
        return
    result, latest = _result(opened), opened.latest
    if kept and editor is not None and opened.base_text is not None:  # a reload: as it was left
        revisions_view.open_editor(result, base, opened.base_text, editor)
    elif kept:  # the editor held nothing (or its base is gone): the newest text
        revisions_view.open_editor(result, latest.number, latest.text, latest.text)
    else:  # from History: edit on top of the newest revision, whichever text was opened
        _fill_form(opened)
        revisions_view.open_editor(result, latest.number, latest.text, opened.text)
        st.session_state[OPENED] = (opened.number, latest.number)
        st.session_state[MODE] = "free-form" if result.request.mode == "free-form" else "outline"
    st.session_state[RESULT] = result


def _fill_form(opened: Reopened) -> None:
    record = opened.stored.record
    doc_type = context().knowledge.types.get(record.doc_type)
    if doc_type is None:
        return
    st.session_state[DOC_TYPE] = doc_type.id
    for spec in doc_type.fields:
        value = str(record.field_values.get(spec.name, "") or "")
        unset = spec.kind == "select" and value not in spec.choices
        st.session_state[field_key(doc_type.id, spec.name)] = None if unset else value
    params = record.params
    for name, kind in (("max_tokens", int), ("temperature", float)):
        if isinstance(params.get(name), int | float):
            st.session_state[f"draft.{name}.{doc_type.id}"] = kind(params[name])


def _result(opened: Reopened) -> DraftResult:
    """The page's result for a logged generation, as the page showed it when it was drafted."""
    from app.drafting.logged import logged_outcome, logged_values, stored_context
    from app.drafting.notes import DraftNotes
    from app.pages.draft_run import DraftRequest, DraftResult

    ctx = context()
    record = opened.stored.record
    doc_type = ctx.knowledge.types.get(record.doc_type)
    notes = DraftNotes.from_record(record)
    params = record.params
    request = DraftRequest(
        doc_type_id=record.doc_type,
        title=doc_type.title(lang()) if doc_type else record.doc_type,
        values={k: v for k, v in logged_values(record).items() if v},
        params=GenerationParams(
            temperature=float(params.get("temperature", 0.0) or 0.0),
            max_tokens=int(params.get("max_tokens", 512) or 512),
        ),
        endpoint=record.endpoint
        if record.endpoint in ctx.settings.all_endpoints()
        else chosen_endpoint(),
        mode=None if notes.mode == "outline" else "free-form",
        matter=MatterRef.from_params(params),
    )
    outcome = logged_outcome(record, stored_context(opened.stored, ctx.knowledge))
    return DraftResult(request, outcome, generation_id=opened.stored.id)


def opened_note() -> None:
    """Once, after "Continue editing" from History: which text the editor holds and what saving
    it makes."""
    opened = st.session_state.pop(OPENED, None)
    if opened is None:
        return
    number, latest = opened
    which = tr("revisions.base_revision", number=number) if number else tr("revisions.base_model")
    if number == latest:
        st.info(tr("workstate.opened", which=which))
    else:
        st.info(tr("workstate.opened_older", which=which, latest=latest, next=latest + 1))


def current(doc_type: DocType) -> WorkingState:
    """The state the page shows now (read after its widgets are drawn)."""
    from app.drafting.workstate import WIDGET_PREFIXES, WorkingState

    widgets = {
        key: value
        for key, value in st.session_state.items()
        if isinstance(key, str)
        and key.startswith(WIDGET_PREFIXES)
        and (value is None or isinstance(value, str | int | float))
    }
    result: DraftResult | None = st.session_state.get(RESULT)
    gid = result.generation_id if result is not None else None
    editor = base = None
    if result is not None and gid is not None:
        editor = st.session_state.get(revisions_view.editor_key(result))
        base = revisions_view.base_number(gid)
    return WorkingState(
        doc_type=doc_type.id,
        widgets=widgets,
        mode=str(st.session_state.get(MODE, "outline")),
        generation_id=gid,
        editor=editor if isinstance(editor, str) else None,
        base=base or 0,
    )


def keep(user: User, doc_type: DocType) -> None:
    """At the end of the Draft page: keep the state when it changed since it was last kept."""
    from app.drafting import workstate

    state = current(doc_type)
    if state == st.session_state.get(LAST):
        return
    try:
        with context().session() as session:
            workstate.save(state, session=session, actor=user)
    except Exception as exc:  # noqa: BLE001 - the page keeps working; the next change tries again
        st.caption(tr("workstate.keep_failed", detail=describe(exc).text(lang())))
        return
    st.session_state[LAST] = state
