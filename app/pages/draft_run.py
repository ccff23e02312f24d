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
from typing import TYPE_CHECKING

import streamlit as st

from app.domain import (
    CheckResult,
    DraftMode,
    GenerationParams,
    GenerationStats,
    GenerationStatus,
    GuardMark,
    MatterRef,
    describe,
)
from app.drafting.context import DraftContext
from app.pages.findings_view import show_findings, show_text
from app.pages.ui_state import client, context, lang, tr

if TYPE_CHECKING:
    from streamlit.delta_generator import DeltaGenerator

    from app.config import EndpointConfig
    from app.context import Context
    from app.drafting.freeform import DraftRun
    from app.drafting.outcome import GenerationOutcome
    from app.drafting.outline_run import OutlineRun
    from app.drafting.recording import Kept
    from app.drafting.service import Drafting
    from app.outline.provenance import PartOrigin
    from app.outline.run import PartResult, Phase

RESULT = "draft.result"
LIVE = "draft.live"


@dataclass(frozen=True)
class DraftRequest:
    """What the Generate (or Regenerate / Retry) button asked for, from the form at that click;
    `prepare` turns it into the draft's context."""

    doc_type_id: str
    title: str
    values: dict[str, str]  # the form's validated, filled-in values
    params: GenerationParams
    endpoint: str
    mode: DraftMode | None = None  # None: the outline where the type has one
    matter: MatterRef | None = None  # the matter (案件) it is drafted for


@dataclass
class DraftResult:
    """The last draft as the page shows it: the request and how the draft ended (`outcome`, from
    the run or read back from the log, holds its context, status, text, numbers, marks and
    parts); None when it never ran (the server was not there: `problem` says why, `prepared` is
    the context the form gives now, if it renders)."""

    request: DraftRequest
    outcome: GenerationOutcome | None = None
    generation_id: int | None = None
    record_error: str = ""
    problem: str | None = None
    prepared: DraftContext | None = None
    token: str = field(default_factory=lambda: uuid.uuid4().hex[:8])

    @property
    def context(self) -> DraftContext | None:
        return self.outcome.context if self.outcome is not None else self.prepared

    @property
    def status(self) -> GenerationStatus:
        return self.outcome.status if self.outcome is not None else GenerationStatus.ERROR

    @property
    def text(self) -> str:
        return self.outcome.text if self.outcome is not None else ""

    @property
    def stats(self) -> GenerationStats:
        return self.outcome.stats if self.outcome is not None else GenerationStats()

    @property
    def marks(self) -> tuple[GuardMark, ...]:
        return tuple(self.outcome.marks) if self.outcome is not None else ()

    @property
    def thinking(self) -> str:
        return self.outcome.thinking if self.outcome is not None else ""

    @property
    def parts(self) -> tuple[PartResult, ...]:
        return tuple(self.outcome.parts) if self.outcome is not None else ()

    @property
    def provenance(self) -> tuple[PartOrigin, ...]:
        return tuple(self.outcome.provenance) if self.outcome is not None else ()

    def error_text(self, ui_lang: str) -> str:
        error = self.problem if self.outcome is None else self.outcome.error
        return describe(error).text(ui_lang)


def check_text(context: DraftContext, text: str) -> CheckResult:
    """Findings for the (possibly edited) text under the draft's context (app.drafting.checking:
    the same check a saved revision and `lexspec check --generation` run)."""
    from app.drafting.checking import check

    return check(context, text)


def _begin(request: DraftRequest, user_name: str, ctx: Context) -> Drafting | None:
    """The draft begun through the draft service's door (context prepared: outline planned,
    prompt fitted to the model; run started, nothing sent yet); None (with a message) if the
    template fails, the prompt does not fit or the server is not there."""
    from app.drafting.service import DraftRequest as Request
    from app.drafting.service import begin
    from app.prompts import ContextTooLong, TemplateProblem

    try:
        asked = Request(
            ctx.knowledge.types[request.doc_type_id],
            request.values,
            request.endpoint,
            user_name=user_name,
            params=request.params,
            mode=request.mode,
            matter=request.matter,
        )
        return begin(ctx, asked, client=client(request.endpoint))
    except TemplateProblem as exc:
        st.error(tr("draft.template_problem", detail=str(exc)))
        return None
    except ContextTooLong as exc:
        st.error(tr("draft.context_too_long", detail=describe(exc).text(lang())))
        return None
    except Exception as exc:  # noqa: BLE001 - a server down or misconfigured: say so, offer Retry
        _server_problem(request, exc, ctx)
        return None


