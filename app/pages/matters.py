"""Matters page (案件): find or create a matter, enter its facts once, see the route they lead
to and the reports it needs, draft any of its documents from them, and list the documents
drafted for it. Editing the facts saves a new version (the audit log keeps every one)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import streamlit as st

from app.domain import BilingualError, Role, describe
from app.pages.matter_panel import MATTER, NEED_KEYS
from app.pages.plain_text import plain
from app.pages.ui_state import context, lang, require_user, tr
from audit.domain import User

if TYPE_CHECKING:
    from app.matters.service import MatterView
    from app.prompts import FieldSpec

OPEN = "matters.open"  # the matter number shown
DRAFTING_PATH = "drafting"  # the Draft page's url path (app/main.py PAGES)


def _field(key: str, spec: FieldSpec, value: str) -> None:
    """One fact as its widget (the select shows the UI language, stores the canonical value)."""
    ui_lang = lang()
    st.session_state.setdefault(key, value if value or spec.kind != "select" else None)
    label = spec.label(ui_lang)
    if spec.kind == "select":
        st.selectbox(label, list(spec.choices), key=key, index=None,
                     placeholder=tr("draft.choose"),
                     format_func=lambda v: spec.choice_label(v, ui_lang))  # fmt: skip
    elif spec.kind == "textarea":
        st.text_area(label, key=key, max_chars=spec.max_length or None, height=80)
    else:
        st.text_input(label, key=key, max_chars=spec.max_length or None)


def _facts_form(prefix: str, facts: Mapping[str, str]) -> dict[str, str]:
    """The matter's fact fields in two columns; returns what they hold now."""
    from app.matters.facts import matter_fields

    fields = matter_fields(context().knowledge.types)
    cols = st.columns(2)
    for i, spec in enumerate(fields):
        with cols[i % 2]:
            _field(f"{prefix}.{spec.name}", spec, facts.get(spec.name, ""))
    return {s.name: str(st.session_state.get(f"{prefix}.{s.name}") or "") for s in fields}


def _create(user: User) -> None:
    from app.matters import service

    ctx = context()
    with st.expander(tr("matter.new"), expanded=False):
        number = st.text_input(tr("matter.number"), key="matters.new.number", max_chars=64)
        client = st.text_input(tr("matter.client"), key="matters.new.client", max_chars=200)
        title = st.text_input(tr("matter.title_field"), key="matters.new.title", max_chars=200)
        facts = _facts_form("matters.new.fact", {})
        if not st.button(tr("matter.create"), key="matters.create", type="primary"):
            return
        if not facts.get("company_name"):
            facts["company_name"] = client.strip()
        try:
            with ctx.session() as session:
                saved = service.create_matter(number, client=client, title=title, facts=facts,
                                              types=ctx.knowledge.types, session=session, actor=user)  # fmt: skip
        except BilingualError as exc:
            st.error(describe(exc).text(lang()))
            return
        st.session_state[OPEN] = saved.number
        st.success(tr("matter.saved", number=saved.number, version=saved.version))


def _list(user: User) -> None:
    from app.matters import service

    query = st.text_input(tr("matter.search"), key="matters.query")
    with context().session() as session:
        found = service.list_matters(session=session, actor=user, query=query or None)
    if not found:
        st.info(tr("matter.none_yet"))
        return
    rows = [{tr("matter.number"): m.number, tr("matter.client"): m.client,
             tr("matter.title_field"): m.title, tr("matter.version"): m.version,
             tr("matter.changed_by"): m.user_name,
             tr("matter.changed_at"): m.created_at.strftime("%Y-%m-%d %H:%M")} for m in found]  # fmt: skip
    st.dataframe(rows, hide_index=True, width="stretch")
    numbers = [m.number for m in found]
    if st.session_state.get(OPEN) not in numbers:
        st.session_state[OPEN] = numbers[0]
    st.selectbox(tr("matter.open"), numbers, key=OPEN)


