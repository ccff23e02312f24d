"""A generation and its audit record, both ways, in one place: `to_record` maps a finished
generation (GenerationOutcome) to the log's record, and every reader (the logged context,
History, saved revisions, their export, studies) reads a record back as the app's types through
the same column tables (`PROMPT_COLUMNS`, `TIME_COLUMNS`, `COUNT_COLUMNS`).

Written: `to_record` (the draft's notes in params: `notes_of`). Read: the record's form values
(`logged_values`) and prompt (`logged_prompt`), its numbers (`logged_stats`), its findings and a
saved revision's (`stored_findings`), the outcome it was (`logged_outcome`); its draft notes are
app.drafting.notes.DraftNotes.from_record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any

from app.domain import Finding, GenerationStats, MatterRef, RenderedPrompt
from app.drafting.notes import DraftNotes, PartNotes
from app.llm.reported import checked
from audit.domain import GenerationRecord

if TYPE_CHECKING:
    from app.drafting.context import DraftContext
    from app.drafting.outcome import GenerationOutcome
    from app.knowledge import Knowledge
    from app.prompts import DocType
    from audit.domain import StoredGeneration

# a record's column holding the prompt, with the RenderedPrompt attribute it holds
PROMPT_COLUMNS = (
    ("doc_type", "doc_type"),
    ("template_id", "template_id"),
    ("template_version", "template_version"),
    ("template_hash", "template_hash"),
    ("system_prompt", "system"),
    ("user_prompt", "user"),
)
# a record's columns holding the numbers, each named as its GenerationStats attribute (the
# rate, `tokens_per_s`, is written as measured and read back as `recorded_tokens_per_s`)
TIME_COLUMNS = ("ttft_s", "total_s")
COUNT_COLUMNS = ("prompt_tokens", "completion_tokens", "draft_tokens", "accepted_tokens")


def to_record(outcome: GenerationOutcome, *, user_name: str) -> GenerationRecord:
    """The audit log's record of this outcome (every field mapped): the one mapping from a
    finished generation to its record, for app.drafting.recording.keep and the tests."""
    rendered, stats = outcome.rendered, outcome.stats
    params = _params(outcome)
    refused = dict(stats.refused)
    counts = {name: getattr(stats, name) for name in COUNT_COLUMNS}
    if counts["prompt_tokens"] is None:
        counts["prompt_tokens"] = rendered.prompt_tokens
    for name, value in counts.items():  # a sum of parts may pass the log's limit too
        counts[name] = checked(name, value, refused)
    counts["completion_tokens"] = counts["completion_tokens"] or 0
    if refused:  # what the server reported that is not a count: left out, and said here
        params["refused"] = refused
    return GenerationRecord(
        user_name=user_name,
        **{column: getattr(rendered, attr) for column, attr in PROMPT_COLUMNS},
        field_values=dict(rendered.values),
        endpoint=outcome.endpoint_name,
        model=outcome.model,
        output_text=outcome.text,
        status=outcome.status,
        error_message=outcome.error,
        speculative={"label": outcome.speculative_label} if outcome.speculative_label else {},
        params=params,
        **{name: getattr(stats, name) for name in TIME_COLUMNS},
        tokens_per_s=stats.tokens_per_s,
        **counts,
        findings=list(outcome.findings),
    )


def _params(outcome: GenerationOutcome) -> dict[str, Any]:
    """The record's params: the sampling parameters, the draft's notes and its matter."""
    params: dict[str, Any] = asdict(outcome.params)
    params["stop"] = list(outcome.params.stop)
    params["draft"] = notes_of(outcome).to_dict()
    if outcome.context.matter is not None:  # the matter it was drafted for (app/matters)
        params["matter"] = outcome.context.matter.to_dict()
    return params


def notes_of(outcome: GenerationOutcome) -> DraftNotes:
    """The notes of a finished draft, as the log keeps them (app.drafting.notes)."""
    return DraftNotes(
        mode=outcome.mode,
        marks=tuple(str(m) for m in outcome.marks),
        thinking=outcome.thinking,
        parts=tuple(PartNotes.of(p) for p in outcome.parts),
        provenance=outcome.provenance,
        counts=outcome.counts if outcome.provenance else None,
    )


def logged_values(record: GenerationRecord) -> dict[str, str]:
    """The form's values the generation was drafted from, as text (as the form gives them)."""
    return {str(k): str(v) for k, v in record.field_values.items()}


