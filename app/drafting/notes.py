"""A draft's notes in the audit log (`params["draft"]` of its generation record), typed.

`DraftNotes.to_dict()` is what app.drafting.recording writes (`notes_of(outcome)`: the JSON the
hash chain covers, key for key as before the type existed); `DraftNotes.from_record(record)` is the
one way to read them back (the logged context's mode, the provenance that firm clauses check).

Reading never raises: the notes of a record logged by any earlier version (no notes at all,
parts without budgets, provenance without sections or counts) get defaults for what they lack,
and unknown keys are ignored. Values read back are not checked against today's vocabularies
(a status, a source or a guard retired since stays as it was written), except the mode, which
is read as the logged context always read it: outline or, for anything else, free-form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from app.domain import DRAFT_MODES, DraftMode, PartSource
from app.outline.provenance import PartCounts, PartOrigin
from app.outline.run import BudgetFrom

if TYPE_CHECKING:
    from app.outline.run import PartResult
    from audit.domain import GenerationRecord

BUDGETS_FROM: tuple[BudgetFrom, ...] = ("part", "draft", "")


@dataclass(frozen=True)
class PartNotes:
    """How one generated part of an outline draft ended, as the log keeps it."""

    index: int  # the part's step in the plan (-1: not recorded)
    status: str  # a GenerationStatus value, as written
    finish_reason: str | None = None
    ttft_s: float | None = None
    completion_tokens: int = 0
    prompt_tokens: int | None = None
    marks: tuple[str, ...] = ()  # the guards that acted on the part (Guard values)
    budget: int = 0  # its token budget (0: logged before budgets were)
    budget_from: BudgetFrom = ""

    @classmethod
    def of(cls, part: PartResult) -> PartNotes:
        return cls(
            index=part.index,
            status=part.status,
            finish_reason=part.finish_reason,
            ttft_s=part.stats.ttft_s,
            completion_tokens=part.stats.completion_tokens,
            prompt_tokens=part.stats.prompt_tokens,
            marks=tuple(m.value for m in part.marks),
            budget=part.budget,
            budget_from=part.budget_from,
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "index": self.index,
            "status": self.status,
            "finish_reason": self.finish_reason,
            "ttft_s": self.ttft_s,
            "completion_tokens": self.completion_tokens,
            "prompt_tokens": self.prompt_tokens,
            "marks": list(self.marks),
            "budget": self.budget,
            "budget_from": self.budget_from,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> PartNotes:
        budget_from = data.get("budget_from")
        return cls(
            index=_int(data.get("index"), -1),
            status=_str(data.get("status")),
            finish_reason=_str_or_none(data.get("finish_reason")),
            ttft_s=_float_or_none(data.get("ttft_s")),
            completion_tokens=_int(data.get("completion_tokens"), 0),
            prompt_tokens=_int_or_none(data.get("prompt_tokens")),
            marks=_strs(data.get("marks")),
            budget=_int(data.get("budget"), 0),
            budget_from=next((b for b in BUDGETS_FROM if b == budget_from), ""),
        )


@dataclass(frozen=True)
class DraftNotes:
    """Mode, guard marks, thinking (kept apart from the text) and, for an outline draft, how
    each generated part ended, where each part came from and the parts' counts."""

    mode: DraftMode = "free-form"
    marks: tuple[str, ...] = ()  # the guards that acted, as GuardMark spells them
    thinking: str = ""
    parts: tuple[PartNotes, ...] = ()
    provenance: tuple[PartOrigin, ...] = ()
    counts: PartCounts | None = None  # None: no provenance, or logged before counts were

    def to_dict(self) -> dict[str, object]:
        """The JSON of `params["draft"]`: what is empty is left out, as it always was."""
        notes: dict[str, object] = {"mode": self.mode, "marks": list(self.marks)}
        if self.thinking:
            notes["thinking"] = self.thinking
        if self.parts:
            notes["parts"] = [p.to_dict() for p in self.parts]
        if self.provenance:  # where each part came from: app, clause, adapted, model, placeholder
            notes["provenance"] = [origin.to_dict() for origin in self.provenance]
        if self.counts is not None:  # how many parts the model wrote, adapted, fell back
            notes["counts"] = self.counts.to_dict()
        return notes

    @classmethod
    def from_dict(cls, data: object) -> DraftNotes:
        """The notes as any version wrote them; anything that is not a mapping: no notes."""
        if not isinstance(data, Mapping):
            return cls()
        logged_mode = data.get("mode")
        counts = data.get("counts")
        return cls(
            mode=next((m for m in DRAFT_MODES if m == logged_mode), "free-form"),
            marks=_strs(data.get("marks")),
            thinking=_str(data.get("thinking")),
            parts=tuple(PartNotes.from_dict(p) for p in _mappings(data.get("parts"))),
            provenance=tuple(_origin(o) for o in _mappings(data.get("provenance"))),
            counts=_counts(counts) if isinstance(counts, Mapping) else None,
        )

    @classmethod
    def from_record(cls, record: GenerationRecord) -> DraftNotes:
        """The notes of a logged generation (a record without any: the defaults)."""
        params = record.params
        return cls.from_dict(params.get("draft") if isinstance(params, Mapping) else None)


def _origin(data: Mapping[str, object]) -> PartOrigin:
    """A provenance entry (app.outline.provenance.PartOrigin.to_dict); `section` came later."""
    return PartOrigin(
        step=_int(data.get("step"), -1),
        label=_str(data.get("label")),
        title=_str(data.get("title")),
        source=cast(PartSource, _str(data.get("source")) or "app"),
        clause=_str(data.get("clause")),
        version=_str(data.get("version")),
        gates=_strs(data.get("gates")),
        section=_str(data.get("section")),
    )


def _counts(data: Mapping[str, object]) -> PartCounts:
    return PartCounts(
        model=_int(data.get("model"), 0),
        adapted=_int(data.get("adapted"), 0),
        clause=_int(data.get("clause"), 0),
        fell_back=_int(data.get("fell_back"), 0),
        placeholder=_int(data.get("placeholder"), 0),
        truncated=_int(data.get("truncated"), 0),
    )


def _mappings(value: object) -> list[Mapping[str, object]]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _strs(value: object) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float_or_none(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
