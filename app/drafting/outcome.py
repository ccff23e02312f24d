"""What a running draft hands out (DraftUpdate) and how it ended (GenerationOutcome), for both
ways of writing a draft; `Run` is the surface the page, the CLI, studies and the bench drive."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.domain import (
    CheckResult,
    DraftMode,
    GenerationParams,
    GenerationStats,
    GenerationStatus,
    GuardMark,
    RenderedPrompt,
)
from app.outline.provenance import PartCounts, PartOrigin, part_counts
from app.outline.run import PartResult, Phase

if TYPE_CHECKING:
    from app.drafting.context import DraftContext


@dataclass(frozen=True)
class DraftUpdate:
    """The draft so far, the new text, and a fresh CheckResult when a check ran on this update;
    `phase`: where an outline draft is (None: free-form); `queued`: the requests the server
    will serve first, while it holds this one back (None: not queued, or it does not say)."""

    text: str
    delta: str
    check: CheckResult | None = None
    phase: Phase | None = None
    queued: int | None = None


@dataclass(frozen=True)
class GenerationOutcome:
    """How one generation ended, with everything the audit log needs."""

    context: DraftContext
    endpoint_name: str
    model: str
    speculative_label: str
    text: str
    status: GenerationStatus
    error: str | None
    stats: GenerationStats
    check: CheckResult | None
    finish_reason: str | None = None
    marks: tuple[GuardMark, ...] = ()  # the guards that acted
    thinking: str = ""  # a <think> block kept out of the text and the checks
    parts: tuple[PartResult, ...] = ()  # outline drafts: how each generated part ended
    provenance: tuple[PartOrigin, ...] = ()  # outline drafts: where each part came from

    @property
    def findings(self) -> tuple[dict[str, object], ...]:
        """The final check's findings as the audit log keeps them."""
        return tuple(f.to_dict() for f in self.check.findings) if self.check else ()

    @property
    def counts(self) -> PartCounts:
        """How many generated parts the model wrote, adapted, and how many fell back."""
        return part_counts(self.provenance, self.parts)

    @property
    def as_labelled(self) -> bool:
        """Finished, and every part is what it says it is (the only "生成完成")."""
        return self.status == GenerationStatus.COMPLETE and self.counts.as_labelled

    @property
    def rendered(self) -> RenderedPrompt:
        return self.context.prompt

    @property
    def params(self) -> GenerationParams:
        return self.context.params

    @property
    def mode(self) -> DraftMode:
        return self.context.mode


class Run:
    """A draft being written (free-form or outline): iterate for DraftUpdates, cancel() to
    stop, outcome() once iteration has ended. `mode` says which it is."""

    _outcome: GenerationOutcome | None = None

    def __init__(
        self, context: DraftContext, *, endpoint_name: str, speculative_label: str
    ) -> None:
        self.context = context
        self.endpoint_name = endpoint_name
        self.speculative_label = speculative_label

    @property
    def mode(self) -> DraftMode:
        return self.context.mode

    @property
    def finished(self) -> bool:
        return self._outcome is not None

    def outcome(self) -> GenerationOutcome:
        """The final outcome; only once iteration has ended (RuntimeError before)."""
        if self._outcome is None:
            raise RuntimeError("the draft is still streaming; iterate it to the end first")
        return self._outcome

    def cancel(self) -> None:
        raise NotImplementedError

    def __iter__(self) -> Generator[DraftUpdate, None, None]:
        raise NotImplementedError

    def settled_text(self) -> str:
        """The document as far as it is final: what `lexspec draft` prints as it goes (an
        outline: up to its last finished part; free-form: nothing before the end)."""
        return ""


def unfinished(run: Run, text: str, error: BaseException) -> GenerationOutcome:
    """The outcome of a run that cannot give its own (interrupted before it could finish):
    stopped, with the text that had arrived, so it is kept like any other."""
    return GenerationOutcome(
        context=run.context,
        endpoint_name=run.endpoint_name,
        model="",
        speculative_label=run.speculative_label,
        text=text,
        status=GenerationStatus.STOPPED,
        error=str(error),
        stats=GenerationStats(),
        check=None,
    )