def _server_problem(request: DraftRequest, exc: BaseException, ctx: Context) -> None:
    """An error result for a server that is not there, with the draft's context prepared
    without it (the prompt the form gives now), where the form still renders."""
    from app.drafting.context import prepare

    try:
        context: DraftContext | None = prepare(
            ctx.knowledge.types[request.doc_type_id],
            request.values,
            knowledge=ctx.knowledge,
            params=request.params,
            mode=request.mode,
            matter=request.matter,
        )
    except Exception:  # noqa: BLE001 - the server's problem is the one to show
        context = None
    st.session_state[RESULT] = DraftResult(
        request, problem=tr("draft.server_down", detail=str(exc)), prepared=context
    )


def record_line(kept: Kept | None, language: str) -> str:
    """Why the audit log did not take the draft (it waits in the spool), in `language`; ""."""
    return kept.problem.text(language) if kept is not None and kept.problem else ""


@dataclass
class LiveDraft:
    """A generation in flight, shared with the next script run.

    With Streamlit's fast reruns a click on Stop starts a new script run at once while the
    old run is told to stop at its next UI call; the new run finds this object in
    session_state, cancels the stream and waits for the old run's `finally` to store the
    outcome here.
    """

    request: DraftRequest
    drafting: Drafting
    result: DraftResult | None = None
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def run(self) -> DraftRun | OutlineRun:
        return self.drafting.run


