"""Stream a draft from an LLM, re-checking it as it grows, and write the outcome to the audit log.

The validator (`app.validation.check`) runs every `check_every_chars` new characters and once
at the end; the final outcome (complete, stopped or error) keeps the partial text, the stats
and the last CheckResult, and `record` writes all of it to the append-only audit log.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from app.domain import CheckResult, GenerationParams, GenerationStats, RenderedPrompt
from app.llm.client import ChatStream, LLMClient, Status

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

Checker = Callable[[str, Sequence[str]], CheckResult]


@dataclass(frozen=True)
class DraftUpdate:
    """The draft so far, the new text, and a fresh CheckResult when a check ran on this update."""

    text: str
    delta: str
    check: CheckResult | None = None


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


def check_draft(text: str, required_sections: Sequence[str] = ()) -> CheckResult:
    """app.validation.check against the configured statute catalogue.

    A broken firm statute file must not interrupt a lawyer's draft or its review: the app
    falls back to the built-in catalogue (`lexspec check` and `lexspec export --findings`
    report the file's error instead).
    """
    from app.validation import CatalogueError, check, default_catalogue, load_catalogue

    try:
        catalogue = default_catalogue()
    except CatalogueError:
        catalogue = load_catalogue(None)
    return check(text, required_sections=tuple(required_sections), catalogue=catalogue)


class DraftRun:
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
        self._outcome: GenerationOutcome | None = None

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
            for delta in deltas:
                text = self.stream.text
                check = None
                if len(text) - checked_at >= self.check_every_chars:
                    check, checked_at = self._run_check(text), len(text)
                yield DraftUpdate(text, delta, check)
        finally:
            deltas.close()  # a consumer that stops early leaves the stream "stopped", not running
            self._finish()
        if self._outcome is not None:
            yield DraftUpdate(self._outcome.text, "", self._outcome.check)

    def _finish(self) -> None:
        if self._outcome is not None:
            return
        text = self.stream.text
        check = self._run_check(text) if self._checker is not None else None
        self._outcome = GenerationOutcome(
            rendered=self.rendered,
            params=self.params,
            endpoint_name=self.endpoint_name,
            model=self.stream.model,
            speculative_label=self.speculative_label,
            text=text,
            status=self.stream.status,
            error=self.stream.error,
            stats=self.stream.stats,
            check=check,
            finish_reason=self.stream.finish_reason,
            findings=tuple(f.to_dict() for f in check.findings) if check else (),
        )

    @property
    def finished(self) -> bool:
        return self._outcome is not None

    def outcome(self) -> GenerationOutcome:
        """The final outcome; only once iteration has ended (RuntimeError before)."""
        if self._outcome is None:
            raise RuntimeError("the draft is still streaming; iterate it to the end first")
        return self._outcome


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
) -> DraftRun:
    """Start streaming `rendered` through `client` (lazily: nothing is sent before iteration).

    `checker(text, required_sections)` defaults to app.validation.check.
    """
    return DraftRun(
        client.stream_chat(rendered.messages(), params),
        rendered,
        params,
        required_sections=required_sections,
        endpoint_name=endpoint_name,
        speculative_label=speculative_label,
        check_every_chars=check_every_chars,
        checker=checker or check_draft,
    )


def to_record(outcome: GenerationOutcome, *, user_name: str) -> Any:
    """The audit.domain.GenerationRecord for this outcome (every field mapped)."""
    from audit.domain import GenerationRecord

    rendered, stats, params = outcome.rendered, outcome.stats, outcome.params
    params_dict = asdict(params)
    params_dict["stop"] = list(params.stop)
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


def record(outcome: GenerationOutcome, *, user_name: str, session: Session) -> int:
    """Append the outcome to the audit log and commit; returns the generation's id."""
    from audit.store import log_generation

    logged = log_generation(to_record(outcome, user_name=user_name), session=session)
    session.commit()
    return int(logged.id)
