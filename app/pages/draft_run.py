"""Running one draft generation inside a Streamlit script run.

A click on Stop (or any widget) reruns the script, which interrupts the streaming loop
with an exception at the next UI update. The `finally` block therefore cancels the run,
keeps the partial text in session_state and records the outcome, so the next run shows
what had arrived, marked as stopped.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import streamlit as st

from app.domain import CheckResult, GenerationParams, GenerationStats, RenderedPrompt
from app.i18n import pick
from app.pages.findings_view import show_findings, show_text
from app.ui_state import client, db_session, lang, settings, tr

RESULT = "draft.result"
LIVE = "draft.live"


@dataclass(frozen=True)
class DraftRequest:
    """What the Generate button asked for (kept so Regenerate/Retry can repeat it)."""

    doc_type_id: str
    title: str
    rendered: RenderedPrompt
    params: GenerationParams
    required_sections: tuple[str, ...]
    endpoint: str

    def with_endpoint(self, endpoint: str) -> DraftRequest:
        return replace(self, endpoint=endpoint)


@dataclass
class DraftResult:
    """The last generation's outcome as the page shows it."""

    request: DraftRequest
    status: str
    text: str
    stats: GenerationStats
    error: Any = None
    generation_id: int | None = None
    record_error: str = ""
    token: str = field(default_factory=lambda: uuid.uuid4().hex[:8])

    def error_text(self, ui_lang: str) -> str:
        return message_of(self.error, ui_lang)


def message_of(error: Any, ui_lang: str) -> str:
    """A service error (bilingual object, exception or string) as text in the UI language."""
    if error is None:
        return ""
    zh, en = getattr(error, "message_zh", None), getattr(error, "message_en", None)
    if zh or en:
        return pick(ui_lang, str(zh or en), str(en or zh))
    return str(error)


def check_text(text: str, required_sections: tuple[str, ...]) -> CheckResult:
    """Findings for the (possibly edited) text, with the firm's statute catalogue if any."""
    from app.generation import check_draft

    return check_draft(text, required_sections)


def _preflight(request: DraftRequest) -> Any | None:
    """The client, after checking the prompt fits the context; None (with a message) if not."""
    from app.prompts import ContextTooLong, check_context

    try:
        llm = client(request.endpoint)
        tokens = llm.count_tokens(request.rendered.messages())
        limit = llm.context_limit()
        if tokens is not None and limit:
            check_context(tokens, request.params.max_tokens, limit)
    except ContextTooLong as exc:
        st.error(tr("draft.context_too_long", detail=message_of(exc, lang())))
        return None
    except Exception as exc:  # a server that is down or misconfigured: say so, offer Retry
        _server_problem(request, exc)
        return None
    return llm


def _server_problem(request: DraftRequest, exc: BaseException) -> None:
    st.session_state[RESULT] = DraftResult(
        request, "error", "", GenerationStats(), error=tr("draft.server_down", detail=str(exc))
    )


def _record(outcome: Any, user_name: str) -> tuple[int | None, str]:
    from app.generation import record

    try:
        with db_session() as session:
            return int(record(outcome, user_name=user_name, session=session)), ""
    except Exception as exc:  # the draft is kept on screen even if the log write fails
        return None, str(exc)


@dataclass
class LiveDraft:
    """A generation in flight, shared with the next script run.

    With Streamlit's fast reruns a click on Stop starts a new script run at once while the
    old run is told to stop at its next UI call; the new run finds this object in
    session_state, cancels the stream and waits for the old run's `finally` to store the
    outcome here.
    """

    request: DraftRequest
    run: Any
    text: str = ""
    result: DraftResult | None = None
    done: threading.Event = field(default_factory=threading.Event)


def _result_of(live: LiveDraft, user_name: str) -> DraftResult:
    """The run's outcome (complete, stopped or error), written to the audit log."""
    try:
        outcome = live.run.outcome()
    except Exception as exc:
        return DraftResult(live.request, "stopped", live.text, GenerationStats(), error=exc)
    gen_id, record_error = _record(outcome, user_name)
    return DraftResult(
        live.request,
        str(outcome.status),
        str(outcome.text or live.text),
        outcome.stats,
        error=getattr(outcome, "error", None),
        generation_id=gen_id,
        record_error=record_error,
    )


