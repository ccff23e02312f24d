"""History page: search your own generations (admins: everyone's), reopen one with its text,
findings, numbers, prompt and template hash, and download it again."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from app.domain import GenerationStatus, Role, describe
from app.drafting.logged import logged_stats, stored_findings
from app.i18n import t
from app.pages import history_actions, precedents_view, revisions_view
from app.pages.findings_view import show_stats, text_and_findings
from app.pages.plain_text import plain
from app.pages.ui_state import context, lang, require_user, tr
from audit.domain import GenerationSummary, StoredGeneration, User

if TYPE_CHECKING:
    from app.drafting.history import HistoryPage


def _client_fields() -> dict[str, str]:
    from app.drafting.context import client_field

    return {
        type_id: client_field(doc_type) for type_id, doc_type in context().knowledge.types.items()
    }


def _search(user: User, text: str, party: str, status: str | None) -> HistoryPage:
    from app.drafting import history

    with context().session() as session:
        return history.search(
            session=session,
            actor=user,
            text=text or None,
            party=party or None,
            client_fields=_client_fields(),
            status=status,
        )


def _type_name(doc_type: str) -> str:
    types = context().knowledge.types
    return types[doc_type].title(lang()) if doc_type in types else doc_type


def _party(row: GenerationSummary, client_fields: dict[str, str]) -> str:
    from app.drafting.history import parties

    client, matter = parties(row, client_fields)
    return " · ".join(v for v in (client, matter) if v)


def _table(rows: list[GenerationSummary]) -> None:
    fields = _client_fields()
    table = [
        {
            tr("history.col_id"): r.id,
            tr("history.col_time"): r.created_at.strftime("%Y-%m-%d %H:%M:%S"),
            tr("history.col_user"): r.user_name,
            tr("history.col_party"): _party(r, fields),
            tr("history.col_type"): _type_name(r.doc_type),
            tr("history.col_status"): tr(f"status.{r.status}"),
            tr("history.col_tokens"): "" if r.completion_tokens is None else r.completion_tokens,
            tr("history.col_errors"): r.error_count,
            tr("history.col_preview"): r.preview.replace("\n", " ")[:80],
        }
        for r in rows
    ]
    st.dataframe(table, hide_index=True, width="stretch")


def _show(stored: StoredGeneration, user: User) -> None:
    record = stored.record
    st.subheader(f"#{plain(stored.id)} · {tr(f'status.{record.status}')}")
    if record.error_message:
        st.error(plain(record.error_message))
    show_stats(logged_stats(record))
    findings = list(stored_findings(record.findings))
    text_and_findings(record.output_text, findings)
    st.caption(
        tr(
            "history.template",
            id=record.template_id,
            version=record.template_version,
            hash=record.template_hash,
        )
    )
    st.caption(tr("history.endpoint", endpoint=record.endpoint, model=record.model))
    with st.expander(tr("history.prompt")):
        st.markdown(f"**{tr('history.system_prompt')}**")
        st.code(record.system_prompt, language=None, wrap_lines=True)
        st.markdown(f"**{tr('history.user_prompt')}**")
        st.code(record.user_prompt, language=None, wrap_lines=True)
    revision = revisions_view.history_versions(user, stored)
    history_actions.actions(user, stored, revision)


def _open(user: User, generation_id: int) -> None:
    from app.drafting import history

    try:
        with context().session() as session:
            stored = history.reopen(generation_id, session=session, actor=user)
    except (LookupError, PermissionError):
        st.warning(tr("history.not_found"))
        return
    except Exception as exc:  # noqa: BLE001 - a page shows the failure, never a traceback
        st.error(tr("history.load_failed", detail=describe(exc).text(lang())))
        return
    _show(stored, user)


def render() -> None:
    user = require_user(Role.DRAFTER)
    st.title(tr("history.title"))
    precedents_view.pending_list(user)  # admins: the firm clauses waiting for approval
    ui_lang = lang()  # bound now: format_func may be called outside the script run
    cols = st.columns([3, 2, 1])
    text = cols[0].text_input(tr("history.search"), key="history.text")
    party = cols[1].text_input(tr("history.party_search"), key="history.party")
    status = cols[2].selectbox(
        tr("history.status_filter"),
        [None, *GenerationStatus],
        format_func=lambda s: t("history.all", ui_lang) if s is None else t(f"status.{s}", ui_lang),
        key="history.status",
    )
    try:
        page = _search(user, text.strip(), party.strip(), status)
    except Exception as exc:  # noqa: BLE001 - a page shows the failure, never a traceback
        st.error(tr("history.load_failed", detail=describe(exc).text(lang())))
        return
    rows = list(page.items)
    if not rows:
        st.info(tr("history.empty"))
        return
    st.caption(tr("history.count", n=page.total))
    _table(rows)
    ids = [r.id for r in rows]
    chosen = st.selectbox(
        tr("history.open"), ids, key="history.open", format_func=lambda i: f"#{i}"
    )
    if chosen is not None:
        _open(user, int(chosen))
