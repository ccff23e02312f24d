"""The one draft service, for the Draft page, `lexspec draft`, studies, the writing-quality
measurement and the bench alike: `draft(ctx, request)` prepares the draft's context
(app.drafting.context.prepare), runs it (free-form or outline, checked as it goes), and records
its outcome (app.drafting.recording.keep), returning a `Drafted`. A caller that shows the draft
as it arrives and must keep it even when interrupted (the page, `lexspec draft`) uses the same
door in two steps: `begin` (prepared and started, nothing sent yet), iterate `Drafting.run`,
then `Drafting.finish` (in a `finally`: a run that never finished is kept as stopped).

`record=False` opts out of the audit log explicitly: the writing-quality measurement and the
bench measure an endpoint, they draft nothing for anyone; `lexspec draft --no-audit` too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.domain import Bilingual, DraftMode, GenerationParams, MatterRef, PartWriting
from app.drafting.context import DraftContext
from app.drafting.freeform import DraftRun, stream_draft
from app.drafting.outcome import DraftUpdate, GenerationOutcome, Run
from app.drafting.outline_run import OutlineRun
from app.llm.client import LLMClient

if TYPE_CHECKING:
    from app.config import Settings
    from app.context import Context
    from app.drafting.recording import Kept
    from app.knowledge import Knowledge
    from app.prompts import DocType


@dataclass(frozen=True)
class DraftRequest:
    """One draft asked for: the type and the form's values, the endpoint, who asks (the log's
    author), and optionally the parameters (None: the type's), the mode (None: the outline where
    the type has one), the matter, how outline parts are written (None: as the endpoint writes,
    `endpoint_writing`) and the knowledge its type, outline, clauses and catalogue come from
    (None: the installation's, `ctx.knowledge`)."""

    doc_type: DocType
    values: Mapping[str, object]
    endpoint: str
    user_name: str = ""
    params: GenerationParams | None = None
    mode: DraftMode | None = None
    matter: MatterRef | None = None
    writing: PartWriting | None = None
    knowledge: Knowledge | None = None


@dataclass(frozen=True)
class Drafted:
    """A finished draft: its outcome, and where the audit log has it (`kept`; None when the
    caller opted out of recording)."""

    outcome: GenerationOutcome
    kept: Kept | None = None

    @property
    def generation_id(self) -> int | None:
        return self.kept.generation_id if self.kept is not None else None

    @property
    def problem(self) -> Bilingual | None:
        """Why the log did not take it (it waits in the spool, or is held), else None."""
        return self.kept.problem if self.kept is not None else None


@dataclass
class Drafting:
    """A draft begun through the door: its context and its run (iterate it for DraftUpdates,
    cancel() to stop); `finish()` ends it and records it."""

    ctx: Context | None  # None: outside any installation (never recorded)
    user_name: str  # the log's author
    run: DraftRun | OutlineRun
    text: str = ""  # the text so far, as the caller saw it (kept if the run cannot finish)

    @property
    def context(self) -> DraftContext:
        return self.run.context

    def finish(self, *, record: bool = True) -> Drafted:
        """The run's outcome (a run interrupted before it could give one: stopped, with the text
        that had arrived), written to the audit log unless `record` is False. Call it once the
        run has ended, or after cancelling it."""
        from app.drafting.recording import keep

        try:
            outcome = self.run.outcome()
        except Exception as exc:  # noqa: BLE001 - whatever broke the run, its text is still kept
            from app.drafting.outcome import unfinished

            outcome = unfinished(self.run, self.text, exc)
        if not record:
            return Drafted(outcome)
        if self.ctx is None:
            raise ValueError("a draft outside an installation cannot be recorded")
        return Drafted(outcome, keep(outcome, user_name=self.user_name, ctx=self.ctx))


def begin(
    ctx: Context | None, request: DraftRequest, *, client: LLMClient | None = None
) -> Drafting:
    """Prepare the request's context and start its run (nothing is sent before iteration).
    `client` None: the endpoint's of `ctx`. `ctx` None (a measurement outside any installation,
    never recorded): the request names its client and knowledge, and the endpoint no label.
    Raises what `prepare` raises (FieldErrors, TemplateProblem, OutlineError / OutlineProblem,
    ContextTooLong), LLMError for an endpoint not there."""
    from app.drafting.context import prepare
    from app.llm.client import make_client

    settings = ctx.settings if ctx is not None else None
    llm, knowledge = client, request.knowledge
    if ctx is not None:
        llm = llm if llm is not None else make_client(request.endpoint, ctx.settings)
        knowledge = knowledge or ctx.knowledge
    if llm is None or knowledge is None:
        raise ValueError("a draft outside an installation names its client and its knowledge")
    context = prepare(
        request.doc_type,
        request.values,
        knowledge=knowledge,
        client=llm,
        params=request.params,
        mode=request.mode,
        matter=request.matter,
    )
    endpoint = settings.all_endpoints().get(request.endpoint) if settings else None
    writing = request.writing
    if writing is None and settings is not None:
        writing = endpoint_writing(request.endpoint, settings)
    run = start_draft(
        context,
        llm,
        endpoint_name=request.endpoint,
        speculative_label=endpoint.label if endpoint is not None else "",
        writing=writing,
    )
    return Drafting(ctx, request.user_name, run)


def draft(
    ctx: Context | None,
    request: DraftRequest,
    *,
    client: LLMClient | None = None,
    on_update: Callable[[DraftUpdate], None] | None = None,
    record: bool = True,
) -> Drafted:
    """Prepare, run (each update to `on_update`), check and record one draft: the one door.
    `record=False` opts out of the audit log (measuring an endpoint). Raises what `begin`
    raises, before anything is sent or recorded."""
    if record and ctx is None:
        raise ValueError("a draft is recorded in an installation's log: give its context")
    drafting = begin(ctx, request, client=client)
    updates = iter(drafting.run)
    try:
        for update in updates:
            drafting.text = update.text
            if on_update is not None:
                on_update(update)
    finally:
        if not drafting.run.finished:  # interrupted: stop it, keep what arrived
            drafting.run.cancel()
            updates.close()
        drafted = drafting.finish(record=record)
    return drafted


def start_draft(
    context: DraftContext,
    client: LLMClient,
    *,
    endpoint_name: str,
    speculative_label: str = "",
    writing: PartWriting | None = None,
) -> DraftRun | OutlineRun:
    """A DraftRun (free-form) or an OutlineRun (outline), as the context's mode says; both are
    iterated for DraftUpdates, cancel() to stop, outcome() afterwards. Nothing is sent before
    iteration. An outline's generated parts are written as `writing` says (None: `adapt`, as an
    unmeasured endpoint writes; `begin` passes `endpoint_writing`)."""
    if context.mode == "outline":
        return OutlineRun(
            client,
            context,
            endpoint_name=endpoint_name,
            speculative_label=speculative_label,
            writing=writing or "adapt",
        )
    return stream_draft(
        client, context, endpoint_name=endpoint_name, speculative_label=speculative_label
    )


def endpoint_writing(endpoint_name: str, settings: Settings) -> PartWriting:
    """How the endpoint `endpoint_name` of `settings` writes outline parts: its `writing`
    setting, or where that is `measured` (the default) what its cached measurement chooses
    (adapt before one exists)."""
    from app.drafting.writing_mode import writing_choice

    return writing_choice(endpoint_name, settings)[0]


def run_to_end(run: Run) -> GenerationOutcome:
    """Iterate a run without showing it and return its outcome."""
    for _update in run:
        pass
    return run.outcome()