def collect_interrupted() -> None:
    """Called at the top of the Draft page: finish a generation an earlier run left behind."""
    live = st.session_state.get(LIVE)
    if not isinstance(live, LiveDraft):
        return
    if not live.done.is_set():
        live.run.cancel()  # unblocks the old run even if it waits on a slow server
        with st.spinner(tr("draft.stopping")):
            live.done.wait(timeout=30)
    if live.result is not None:
        st.session_state[RESULT] = live.result
        st.session_state.pop(LIVE, None)


def _consume(live: LiveDraft, status: Any, box: Any, findings_box: Any) -> bool:
    """Draw each update as it arrives; True when the stream ended by itself."""
    updates = iter(live.run)
    started, first, chunks = time.monotonic(), None, 0
    try:
        for update in updates:
            live.text = update.text
            chunks += 1
            first = first if first is not None else time.monotonic() - started
            rate = chunks / max(1e-6, time.monotonic() - started - first)
            status.caption(tr("draft.streaming", ttft=first, chunks=chunks, rate=rate))
            show_text(update.text, update.check.findings if update.check else (), box)
            if update.check is not None:
                show_findings(update.check.findings, findings_box)
        return True
    finally:
        if not live.run.finished:  # Stop (or any rerun) interrupted us: keep the partial text
            live.run.cancel()
            updates.close()


def stream(request: DraftRequest, user_name: str) -> None:
    """Stream a draft into the page, with Stop, live stats and findings as it arrives."""
    from app.generation import stream_draft

    llm = _preflight(request)
    if llm is None:
        return
    endpoint = settings().all_endpoints()[request.endpoint]
    area = st.empty()
    with area.container():
        st.button(tr("draft.stop"), key="draft.stop", type="primary", icon=":material/stop_circle:")
        status, box, findings_box = st.empty(), st.empty(), st.empty()
    run = stream_draft(
        llm,
        request.rendered,
        request.params,
        required_sections=request.required_sections,
        endpoint_name=request.endpoint,
        speculative_label=endpoint.label,
    )
    live = LiveDraft(request, run)
    st.session_state[LIVE] = live
    try:
        _consume(live, status, box, findings_box)
    finally:
        live.result = _result_of(live, user_name)
        live.done.set()
    st.session_state[RESULT] = live.result
    st.session_state.pop(LIVE, None)
    area.empty()


def download_buttons(result: DraftResult, text: str, check: CheckResult, user_name: str) -> None:
    """Download the (edited) draft as Markdown and as DOCX with findings as comments."""
    from app.export import ExportMeta, draft_to_docx

    stem = f"{result.request.doc_type_id}-{result.generation_id or result.token}"
    cols = st.columns(2)
    cols[0].download_button(
        tr("draft.download_md"), text.encode("utf-8"), f"{stem}.md", "text/markdown", key="dl.md"
    )
    values = result.request.rendered.values
    meta = ExportMeta(
        title=result.request.title,
        matter_ref=values.get("matter_ref", ""),
        client=values.get("company_name", values.get("client", "")),
        author=user_name,
        created=datetime.now(),
        generation_id=result.generation_id,
        template_hash=result.request.rendered.template_hash,
    )
    try:
        docx = draft_to_docx(text, meta=meta, findings=check.findings)
    except Exception as exc:
        cols[1].error(tr("draft.docx_failed", detail=str(exc)))
        return
    mime = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    cols[1].download_button(tr("draft.download_docx"), docx, f"{stem}.docx", mime, key="dl.docx")


def approve_button(result: DraftResult, text: str) -> None:
    """Approve the (edited) draft as a precedent for the retrieval drafter."""
    from app.approvals import approve_output
    from app.ui_state import current_user

    if not st.button(
        tr("draft.approve"), key=f"draft.approve.{result.token}", help=tr("draft.approve_help")
    ):
        return
    user = current_user()
    if user is None:
        return
    try:
        approval = approve_output(
            user,
            text,
            doc_type=result.request.doc_type_id,
            generation_id=result.generation_id,
            settings=settings(),
        )
    except Exception as exc:  # empty draft, no permission, disk full: say so, keep the text
        st.error(tr("draft.approve_failed", detail=message_of(exc, lang())))
        return
    st.success(tr("draft.approved", file=approval.path.name))
