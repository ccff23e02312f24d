"""OutlineRun: a whole outline draft with the same surface as app.drafting.freeform.DraftRun
(iterate for DraftUpdates, cancel(), outcome()), so the page, the CLI and studies drive both
modes alike."""

from __future__ import annotations

import threading
import time
from collections.abc import Generator, Sequence
from dataclasses import replace

from app.domain import CheckResult, GenerationStats, GenerationStatus, Guard, GuardMark, PartWriting
from app.drafting.checking import check
from app.drafting.context import DraftContext
from app.drafting.outcome import DraftUpdate, GenerationOutcome, Run
from app.llm.client import LLMClient
from app.outline.compose import Step, assemble
from app.outline.provenance import Settled, assembled, facts_for, fallback, origins, settle
from app.outline.run import (
    PartResult,
    PartStream,
    Phase,
    budget_from,
    drop_bad_sentences,
    open_part,
    part_budget,
    part_errors,
    part_messages,
)


def combine_stats(
    parts: Sequence[PartResult], started: float, first_at: float | None
) -> GenerationStats:
    """The document's numbers: TTFT of its first generated text, tokens and passes summed."""

    def total(name: str) -> int | None:
        values = [getattr(p.stats, name) for p in parts if getattr(p.stats, name) is not None]
        return sum(values) if values else None

    decode_s = [p.stats.decode_s for p in parts if p.stats.decode_s is not None]
    return GenerationStats(
        ttft_s=first_at,
        total_s=time.monotonic() - started,
        prompt_tokens=total("prompt_tokens"),
        completion_tokens=sum(p.stats.completion_tokens for p in parts),
        draft_tokens=total("draft_tokens"),
        accepted_tokens=total("accepted_tokens"),
        spec_method=next((p.stats.spec_method for p in parts if p.stats.spec_method), None),
        decode_tokens=total("decode_tokens"),
        decode_s=sum(decode_s) if decode_s else None,
        tokens_estimated=any(p.stats.tokens_estimated for p in parts),
        refused=tuple(pair for p in parts for pair in p.stats.refused),
    )


def overall_status(parts: Sequence[PartResult], cancelled: bool) -> GenerationStatus:
    statuses = {p.status for p in parts}
    if cancelled or GenerationStatus.STOPPED in statuses:
        return GenerationStatus.STOPPED
    if GenerationStatus.ERROR in statuses:
        return GenerationStatus.ERROR
    if GenerationStatus.TRUNCATED in statuses:
        return GenerationStatus.TRUNCATED
    return GenerationStatus.COMPLETE


