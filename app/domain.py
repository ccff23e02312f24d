"""Frozen dataclasses shared across layers of the app (not by audit/, which has its own)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal, get_args

# the one bilingual text type and the error carrying one, defined in audit/ (which cannot
# import app/) and re-exported here
from audit.domain import Bilingual as Bilingual
from audit.domain import BilingualError as BilingualError

# the stored vocabularies have one home, audit.vocabulary (also the columns' CHECK constraints)
from audit.vocabulary import Choice as Choice
from audit.vocabulary import ClauseStatus as ClauseStatus
from audit.vocabulary import EventKind as EventKind
from audit.vocabulary import GenerationStatus as GenerationStatus
from audit.vocabulary import Role as Role
from audit.vocabulary import StreamStatus as StreamStatus
from audit.vocabulary import StudyDesign as StudyDesign

if TYPE_CHECKING:
    from pydantic import ValidationError

# The closed vocabularies of the app, typed so that a typo is a mypy error, not a KeyError.
Severity = Literal["error", "warning", "info"]
# Every finding the checks raise. A new code goes here, with its severity and messages in
# app/validation/messages.py and its row in docs/validation.md (tests/unit/test_conventions.py
# checks all three agree).
FindingCode = Literal[
    "citation.unknown_statute",
    "citation.name_variant",
    "citation.article_out_of_range",
    "citation.repealed",
    "citation.content_mismatch",
    "citation.renumbered",
    "citation.not_in_force",
    "citation.superseded",
    "citation.part_out_of_range",
    "citation.called_in_force",
    # what a citing sentence says besides its subject, against the article it means
    # (app/validation/statements.py, negation.py), and references that are not to a statute
    "citation.figure_mismatch",
    "citation.actor_mismatch",
    "citation.condition_mismatch",
    "citation.negates_duty",
    "citation.rule_elsewhere",
    "citation.not_a_provision",
    "numbering.gap",
    "numbering.duplicate",
    "numbering.out_of_order",
    "numbering.mixed_style",
    "structure.missing_section",
    "structure.section_order",
    "facts.route_mismatch",
    "facts.number_mismatch",
    "facts.count_flips_route",
    # prose gates on a model-written outline part (app/outline/gates.py): a part that fails one
    # falls back to its clause or the placeholder; the finding is kept on the part's record
    "prose.instruction_echo",
    "prose.dangling_lead_in",
    "prose.garble",
    "prose.repetition",
    "prose.wrong_fact",
    "prose.cut_off",
    "prose.outcome_promise",
    "prose.unauthorised_disclosure",
    # fidelity gates (app/outline/fidelity.py): an adapted part stays its clause; every model
    # part ends a sentence, states no form field and uses only the characters legal prose needs
    "prose.lost_term",
    "prose.unfaithful",
    "prose.form_field",
    "prose.unfinished",
    "prose.ellipsis",
    "prose.stray_chars",
    # a standard contract against the official text (app/review/contract.py): 标准合同办法第六条
    "contract.item_deleted",
    "contract.obligation_weakened",
    "contract.period_changed",
    "contract.condition_dropped",
    "contract.wording_changed",
    "contract.conflicting_term",
    "contract.appendix_mismatch",
]
CitationStatus = Literal[
    "ok", "unknown_statute", "name_variant", "article_out_of_range", "repealed", "unverified"
]
# A document type's numbering scheme (prompts/<type>/meta.yaml `numbering`); it shapes the
# prompt only: the checker infers each level's style from the draft itself.
NumberingStyle = Literal["chinese", "follow-input"]
# How an outline's generated parts are written (a setting per endpoint, app/config.py):
# assemble = the clause as rendered, no model; adapt = the model rewrites the clause for the
# facts; write = the model writes fresh prose. Where a part's text came from:
PartWriting = Literal["assemble", "adapt", "write"]
PartSource = Literal["app", "clause", "adapted", "model", "placeholder"]
PART_WRITINGS: tuple[PartWriting, ...] = get_args(PartWriting)
# An endpoint's `writing` setting: one of the three, or `measured` (app/drafting/writing_mode.py:
# adapt where its measured adapted parts pass the gates often enough, else assemble).
WritingSetting = Literal[PartWriting, "measured"]
# How a draft is written: the type's outline part by part, or one free-form request.
DraftMode = Literal["outline", "free-form"]
DRAFT_MODES: tuple[DraftMode, ...] = get_args(DraftMode)
# What an outline run is doing, for the page: computing a part's prompt, streaming it, done.
PhaseName = Literal["prompt", "streaming", "done"]


def final_status(stream: StreamStatus, finish_reason: str | None) -> GenerationStatus:
    """How a draft (or an outline part) ended, from its stream: cut by max_tokens (finish_reason
    "length") is truncated; a stream that never finished is an error."""
    if stream in (StreamStatus.RUNNING, StreamStatus.ERROR):
        return GenerationStatus.ERROR
    if stream == StreamStatus.STOPPED:
        return GenerationStatus.STOPPED
    return GenerationStatus.TRUNCATED if finish_reason == "length" else GenerationStatus.COMPLETE


class Guard(StrEnum):
    """A guard that acted on a draft or one of its parts (logged in `params.draft.marks`)."""

    REPETITION_TRIMMED = "repetition_trimmed"  # a part that repeated itself, cut at a sentence
    BUDGET_TRIMMED = "budget_trimmed"  # cut by its token budget, ended at a sentence boundary
    BUDGET_CUT_MID_SENTENCE = "budget_cut_mid_sentence"  # no whole sentence: ends with ……
    THINKING_REMOVED = "thinking_removed"  # a <think> block kept out of the text
    NO_TEXT = "no_text"  # the part shows the placeholder
    FALLBACK = "fallback"  # the model's prose failed a gate: the part shows its clause
    SENTENCES_REMOVED = "sentences_removed"  # generated sentences carrying an error, removed


@dataclass(frozen=True)
class GuardMark:
    """A guard on the draft (`part` None) or on its part `part` (1-based), with a count where
    it has one; `str()` is how the audit log and the page spell it (part3:no_text,
    sentences_removed:2)."""

    guard: Guard
    part: int | None = None
    count: int | None = None

    def __str__(self) -> str:
        text = self.guard.value if self.part is None else f"part{self.part}:{self.guard.value}"
        return text if self.count is None else f"{text}:{self.count}"


FINDING_CODES: tuple[FindingCode, ...] = get_args(FindingCode)
SEVERITIES: tuple[Severity, ...] = get_args(Severity)


def describe(error: object) -> Bilingual:
    """What a page or command shows for a failure: a BilingualError's message, a Bilingual
    as it is, anything else (an unforeseen exception, a plain string) as its str in both."""
    if isinstance(error, Bilingual):
        return error
    if isinstance(error, BilingualError):
        return error.bilingual
    if isinstance(error, KeyError) and error.args:  # str() would quote its message
        error = error.args[0]
    detail = "" if error is None else str(error)
    return Bilingual(detail, detail)


class BilingualMessage:
    """A base for dataclasses that keep their message as `message_zh` / `message_en` fields
    (so they stay plain JSON-able fields): the message as one Bilingual, or in one language."""

    message_zh: str
    message_en: str

    @property
    def bilingual(self) -> Bilingual:
        return Bilingual(self.message_zh, self.message_en)

    def message(self, lang: str = "zh") -> str:
        return self.bilingual.text(lang)


def validation_reasons(exc: ValidationError, root: str = "") -> str:
    """A pydantic ValidationError in one line: "where: what" for each problem, "; "-joined;
    a problem at the top level is placed at `root`."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or root}: {e['msg']}" for e in exc.errors()
    )