def logged_prompt(record: GenerationRecord) -> RenderedPrompt:
    """The prompt the generation was sent, with the form's values it was rendered from."""
    return RenderedPrompt(
        **{attr: getattr(record, column) for column, attr in PROMPT_COLUMNS},
        values=logged_values(record),
        prompt_tokens=record.prompt_tokens,
    )


def logged_stats(record: GenerationRecord) -> GenerationStats:
    """The generation's numbers as the log keeps them (the rate as it was measured then)."""
    return GenerationStats(
        **{name: getattr(record, name) for name in (*TIME_COLUMNS, *COUNT_COLUMNS)},
        recorded_tokens_per_s=record.tokens_per_s,
    )


def logged_outcome(record: GenerationRecord, context: DraftContext) -> GenerationOutcome:
    """A logged generation as the outcome it was, in `context` (its logged context): the
    inverse of `to_record` for what the log keeps (no check: the page checks the text again;
    the parts' provenance and the thinking from its notes)."""
    from app.domain import GenerationStatus
    from app.drafting.outcome import GenerationOutcome

    notes = DraftNotes.from_record(record)
    speculative = record.speculative if isinstance(record.speculative, Mapping) else {}
    return GenerationOutcome(
        context=context,
        endpoint_name=record.endpoint,
        model=record.model,
        speculative_label=str(speculative.get("label", "")),
        text=record.output_text,
        status=GenerationStatus(record.status),
        error=record.error_message,
        stats=logged_stats(record),
        check=None,
        thinking=notes.thinking,
        provenance=notes.provenance,
    )


def stored_findings(items: Iterable[object]) -> tuple[Finding, ...]:
    """Findings kept as dicts (Finding.to_dict, in a generation or a revision) back as Finding
    objects; an entry that is not one (malformed, or not a mapping) is skipped, not fatal."""
    out: list[Finding] = []
    for item in items or ():
        if not isinstance(item, Mapping):
            continue
        try:
            out.append(Finding.from_dict(item))
        except (KeyError, TypeError, ValueError):
            continue
    return tuple(out)


def logged_context(
    record: GenerationRecord,
    doc_type: DocType | None,
    *,
    knowledge: Knowledge,
) -> DraftContext:
    """The context of a logged generation, rebuilt from its stored values and parameters: the
    logged prompt, the document's date, the route and facts, and (outline mode) the plan with
    the continuation prefix, as the page had them. A type that is gone or no longer accepts
    the values still gives the date-less facts the values hold."""
    from app.drafting.context import checking_context, prepare
    from app.outline.model import OutlineError

    rendered = logged_prompt(record)
    values = rendered.values
    mode = DraftNotes.from_record(record).mode
    for_check = checking_context(doc_type, values, knowledge=knowledge)
    matter = MatterRef.from_params(record.params)
    context = replace(for_check, mode=mode, rendered=rendered, matter=matter)
    if doc_type is None:
        return replace(context, doc_type_id=record.doc_type)
    if mode == "outline":
        try:
            planned = prepare(doc_type, values, knowledge=knowledge, mode="outline")
        except (OutlineError, OSError, ValueError):  # FieldErrors, OutlineProblem, ...
            return context  # the type changed since: the facts hold, the plan is gone
        return replace(context, plan=planned.plan, title=planned.title)
    return context


def stored_context(generation: StoredGeneration, knowledge: Knowledge) -> DraftContext:
    """`logged_context` of a generation read from the log, with the document types, the
    statute catalogue and the firm's clauses of `knowledge` (the installation's)."""
    doc_type = knowledge.doc_type(generation.record.doc_type)
    return logged_context(generation.record, doc_type, knowledge=knowledge)
