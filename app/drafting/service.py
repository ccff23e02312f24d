"""The one draft service, for the Draft page, `lexspec draft`, studies and the bench alike:
`prepare` (app.drafting.context) builds the context, `start_draft` runs it (free-form or
outline), `run_to_end` drives a run without showing it, and `app.drafting.recording.keep`
records the outcome."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.domain import PartWriting
from app.drafting.context import DraftContext
from app.drafting.freeform import DraftRun, stream_draft
from app.drafting.outcome import GenerationOutcome, Run
from app.drafting.outline_run import OutlineRun
from app.llm.client import LLMClient

if TYPE_CHECKING:
    from app.config import Settings


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
    unmeasured endpoint writes; the page and the commands pass `endpoint_writing`)."""
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
    """Iterate a run without showing it (studies, benchmarks) and return its outcome."""
    for _update in run:
        pass
    return run.outcome()