@dataclass(frozen=True)
class Finding(BilingualMessage):
    """One problem found in a draft, anchored on a character span [start, end)."""

    code: FindingCode
    severity: Severity
    start: int
    end: int
    message_zh: str
    message_en: str
    suggestion: str = ""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Finding:
        """A Finding as to_dict() wrote it (the audit log keeps findings as JSON); extra keys
        are ignored. KeyError, TypeError or ValueError when a field is missing or malformed.
        A code or severity read back is not checked against today's vocabulary: a record
        stays readable after a code is retired."""
        return cls(
            code=data["code"],
            severity=data["severity"],
            start=int(data["start"]),
            end=int(data["end"]),
            message_zh=str(data["message_zh"]),
            message_en=str(data["message_en"]),
            suggestion=str(data.get("suggestion") or ""),
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity,
            "start": self.start,
            "end": self.end,
            "message_zh": self.message_zh,
            "message_en": self.message_en,
            "suggestion": self.suggestion,
        }


@dataclass(frozen=True)
class Citation:
    """A statute reference parsed from text, resolved against the catalogue where possible."""

    start: int
    end: int
    raw: str
    statute: str | None  # canonical name, None if unknown
    article: int | None = None
    paragraph: int | None = None
    item: int | None = None
    status: CitationStatus = "ok"
    version: str | None = None  # the statute text's version applied (2025-10-28修正), if held
    first_line: str | None = None  # the cited article's first line in that version

    def to_dict(self) -> dict[str, object]:
        return {
            "start": self.start,
            "end": self.end,
            "raw": self.raw,
            "statute": self.statute,
            "article": self.article,
            "paragraph": self.paragraph,
            "item": self.item,
            "status": self.status,
            "version": self.version,
            "first_line": self.first_line,
        }