def _needs(view: MatterView) -> None:
    from app.matters.service import stale_reports

    types, ui_lang = context().knowledge.types, lang()
    if view.decision is None:
        st.warning(tr("matter.no_route"))
    else:
        st.info(tr("matter.route", route=view.decision.route_text.text(ui_lang)),
                icon=":material/route:")  # fmt: skip
        st.caption(
            f"{plain(view.decision.basis_text())} · "
            f"{plain(view.decision.explanation.text(ui_lang))}"
        )
    for type_id, warning in stale_reports(view, types):
        title = types[type_id].title(ui_lang)
        st.warning(f"{plain(title)}：{plain(warning.text(ui_lang))}", icon=":material/event_busy:")
    st.markdown(f"**{tr('matter.needs')}**")
    for need in view.needs:
        if need.type_id not in types:
            continue
        cols = st.columns([5, 1])
        basis = f"（{need.basis.text}）" if need.basis else ""
        cols[0].markdown(f"**{plain(types[need.type_id].title(ui_lang))}** · {tr(NEED_KEYS[need.need])}"
                         f"{plain(basis)}  \n{plain(need.why.text(ui_lang))}")  # fmt: skip
        if cols[1].button(tr("matter.draft_it"), key=f"matters.draft.{need.type_id}.{need.need}"):
            _go_draft(view.matter.number, need.type_id)


def _go_draft(number: str, type_id: str) -> None:
    """Open the Draft page on this type with the matter chosen: its facts fill the form."""
    from app.pages import draft

    st.session_state[MATTER] = number
    st.session_state["draft.doc_type"] = type_id
    st.switch_page(st.Page(draft.render, url_path=DRAFTING_PATH))


def _edit(view: MatterView, user: User) -> None:
    from app.matters import service
    from audit.matters import MatterConflict

    ctx = context()
    matter = view.matter
    prefix = f"matters.edit.{matter.number}.{matter.version}"
    with st.expander(tr("matter.edit")):
        client = st.text_input(tr("matter.client"), value=matter.client, key=f"{prefix}.client")
        title = st.text_input(tr("matter.title_field"), value=matter.title, key=f"{prefix}.title")
        facts = _facts_form(f"{prefix}.fact", matter.facts)
        if not st.button(tr("matter.save"), key=f"{prefix}.save", type="primary"):
            return
        try:
            with ctx.session() as session:
                saved = service.update_matter(matter.number, client=client, title=title,
                                              facts=facts, base=matter.version,
                                              types=ctx.knowledge.types, session=session, actor=user)  # fmt: skip
        except MatterConflict as exc:
            st.error(exc.message(lang()))
            st.button(tr("matter.reload"), key=f"{prefix}.reload")
            return
        except BilingualError as exc:
            st.error(describe(exc).text(lang()))
            return
        st.success(tr("matter.saved", number=saved.number, version=saved.version))
        st.rerun()


def _documents(number: str, user: User) -> None:
    from app.matters import service

    ctx = context()
    types, ui_lang = ctx.knowledge.types, lang()
    with ctx.session() as session:
        docs = service.matter_documents(number, session=session, actor=user)
        versions = service.matter_history(number, session=session, actor=user)
    st.markdown(f"**{tr('matter.documents', n=len(docs))}**")
    if docs:
        rows = [{tr("history.col_id"): d.id,
                 tr("history.col_time"): d.created_at.strftime("%Y-%m-%d %H:%M"),
                 tr("history.col_user"): d.user_name,
                 tr("history.col_type"): types[d.doc_type].title(ui_lang)
                 if d.doc_type in types else d.doc_type,
                 tr("history.col_status"): tr(f"status.{d.status}"),
                 tr("history.col_errors"): d.error_count} for d in docs]  # fmt: skip
        st.dataframe(rows, hide_index=True, width="stretch")
        st.caption(tr("matter.documents_hint"))
    with st.expander(tr("matter.versions", n=len(versions))):
        for v in reversed(versions):
            st.markdown(f"**v{plain(v.version)}** · {plain(v.user_name)} · "
                        f"{plain(v.created_at.strftime('%Y-%m-%d %H:%M'))}")  # fmt: skip
            st.caption(plain("；".join(f"{k}：{val}" for k, val in v.facts.items())))


def render() -> None:
    from app.matters import service

    ctx = context()
    user = require_user(Role.DRAFTER)
    st.title(tr("matter.page_title"))
    st.caption(tr("matter.page_help"))
    _create(user)
    _list(user)
    number = st.session_state.get(OPEN)
    if not number:
        return
    try:
        with ctx.session() as session:
            view = service.open_matter(
                number, types=ctx.knowledge.types, session=session, actor=user
            )
    except BilingualError as exc:
        st.error(describe(exc).text(lang()))
        return
    st.divider()
    matter = view.matter
    st.subheader(f"{plain(matter.number)} · {plain(matter.client)}")
    st.caption(tr("matter.header", title=matter.title or "—", version=matter.version,
                  user=matter.user_name, at=matter.created_at.strftime("%Y-%m-%d %H:%M")))  # fmt: skip
    _needs(view)
    _edit(view, user)
    _documents(matter.number, user)
