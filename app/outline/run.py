"""Run an outline plan against a model server, part by part, with the guards applied.

Deterministic parts are written at once; each generated part is one streaming request that
shares the plan's prefix. A part that starts repeating itself is stopped and trimmed to its
last good sentence, a part cut by its token budget ends at a sentence boundary, a thinking
block is kept out, and both are marked on the outcome.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from app.domain import (
    CheckResult,
    Finding,
    GenerationParams,
    GenerationStats,
    GenerationStatus,
    Guard,
    PartWriting,
    PhaseName,
    StreamStatus,
    final_status,
)
from app.llm.client import ChatStream, LLMClient
from app.outline.compose import OutlinePlan, Step, assemble
from app.outline.guards import SENTENCE_END, ThinkFilter, clean_prose, loop_start, to_sentence_end

log = logging.getLogger(__name__)
# the draft's checks on a text (app.drafting.checking.check with the draft's context)
Checker = Callable[[str], CheckResult]
BudgetFrom = Literal["part", "draft", ""]


@dataclass(frozen=True)
class PartResult:
    """How one generated part ended (for the outcome, the audit log and the benchmark)."""

    index: int
    status: GenerationStatus
    finish_reason: str | None
    stats: GenerationStats
    marks: tuple[Guard, ...] = ()  # the guards that acted on this part
    thinking: str = ""
    error: str | None = None
    budget: int = 0  # the token budget the part had
    budget_from: BudgetFrom = ""  # part: its own max_tokens (outline.yaml) | draft: the draft's


@dataclass(frozen=True)
class Phase:
    """What the run is doing now, for the page: prompt (computing N prompt tokens), streaming."""

    name: PhaseName
    step: int
    steps: int
    heading: str = ""
    prompt_tokens: int | None = None


def part_budget(base: GenerationParams, step: Step) -> int:
    """A part's token budget: its own, capped by the draft's max_tokens."""
    return min(step.part.max_tokens, base.max_tokens)


def budget_from(base: GenerationParams, step: Step) -> BudgetFrom:
    """Which limit is the part's budget: `part` (its max_tokens in outline.yaml) or `draft`
    (the form's / the command's max_tokens), so a truncation names what cut it."""
    return "part" if step.part.max_tokens <= base.max_tokens else "draft"


def _budget_params(base: GenerationParams, step: Step) -> GenerationParams:
    return replace(base, max_tokens=part_budget(base, step), stop=tuple(step.part.stop))


def finish_part(raw: str, *, looped: bool, cut: bool) -> tuple[str, tuple[Guard, ...]]:
    """The part's final prose and its marks: a loop trimmed to the last good sentence, a cut
    by the budget (or a stop at a loop) ending at a sentence boundary. A part with no whole
    sentence keeps what it has, visibly cut off with "……" (marked budget_cut_mid_sentence)."""
    marks: list[Guard] = []
    if looped:
        marks.append(Guard.REPETITION_TRIMMED)
    if looped or cut:
        trimmed = to_sentence_end(raw)
        if not trimmed and clean_prose(raw):
            return clean_prose(raw).rstrip("，、；：,;: ") + "……", (
                *marks,
                Guard.BUDGET_CUT_MID_SENTENCE,
            )
        if cut and not looped and trimmed != raw.rstrip():
            marks.append(Guard.BUDGET_TRIMMED)
        raw = trimmed
    return clean_prose(raw), tuple(marks)


def _sentence_around(text: str, start: int, end: int) -> tuple[int, int]:
    begin = max([text.rfind(ch, 0, start) for ch in SENTENCE_END + "\n"]) + 1
    stops = [i for i in (text.find(ch, end) for ch in SENTENCE_END + "\n") if i >= 0]
    return begin, (min(stops) + 1 if stops else len(text))


def part_errors(
    prose: Mapping[int, str], steps: Sequence[Step], checker: Checker
) -> tuple[Finding, ...]:
    """The error findings of the draft's check (a wrong citation, a duty it negates, a fact
    that contradicts the form) in the last step's prose, with spans in that prose; `steps`:
    the document up to and including that step, so the check reads the part in its place."""
    if not prose.get(steps[-1].index):
        return ()
    text, spans = assemble(steps, prose)
    a, b = spans[-1]
    return tuple(
        replace(f, start=f.start - a, end=min(f.end, b) - a)
        for f in checker(text).findings
        if f.severity == "error" and a <= f.start < b
    )


def drop_bad_sentences(
    prose: dict[int, str],
    steps: Sequence[Step],
    checker: Checker,
    keep: frozenset[int] = frozenset(),
) -> tuple[str, CheckResult, int]:
    """Remove generated sentences that carry an error finding (a wrong citation, a number the
    model wrote); the app's own parts and the parts in `keep` (a clause, vetted) are never
    touched. Returns text, check, sentences cut."""
    cut = 0
    for _round in range(5):
        text, spans = assemble(steps, prose)
        check = checker(text)
        owners = [s.index for s in steps if s.generated and s.index in prose and prose[s.index]]
        spans = [span for owner, span in zip(owners, spans, strict=False) if owner not in keep]
        owners = [owner for owner in owners if owner not in keep]
        bad = [
            (owner, f)
            for f in check.findings
            if f.severity == "error"
            for owner, (a, b) in zip(owners, spans, strict=False)
            if a <= f.start < b
        ]
        if not bad:
            return text, check, cut
        for owner, f in bad[:1]:
            a = dict(zip(owners, spans, strict=False))[owner][0]
            body = prose[owner]
            s, e = _sentence_around(body, f.start - a, f.end - a)
            prose[owner] = clean_prose(body[:s] + body[e:])
            cut += 1
    text, _ = assemble(steps, prose)
    return text, checker(text), cut


class PartStream:
    """One generated part's request, filtered (thinking) and guarded (repetition)."""

    def __init__(self, stream: ChatStream) -> None:
        self.stream = stream
        self.thinking = ThinkFilter()
        self.raw = ""
        self.looped = False

    def __iter__(self) -> Generator[str, None, None]:
        deltas = iter(self.stream)
        try:
            for delta in deltas:
                self.raw += self.thinking.feed(delta)
                at = loop_start(self.raw)
                if at is not None:
                    self.looped, self.raw = True, self.raw[:at]
                    self.stream.cancel()
                    return
                yield self.raw
        finally:
            deltas.close()
            self.raw += self.thinking.flush()

    def result(self, index: int, cancelled: bool) -> tuple[str, PartResult]:
        s = self.stream
        cut = s.finish_reason == "length"
        prose, marks = finish_part(self.raw, looped=self.looped, cut=cut)
        if self.thinking.thinking:
            marks += (Guard.THINKING_REMOVED,)
            log.info("part %d: thinking kept out of the draft: %r", index, self.thinking.thinking)
        # a part stopped by its repetition guard (not by the user) ended as its prose did
        looped = s.status == StreamStatus.STOPPED and self.looped
        stream = StreamStatus.COMPLETE if looped else s.status
        status = GenerationStatus.STOPPED if cancelled else final_status(stream, s.finish_reason)
        part = PartResult(
            index, status, s.finish_reason, s.stats, marks, self.thinking.thinking, s.error
        )
        return prose, part


def open_part(
    client: LLMClient, messages: list[dict[str, str]], step: Step, base: GenerationParams
) -> ChatStream:
    return client.stream_chat(messages, _budget_params(base, step))


def part_messages(
    client: LLMClient,
    plan: OutlinePlan,
    step: Step,
    base: GenerationParams,
    writing: PartWriting,
    earlier: Sequence[tuple[Step, str]],
) -> tuple[list[dict[str, str]], int | None]:
    """A part's chat and its prompt tokens: in `adapt`, one conversation with the earlier
    parts (their prefix reused), unless that would not fit the model's context with the part's
    budget; then (and in `write`) the part alone after the shared prefix."""
    alone = plan.messages(step, writing)
    if writing != "adapt" or not earlier:
        return alone, client.count_tokens(alone)
    chained = plan.messages(step, writing, earlier)
    tokens, limit = client.count_tokens(chained), client.context_limit()
    if tokens is not None and limit is not None and tokens + part_budget(base, step) > limit:
        return alone, client.count_tokens(alone)
    return chained, tokens