# Where the date a text was checked on came from: given by the caller (a form's date field,
# --date), read from the text itself (出具日期, 更新于 … app/validation/text_date.py), or the
# caller's default (today) when neither says; a document under review (app/review) may also
# date itself in a header or footer or its file's properties, else it is read on today.
DateSource = Literal["given", "text", "default", "header", "footer", "properties", "today"]


@dataclass(frozen=True)
class DateUsed:
    """The date citations were checked on, where it came from, and (read from the text) the
    cue and the span of the date as written. A sentence that sets its own date (截至2025年6月30日…)
    is read on that date instead; the findings there say so."""

    date: dt.date
    source: DateSource
    cue: str = ""
    start: int | None = None
    end: int | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "date": self.date.isoformat(),
            "source": self.source,
            "cue": self.cue,
            "start": self.start,
            "end": self.end,
        }


@dataclass(frozen=True)
class CheckResult:
    findings: tuple[Finding, ...] = ()
    citations: tuple[Citation, ...] = ()
    date: DateUsed | None = None  # the date the citations were checked on

    @property
    def has_errors(self) -> bool:
        return any(f.severity == "error" for f in self.findings)


@dataclass(frozen=True)
class RenderedPrompt:
    """A prompt ready to send, carrying where it came from."""

    doc_type: str
    template_id: str
    template_version: str
    template_hash: str  # sha256 of the template sources (meta.yaml + *.j2)
    system: str
    user: str
    values: dict[str, str] = field(default_factory=dict)
    prompt_tokens: int | None = None

    def messages(self) -> list[dict[str, str]]:
        msgs = [{"role": "system", "content": self.system}] if self.system else []
        return [*msgs, {"role": "user", "content": self.user}]


MAX_TEMPERATURE = 2.0  # OpenAI's (and vLLM's) upper bound on the sampling temperature


@dataclass(frozen=True)
class MatterRef:
    """The matter (案件) a document is drafted for, and the version of its facts it used; kept
    in the generation's params (`{"matter": {"number", "version"}}`)."""

    number: str
    version: int

    def to_dict(self) -> dict[str, object]:
        return {"number": self.number, "version": self.version}

    @classmethod
    def from_params(cls, params: object) -> MatterRef | None:
        """The matter a logged generation names; None for one drafted without a matter (or a
        malformed entry)."""
        raw = params.get("matter") if isinstance(params, dict) else None
        if not isinstance(raw, dict) or not isinstance(raw.get("number"), str):
            return None
        version = raw.get("version")
        return cls(raw["number"], version if isinstance(version, int) else 0)


@dataclass(frozen=True)
class GenerationParams:
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 512
    seed: int | None = None
    stop: tuple[str, ...] = ()


@dataclass(frozen=True)
class GenerationStats:
    """Per-request numbers, measured by the client (and the server where it reports them).

    Token counts come from the server's usage (or its tokenizer when usage is missing, e.g.
    after Stop); `tokens_estimated` is set when neither answered and the count is the number
    of streamed chunks, a lower bound. The rate is the decode rate: the tokens that arrived
    after the first chunk over the time from the first chunk to the last (`decode_tokens`,
    `decode_s`), so a first chunk carrying several tokens does not inflate it.
    """

    ttft_s: float | None = None
    total_s: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int = 0
    draft_tokens: int | None = None
    accepted_tokens: int | None = None
    spec_method: str | None = None  # the server's spec_decode.method (ngram, draft_model, ...)
    decode_tokens: int | None = None
    decode_s: float | None = None
    tokens_estimated: bool = False
    recorded_tokens_per_s: float | None = None  # as stored in the audit log (History)
    # numbers the server reported that are not counts (app.llm.reported): (name, value) pairs
    refused: tuple[tuple[str, str], ...] = ()

    @property
    def tokens_per_s(self) -> float | None:
        if self.decode_tokens is None or self.decode_s is None:
            return self.recorded_tokens_per_s
        if self.decode_tokens <= 0 or self.decode_s <= 0 or self.tokens_estimated:
            return None
        return self.decode_tokens / self.decode_s

    @property
    def acceptance_rate(self) -> float | None:
        if not self.draft_tokens or self.accepted_tokens is None:
            return None
        return self.accepted_tokens / self.draft_tokens
