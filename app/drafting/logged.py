"""A generation read back from the audit log as the app's types: one mapping for each type, used
by every reader (the logged context, History, saved revisions, their export, studies).

The record's form values (`logged_values`) and prompt (`logged_prompt`), its numbers
(`logged_stats`), its findings and a saved revision's (`stored_findings`); its draft notes are
app.drafting.notes.DraftNotes.from_record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from app.domain import Finding, GenerationStats, RenderedPrompt

if TYPE_CHECKING:
    from audit.domain import GenerationRecord


def logged_values(record: GenerationRecord) -> dict[str, str]:
    """The form's values the generation was drafted from, as text (as the form gives them)."""
    return {str(k): str(v) for k, v in record.field_values.items()}


def logged_prompt(record: GenerationRecord) -> RenderedPrompt:
    """The prompt the generation was sent, with the form's values it was rendered from."""
    return RenderedPrompt(
        doc_type=record.doc_type,
        template_id=record.template_id,
        template_version=record.template_version,
        template_hash=record.template_hash,
        system=record.system_prompt,
        user=record.user_prompt,
        values=logged_values(record),
        prompt_tokens=record.prompt_tokens,
    )


def logged_stats(record: GenerationRecord) -> GenerationStats:
    """The generation's numbers as the log keeps them (the rate as it was measured then)."""
    return GenerationStats(
        ttft_s=record.ttft_s,
        total_s=record.total_s,
        prompt_tokens=record.prompt_tokens,
        completion_tokens=record.completion_tokens,
        draft_tokens=record.draft_tokens,
        accepted_tokens=record.accepted_tokens,
        recorded_tokens_per_s=record.tokens_per_s,
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
