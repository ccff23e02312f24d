"""Stream a draft from an LLM, re-checking it as it grows, and write the outcome to the audit log.

The validator (`app.validation.check`) runs every `check_every_chars` new characters and once
at the end; the final outcome (complete, truncated, stopped or error) keeps the partial text, the stats
and the last CheckResult, and `record` writes all of it to the append-only audit log.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from app.domain import CheckResult, GenerationParams, GenerationStats, PartWriting, RenderedPrompt
from app.llm.client import ChatStream, LLMClient
from app.outline.guards import ThinkFilter

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

Checker = Callable[[str, Sequence[str]], CheckResult]
Status = Literal["running", "complete", "truncated", "stopped", "error"]


def final_status(stream_status: str, finish_reason: str | None) -> Status:
    """A stream that ended because of max_tokens (finish_reason "length") is truncated."""
    if stream_status == "complete" and finish_reason == "length":
        return "truncated"
    return stream_status  # type: ignore[return-value]


@dataclass(frozen=True)
class DraftUpdate:
    """The draft so far, the new text, and a fresh CheckResult when a check ran on this update;
    `queued`: the requests the server will serve first, while it holds this one back (it says
    so in its stream; None: not queued, or a server that does not say)."""

    text: str
    delta: str
    check: CheckResult | None = None
    phase: Any = None  # outline drafts: app.outline.run.Phase (prompt / streaming, which part)
    queued: int | None = None


@dataclass(frozen=True)
class GenerationOutcome:
    """How one generation ended, with everything the audit log needs."""

    rendered: RenderedPrompt
    params: GenerationParams
    endpoint_name: str
    model: str
    speculative_label: str
    text: str
    status: Status
    error: str | None
    stats: GenerationStats
    check: CheckResult | None
    finish_reason: str | None = None
    findings: tuple[dict[str, Any], ...] = field(default=())
    mode: str = "free-form"  # free-form | outline (app.draft_service)
    marks: tuple[str, ...] = ()  # guards that acted: repetition_trimmed, budget_trimmed, ...
    thinking: str = ""  # a <think> block kept out of the text and the checks
    parts: tuple[Any, ...] = ()  # outline drafts: app.outline.run.PartResult per generated part
    provenance: tuple[Any, ...] = ()  # outline drafts: app.outline.provenance.PartOrigin per part


def check_draft(
    text: str, required_sections: Sequence[str] = (), doc_date: dt.date | None = None
) -> CheckResult:
    """app.validation.check against the configured statute catalogue, on the document's date
    (DocType.document_date: the form's date field; None: today).

    A broken firm statute file must not interrupt a lawyer's draft or its review: the app
    falls back to the built-in catalogue (`lexspec check` and `lexspec export --findings`
    report the file's error instead).
    """
    from app.validation import CatalogueError, check, default_catalogue, load_catalogue

    try:
        catalogue = default_catalogue()
    except CatalogueError:
        catalogue = load_catalogue(None)
    required = tuple(required_sections)
    return check(text, required_sections=required, catalogue=catalogue, doc_date=doc_date)


def checker_for(values: Mapping[str, str], doc_date: dt.date | None = None) -> Checker:
    """check_draft on `doc_date`, plus the facts check (app.validation.facts) when the form is a
    transfer's."""
    from app.validation.facts import form_facts, with_facts

    base: Checker = (
        check_draft if doc_date is None else functools.partial(check_draft, doc_date=doc_date)
    )
    facts = form_facts(values)
    if facts is None:
        return base
    return lambda text, sections: with_facts(base(text, sections), text, facts)


class Run:
    """What a free-form and an outline draft share: the outcome, once iteration has ended."""

    _outcome: GenerationOutcome | None = None

    @property
    def finished(self) -> bool:
        return self._outcome is not None

    def outcome(self) -> GenerationOutcome:
        """The final outcome; only once iteration has ended (RuntimeError before)."""
        if self._outcome is None:
            raise RuntimeError("the draft is still streaming; iterate it to the end first")
        return self._outcome


class DraftRun(Run):
    """One streaming draft: iterate for DraftUpdates, cancel() to stop, outcome() afterwards."""

    def __init__(
        self,
        stream: ChatStream,
        rendered: RenderedPrompt,
        params: GenerationParams,
        *,
        required_sections: Sequence[str],
        endpoint_name: str,
        speculative_label: str,
        check_every_chars: int,
        checker: Checker | None,
    ) -> None:
        self.stream = stream
        self.rendered = rendered
        self.params = params
        self.required_sections = tuple(required_sections)
        self.endpoint_name = endpoint_name
        self.speculative_label = speculative_label
        self.check_every_chars = max(1, check_every_chars)
        self._checker = checker
        self._check: CheckResult | None = None
        self._thinking = ThinkFilter()
        self._text = ""

    def cancel(self) -> None:
        self.stream.cancel()

    def _run_check(self, text: str) -> CheckResult | None:
        if self._checker is None:
            return None
        self._check = self._checker(text, self.required_sections)
        return self._check

    def __iter__(self) -> Generator[DraftUpdate, None, None]:
        checked_at = 0
        deltas = iter(self.stream)
        try:
            for raw in deltas:
                delta = self._thinking.feed(raw)
                self._text += delta
                text = self._text
                check = None
                if len(text) - checked_at >= self.check_every_chars:
                    check, checked_at = self._run_check(text), len(text)
                yield DraftUpdate(text, delta, check, queued=self.stream.queued)
        finally:
            deltas.close()  # a consumer that stops early leaves the stream "stopped", not running
            self._finish()
        if self._outcome is not None:
            yield DraftUpdate(self._outcome.text, "", self._outcome.check)

    def _finish(self) -> None:
        if self._outcome is not None:
            return
        text = self._text + self._thinking.flush()
        check = self._run_check(text) if self._checker is not None else None
        self._outcome = GenerationOutcome(
            rendered=self.rendered,
            params=self.params,
            endpoint_name=self.endpoint_name,
            model=self.stream.model,
            speculative_label=self.speculative_label,
            text=text,
            status=final_status(self.stream.status, self.stream.finish_reason),
            error=self.stream.error,
            stats=self.stream.stats,
            check=check,
            finish_reason=self.stream.finish_reason,
            findings=tuple(f.to_dict() for f in check.findings) if check else (),
            thinking=self._thinking.thinking,
            marks=("thinking_removed",) if self._thinking.thinking else (),
        )


def stream_draft(
    client: LLMClient,
    rendered: RenderedPrompt,
    params: GenerationParams,
    *,
    required_sections: Sequence[str] = (),
    endpoint_name: str,
    speculative_label: str = "",
    check_every_chars: int = 200,
    checker: Checker | None = None,
    doc_date: dt.date | None = None,
) -> DraftRun:
    """Start streaming `rendered` through `client` (lazily: nothing is sent before iteration).

    `checker(text, required_sections)` defaults to app.validation.check on `doc_date`, with the
    facts check where the prompt's form values are a transfer's.
    """
    return DraftRun(
        client.stream_chat(rendered.messages(), params),
        rendered,
        params,
        required_sections=required_sections,
        endpoint_name=endpoint_name,
        speculative_label=speculative_label,
        check_every_chars=check_every_chars,
        checker=checker or checker_for(rendered.values, doc_date),
    )


def to_record(outcome: GenerationOutcome, *, user_name: str) -> Any:
    """The audit.domain.GenerationRecord for this outcome (every field mapped)."""
    from audit.domain import GenerationRecord

    rendered, stats, params = outcome.rendered, outcome.stats, outcome.params
    params_dict: dict[str, Any] = asdict(params)
    params_dict["stop"] = list(params.stop)
    params_dict["draft"] = draft_notes(outcome)
    return GenerationRecord(
        user_name=user_name,
        doc_type=rendered.doc_type,
        template_id=rendered.template_id,
        template_version=rendered.template_version,
        template_hash=rendered.template_hash,
        field_values=dict(rendered.values),
        system_prompt=rendered.system,
        user_prompt=rendered.user,
        endpoint=outcome.endpoint_name,
        model=outcome.model,
        output_text=outcome.text,
        status="error" if outcome.status == "running" else outcome.status,
        error_message=outcome.error,
        speculative={"label": outcome.speculative_label} if outcome.speculative_label else {},
        params=params_dict,
        ttft_s=stats.ttft_s,
        total_s=stats.total_s,
        prompt_tokens=stats.prompt_tokens
        if stats.prompt_tokens is not None
        else rendered.prompt_tokens,
        completion_tokens=stats.completion_tokens,
        tokens_per_s=stats.tokens_per_s,
        draft_tokens=stats.draft_tokens,
        accepted_tokens=stats.accepted_tokens,
        findings=list(outcome.findings),
    )


def draft_notes(outcome: GenerationOutcome) -> dict[str, Any]:
    """Mode, guard marks, thinking (kept apart from the text) and per-part numbers, for the log."""
    notes: dict[str, Any] = {"mode": outcome.mode, "marks": list(outcome.marks)}
    if outcome.thinking:
        notes["thinking"] = outcome.thinking
    if outcome.parts:
        notes["parts"] = [
            {
                "index": p.index,
                "status": p.status,
                "finish_reason": p.finish_reason,
                "ttft_s": p.stats.ttft_s,
                "completion_tokens": p.stats.completion_tokens,
                "prompt_tokens": p.stats.prompt_tokens,
                "marks": list(p.marks),
                "budget": p.budget,
                "budget_from": p.budget_from,
            }
            for p in outcome.parts
        ]
    if outcome.provenance:  # where each part came from: app, clause, adapted, model, placeholder
        notes["provenance"] = [origin.to_dict() for origin in outcome.provenance]
    return notes


def record(outcome: GenerationOutcome, *, user_name: str, session: Session) -> int:
    """Append the outcome to the audit log in the caller's unit of work (which commits); returns
    the generation's id. Pages and `lexspec draft` use app.drafting.recording.keep (retries, spool)."""
    from audit.store import log_generation

    logged = log_generation(to_record(outcome, user_name=user_name), session=session)
    return int(logged.id)


# --- the draft service: prepare (form, outline, context), run, check and record --------------

DraftMode = Literal["outline", "free-form"]
DRAFT_MODES: tuple[str, ...] = ("outline", "free-form")


@dataclass(frozen=True)
class PreparedDraft:
    """A draft ready to run: the rendered (logged) prompt, its parameters and, in outline mode,
    the plan of its parts. Built by prepare_draft for the page, `lexspec draft` and studies."""

    doc_type_id: str
    mode: DraftMode
    rendered: RenderedPrompt
    params: GenerationParams
    required_sections: tuple[str, ...]
    plan: Any = None  # app.outline.compose.OutlinePlan in outline mode
    doc_date: dt.date | None = None  # the form's date field (DocType.document_date); None: today


def _outline_of(doc_type: Any, prompts_dir: Path, mode: DraftMode | None) -> Any:
    """The type's checked outline; None for free-form, or (mode None) when it has none or it
    is broken (the page and `lexspec draft` report a broken outline by name)."""
    from app.outline.model import OutlineError, load_outline
    from app.outline.prepare import check_outline

    if mode == "free-form":
        return None
    try:
        outline = load_outline(prompts_dir / doc_type.id)
        if outline is not None:
            outline = check_outline(outline, doc_type)
    except (OutlineError, OSError):
        if mode == "outline":
            raise
        return None
    if outline is None and mode == "outline":
        raise OutlineError(f"{doc_type.id}: no outline.yaml")
    return outline


def prepare_draft(
    doc_type: Any,
    values: Mapping[str, object],
    *,
    prompts_dir: Path,
    client: LLMClient | None = None,
    params: GenerationParams | None = None,
    mode: DraftMode | None = None,
) -> PreparedDraft:
    """Validate and render the form, plan the outline (mode None: the outline where the type
    has a working one, else free-form) and check that every request fits the model's context.

    Raises FieldErrors, TemplateProblem, OutlineError / OutlineProblem or ContextTooLong."""
    from app.outline.prepare import largest_part_prompt, outline_prompt, plan_for
    from app.prompts import check_context, count_prompt_tokens, render

    rendered = render(doc_type, values)
    params = params or doc_type.defaults
    limit = client.context_limit() if client is not None else None
    outline = _outline_of(doc_type, prompts_dir, mode)
    on = doc_type.document_date(rendered.values)
    if outline is None:
        tokens = count_prompt_tokens(rendered, client)
        check_context(tokens, params.max_tokens, limit)
        return PreparedDraft(
            doc_type.id,
            "free-form",
            replace(rendered, prompt_tokens=tokens),
            params,
            tuple(doc_type.required_sections),
            doc_date=on,
        )
    plan = plan_for(outline, doc_type, rendered.values | _all_values(doc_type, rendered))
    tokens, budget = largest_part_prompt(plan, client)
    check_context(tokens, budget, limit)
    return PreparedDraft(
        doc_type.id,
        "outline",
        replace(outline_prompt(rendered, plan), prompt_tokens=tokens),
        params,
        tuple(doc_type.required_sections),
        plan,
        doc_date=on,
    )


def _all_values(doc_type: Any, rendered: RenderedPrompt) -> dict[str, str]:
    """Every declared field (empty ones as ""), so outline templates may test optional fields."""
    return {f.name: rendered.values.get(f.name, "") for f in doc_type.fields}


def start_draft(
    prepared: PreparedDraft,
    client: LLMClient,
    *,
    endpoint_name: str,
    speculative_label: str = "",
    checker: Checker | None = None,
    writing: PartWriting | None = None,
) -> Any:
    """A DraftRun (free-form) or an OutlineRun (outline); both are iterated for DraftUpdates,
    cancel() to stop, outcome() afterwards. Nothing is sent before iteration. An outline's
    generated parts are written as `writing` says (None: the endpoint's setting)."""
    from app.outline.runner import OutlineRun

    # the checks run on the document's date, with the facts check where the form is a transfer's
    checker = checker or checker_for(prepared.rendered.values, prepared.doc_date)
    if prepared.mode == "outline":
        return OutlineRun(
            client,
            prepared.plan,
            prepared.rendered,
            prepared.params,
            required_sections=prepared.required_sections,
            endpoint_name=endpoint_name,
            speculative_label=speculative_label,
            checker=checker,
            writing=writing or endpoint_writing(endpoint_name),
        )
    return stream_draft(
        client,
        prepared.rendered,
        prepared.params,
        required_sections=prepared.required_sections,
        endpoint_name=endpoint_name,
        speculative_label=speculative_label,
        checker=checker,
    )


def endpoint_writing(endpoint_name: str) -> PartWriting:
    """How the named endpoint writes outline parts (Settings: `writing`; default adapt)."""
    from app.config import get_settings

    endpoint = get_settings().all_endpoints().get(endpoint_name)
    return endpoint.writing if endpoint is not None else "adapt"


def run_to_end(run: Any) -> GenerationOutcome:
    """Iterate a run without showing it (studies, benchmarks) and return its outcome."""
    for _update in run:
        pass
    return run.outcome()  # type: ignore[no-any-return]


def export_header(doc_type: Any, values: Mapping[str, str]) -> dict[str, str]:
    """The DOCX header's client and matter reference for any type: the client is the first
    required one-line text field (the company, the disclosing party, ...), the matter
    reference the `matter_ref` field where the type has one."""
    fields = getattr(doc_type, "fields", ()) if doc_type is not None else ()
    client = next((f.name for f in fields if f.kind == "text" and f.required), "")
    return {
        "client": values.get(client, "") if client else "",
        "matter_ref": values.get("matter_ref", ""),
    }