def _result_of(live: LiveDraft, language: str) -> DraftResult:
    """The run's outcome (complete, stopped or error), written to the audit log through the
    draft service (a run that cannot give its outcome is kept as stopped with its text)."""
    drafted = live.drafting.finish()
    outcome = drafted.outcome
    if not outcome.text and live.drafting.text:  # what arrived, where the run kept none
        outcome = replace(outcome, text=live.drafting.text)
    return DraftResult(
        live.request,
        outcome,
        generation_id=drafted.generation_id,
        record_error=record_line(drafted.kept, language),
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


def queue_text(endpoint: EndpointConfig) -> str:
    """Before the first token: what the server is already busy with when the draft is sent (its
    place in the queue), from the server's /metrics; "" when it is idle or does not say."""
    from app.llm.metrics_parse import RUNNING, WAITING, scrape

    snap = scrape(endpoint)
    running, waiting = int(snap.gauges.get(RUNNING, 0)), int(snap.gauges.get(WAITING, 0))
    if not snap.ok or running + waiting == 0:
        return ""
    return tr("draft.queued", running=running, waiting=waiting, position=waiting + 1)


def _after_queue(queued: str, text: str) -> str:
    """A status line before the first token: the queue line (if any), then `text`."""
    return f"{queued} {text}" if queued else text


def _consume(
    live: LiveDraft,
    status: DeltaGenerator,
    box: DeltaGenerator,
    findings_box: DeltaGenerator,
    queued: str = "",
) -> bool:
    """Draw each update as it arrives; True when the stream ended by itself. `queued` (the
    server's queue when the draft was sent) is shown until the first token arrives."""
    updates = iter(live.run)
    started, first, chunks = time.monotonic(), None, 0
    try:
        for update in updates:
            live.drafting.text = update.text
            prompt = update.phase is not None and update.phase.name == "prompt"
            if prompt or (not update.delta and (update.queued is not None or first is None)):
                # waiting: for a part's prompt, or in the server's queue (as it says)
                ahead = tr("draft.queued_ahead", ahead=update.queued) if update.queued else ""
                line = phase_text(update.phase) if update.phase is not None and prompt else ""
                status.caption(_after_queue(ahead or (queued if first is None else ""), line))
                show_text(update.text, (), box)
                continue
            chunks += 1
            first = first if first is not None else time.monotonic() - started
            line = streaming_line(first, chunks, time.monotonic() - started - first)
            if update.phase is not None:
                line = f"{phase_text(update.phase)} {line}"
            status.caption(line)
            show_text(update.text, update.check.findings if update.check else (), box)
            if update.check is not None:
                on = live.run.context.doc_date
                show_findings(update.check.findings, findings_box, update.check.citations, on)
        return True
    finally:
        if not live.run.finished:  # Stop (or any rerun) interrupted us: keep the partial text
            live.run.cancel()
            updates.close()


RATE_AFTER_S = 0.5  # a rate over a shorter span is noise (one chunk in 1 µs is "10⁶/s")


def streaming_line(ttft: float, chunks: int, since_first: float) -> str:
    """The live caption: first-token delay, chunks so far and, once the chunks after the first
    span RATE_AFTER_S, their rate (chunks after the first / time since the first)."""
    if since_first < RATE_AFTER_S:
        return tr("draft.streaming_first", ttft=ttft, chunks=chunks)
    return tr("draft.streaming", ttft=ttft, chunks=chunks, rate=(chunks - 1) / since_first)


def phase_text(phase: Phase) -> str:
    """Where an outline draft is: computing a part's prompt (N tokens) or writing it."""
    where = {"part": phase.step + 1, "parts": phase.steps, "heading": phase.heading}
    if phase.name != "prompt":
        return tr("outline.streaming", **where)
    if phase.prompt_tokens is None:
        return tr("outline.prompt_uncounted", **where)
    return tr("outline.prompt", tokens=phase.prompt_tokens, **where)


def stream(request: DraftRequest, user_name: str) -> None:
    """Stream a draft into the page, with Stop, live stats and findings as it arrives."""
    # who acts and in which language, read now: once Stop is pressed, Streamlit answers any
    # read of session_state with its stop request, so the outcome is recorded without one
    ctx, language = context(), lang()
    drafting = _begin(request, user_name, ctx)
    if drafting is None:
        return
    prepared = drafting.context
    endpoint = ctx.settings.all_endpoints()[request.endpoint]
    area = st.empty()
    with area.container():
        st.button(tr("draft.stop"), key="draft.stop", type="primary", icon=":material/stop_circle:")
        status, box, findings_box = st.empty(), st.empty(), st.empty()
    queued = queue_text(endpoint)
    if prepared.mode == "free-form" and prepared.prompt.prompt_tokens:
        prompt = tr("outline.free_prompt", tokens=prepared.prompt.prompt_tokens)
        status.caption(_after_queue(queued, prompt))
    elif queued:
        status.caption(queued)
    live = LiveDraft(request, drafting)
    st.session_state[LIVE] = live
    try:
        _consume(live, status, box, findings_box, queued)
    finally:
        live.result = _result_of(live, language)
        live.done.set()
    st.session_state[RESULT] = live.result
    st.session_state.pop(LIVE, None)
    area.empty()


def download_buttons(result: DraftResult, text: str, check: CheckResult, user_name: str) -> None:
    """Download the (edited) draft as Markdown, as the review DOCX (findings as comments) and as
    the client copy (no findings, codes or appendix), named client — document — date."""
    from app.drafting.revision_export import header_meta
    from app.export.cited import cited_articles_of
    from app.export.docx_writer import client_copy_docx, default_reference, draft_to_docx
    from app.export.naming import export_name
    from app.pages.docx_style import style_picker

    drafted = result.context
    title = (drafted.title if drafted else "") or result.request.title
    client = drafted.header.client if drafted else ""
    day = (drafted.doc_date if drafted else None) or datetime.now().date()
    cols = st.columns(3)
    cols[0].download_button(
        tr("draft.download_md"),
        text.encode("utf-8"),
        export_name(title=title, day=day, client=client, ext="md"),
        "text/markdown",
        key="dl.md",
    )
    if drafted is None:
        return
    meta = header_meta(
        drafted.header,
        title=title,  # the route-conditional title
        doc_date=drafted.doc_date,
        author=user_name,
        generation_id=result.generation_id,
        template_hash=drafted.prompt.template_hash,
    )
    with_articles = cols[1].checkbox(tr("citations.export_appendix"), key="dl.cited")
    cited = cited_articles_of(check.citations, drafted.doc_date) if with_articles else ()
    with cols[1]:
        style = style_picker(drafted.header.style, "dl.style")
    official = style == "official"  # the copy the client stamps: no check comments or appendix
    reference = default_reference(context().settings, style)
    try:
        docx = draft_to_docx(
            text,
            meta=meta,
            findings=check.findings,
            comments=not official,
            appendix=not official,
            cited_articles=cited,
            reference=reference,
            style=style,
        )
        clean = docx if official else client_copy_docx(text, meta=meta, reference=reference)
    except Exception as exc:  # noqa: BLE001 - the page says the export failed, never a traceback
        cols[1].error(tr("draft.docx_failed", detail=str(exc)))
        return
    mime = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    name = export_name(title=title, day=day, client=client, copy="review")
    cols[1].download_button(tr("draft.download_docx"), docx, name, mime, key="dl.docx")
    cols[2].download_button(
        tr("draft.download_client"),
        clean,
        export_name(title=title, day=day, client=client),
        mime,
        key="dl.client",
        help=tr("draft.download_client_help"),
    )