class OutlineRun(Run):
    """One outline draft: deterministic parts at once, generated parts streamed in order."""

    def __init__(
        self,
        client: LLMClient,
        context: DraftContext,
        *,
        endpoint_name: str,
        speculative_label: str,
        writing: PartWriting = "write",
    ) -> None:
        if context.plan is None:
            raise ValueError(f"{context.doc_type_id}: an outline run needs the context's plan")
        super().__init__(context, endpoint_name=endpoint_name, speculative_label=speculative_label)
        self.client, self.plan, self.params = client, context.plan, context.params
        self.writing: PartWriting = writing
        self._cancelled = threading.Event()
        self._current: PartStream | None = None
        self._prose: dict[int, str] = {}
        self._settled: dict[int, str] = {}  # finished parts' final prose
        self._sources: dict[int, Settled] = {}  # finished parts' provenance
        self._removed = 0
        self._parts: list[PartResult] = []
        self._model = ""
        self._started = 0.0
        self._first: float | None = None

    def cancel(self) -> None:
        self._cancelled.set()
        if self._current is not None:
            self._current.stream.cancel()

    def _update(self, delta: str, phase: Phase) -> DraftUpdate:
        text, _ = assemble(self.plan.steps, self._prose)
        queued = self._current.stream.queued if self._current is not None else None
        return DraftUpdate(text, delta, None, phase, queued)

    def __iter__(self) -> Generator[DraftUpdate, None, None]:
        self._started = time.monotonic()
        steps = self.plan.steps
        try:
            for step in steps:
                if self._cancelled.is_set() or (
                    self._parts and self._parts[-1].status == GenerationStatus.ERROR
                ):
                    break
                if step.generated:
                    yield from self._generate(step, len(steps))
        finally:
            self._current = None
            self._finish()
        if self._outcome is not None:
            yield self._update("", Phase("done", len(steps), len(steps)))

    def _generate(self, step: Step, steps: int) -> Generator[DraftUpdate, None, None]:
        heading = next(
            (s.heading for s in reversed(self.plan.steps[: step.index + 1]) if s.heading), ""
        )
        if self.writing == "assemble":  # the clause as rendered: no request
            got = assembled(step)
            self._prose[step.index] = self._settled[step.index] = got.text
            self._sources[step.index] = got
            marks = (Guard.NO_TEXT,) if got.source == "placeholder" else ()
            self._parts.append(
                PartResult(step.index, GenerationStatus.COMPLETE, None, GenerationStats(), marks)
            )
            yield self._update(got.text, Phase("streaming", step.index, steps, heading))
            return
        # the earlier parts the model wrote and kept: a part that fell back is left out, so a
        # clause it never generated is not computed again (its request is then not reused)
        earlier = [
            (s, self._settled[s.index])
            for s in self.plan.steps
            if s.index in self._settled and self._sources[s.index].source in ("adapted", "model")
        ]
        messages, tokens = part_messages(
            self.client, self.plan, step, self.params, self.writing, earlier
        )
        yield self._update("", Phase("prompt", step.index, steps, heading, tokens))
        part = PartStream(open_part(self.client, messages, step, self.params))
        self._current = part
        self._prose[step.index] = ""
        shown = ""
        try:
            for raw in part:
                if raw == shown:  # no new text: the server said where the request waits
                    yield self._update("", Phase("prompt", step.index, steps, heading, tokens))
                    continue
                if self._first is None:
                    self._first = time.monotonic() - self._started
                self._prose[step.index] = raw
                delta, shown = raw[len(shown) :], raw
                yield self._update(delta, Phase("streaming", step.index, steps, heading))
        finally:
            prose, result = part.result(step.index, self._cancelled.is_set())
            self._prose[step.index] = prose
            budget = (part_budget(self.params, step), budget_from(self.params, step))
            self._parts.append(replace(result, budget=budget[0], budget_from=budget[1]))
            self._model = part.stream.model or self._model
            if result.status in (GenerationStatus.COMPLETE, GenerationStatus.TRUNCATED):
                self._settle(step)

    def _settle(self, step: Step) -> None:
        """A finished part's prose is final. Prose that fails a gate, or in which the draft's
        check finds an error, falls back to the part's clause (or NO_TEXT); otherwise the
        sentences of earlier parts that now carry an error are removed, so the text printed
        part by part is the text recorded. A part left with no prose shows its clause, else
        NO_TEXT, so the numbering has no gap and the lawyer sees what to write."""
        index, values = step.index, dict(self.context.prompt.values)
        facts = facts_for(values, self.plan.facts, step)
        last = self._parts[-1]
        got = settle(
            self._prose[index],
            step,
            self.writing,
            facts,
            self.plan.system,
            truncated=last.status == GenerationStatus.TRUNCATED
            or Guard.BUDGET_CUT_MID_SENTENCE in last.marks,
            checked=part_errors(self._prose, self.plan.steps[: index + 1], self._check),
        )
        if not got.fell_back:
            keep = frozenset(i for i, s in self._sources.items() if s.source == "clause")
            steps = self.plan.steps[: index + 1]
            _, _, removed = drop_bad_sentences(self._prose, steps, self._check, keep)
            self._removed += removed
            if not self._prose[index]:
                got = fallback(step, ("no_text",))
        if got.fell_back:
            self._prose[index] = got.text
            marks = (Guard.NO_TEXT,) if got.source == "placeholder" else (Guard.FALLBACK,)
            # the whole vetted clause in place of cut prose: the document is not cut there (the
            # cut shows in the part's gates); a to-write mark leaves a cut part truncated
            whole = got.source == "clause" and last.status == GenerationStatus.TRUNCATED
            status = GenerationStatus.COMPLETE if whole else last.status
            self._parts[-1] = replace(last, marks=(*last.marks, *marks), status=status)
        self._sources[index] = got
        self._settled[index] = self._prose[index]

    def _check(self, text: str) -> CheckResult:
        return check(self.context, text)

    def part_text(self, index: int) -> str:
        """A finished generated part's final text (its prose, clause or placeholder)."""
        return self._settled.get(index, "")

    def settled_text(self) -> str:
        """The document up to the last finished part (what `lexspec draft` prints as it goes)."""
        return assemble(self.plan.steps, self._settled)[0]

    def _finish(self) -> None:
        if self._outcome is not None:
            return
        cancelled = self._cancelled.is_set()
        status = overall_status(self._parts, cancelled)
        text, _ = assemble(self.plan.steps, self._prose)
        found, removed = self._check(text), self._removed
        marks = [GuardMark(m, part=p.index + 1) for p in self._parts for m in p.marks]
        if removed:
            marks.append(GuardMark(Guard.SENTENCES_REMOVED, count=removed))
        errors = [p.error for p in self._parts if p.error]
        settled = {i: s for i, s in self._sources.items() if i in self._settled}
        self._outcome = GenerationOutcome(
            context=self.context,
            endpoint_name=self.endpoint_name,
            model=self._model,
            speculative_label=self.speculative_label,
            text=text,
            status=status,
            error=errors[0] if errors else None,
            stats=combine_stats(self._parts, self._started, self._first),
            check=found,
            finish_reason="length" if status == GenerationStatus.TRUNCATED else None,
            marks=tuple(marks),
            thinking="\n".join(p.thinking for p in self._parts if p.thinking),
            parts=tuple(self._parts),
            provenance=origins(self.plan.steps, settled),
        )
