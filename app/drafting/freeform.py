"""A free-form draft: one streaming request, re-checked as it grows (`check(context, text)`
every `check_every_chars` new characters and once at the end)."""

from __future__ import annotations

from collections.abc import Callable, Generator

from app.domain import CheckResult, Guard, GuardMark, final_status
from app.drafting.checking import check
from app.drafting.context import DraftContext
from app.drafting.outcome import DraftUpdate, GenerationOutcome, Run
from app.llm.client import ChatStream, LLMClient
from app.outline.guards import ThinkFilter

Checker = Callable[[str], CheckResult]


class DraftRun(Run):
    """One streaming draft: iterate for DraftUpdates, cancel() to stop, outcome() afterwards."""

    def __init__(
        self,
        stream: ChatStream,
        context: DraftContext,
        *,
        endpoint_name: str,
        speculative_label: str,
        check_every_chars: int,
        checker: Checker | None = None,
    ) -> None:
        super().__init__(context, endpoint_name=endpoint_name, speculative_label=speculative_label)
        self.stream = stream
        self.check_every_chars = max(1, check_every_chars)
        self._checker: Checker = checker or (lambda text: check(context, text))
        self._thinking = ThinkFilter()
        self._text = ""

    def cancel(self) -> None:
        self.stream.cancel()

    def settled_text(self) -> str:
        """Everything streamed so far (a free-form draft's text is final as it arrives)."""
        return self._text

    def __iter__(self) -> Generator[DraftUpdate, None, None]:
        checked_at = 0
        deltas = iter(self.stream)
        try:
            for raw in deltas:
                delta = self._thinking.feed(raw)
                self._text += delta
                text = self._text
                found = None
                if len(text) - checked_at >= self.check_every_chars:
                    found, checked_at = self._checker(text), len(text)
                yield DraftUpdate(text, delta, found, queued=self.stream.queued)
        finally:
            deltas.close()  # a consumer that stops early leaves the stream "stopped", not running
            self._finish()
        if self._outcome is not None:
            yield DraftUpdate(self._outcome.text, "", self._outcome.check)

    def _finish(self) -> None:
        if self._outcome is not None:
            return
        text = self._text + self._thinking.flush()
        thinking = self._thinking.thinking
        self._outcome = GenerationOutcome(
            context=self.context,
            endpoint_name=self.endpoint_name,
            model=self.stream.model,
            speculative_label=self.speculative_label,
            text=text,
            status=final_status(self.stream.status, self.stream.finish_reason),
            error=self.stream.error,
            stats=self.stream.stats,
            check=self._checker(text),
            finish_reason=self.stream.finish_reason,
            thinking=thinking,
            marks=(GuardMark(Guard.THINKING_REMOVED),) if thinking else (),
        )


def stream_draft(
    client: LLMClient,
    context: DraftContext,
    *,
    endpoint_name: str,
    speculative_label: str = "",
    check_every_chars: int = 200,
    checker: Checker | None = None,
) -> DraftRun:
    """Start streaming the context's prompt through `client` (lazily: nothing is sent before
    iteration), checked with `check(context, text)` (`checker` replaces it in tests)."""
    return DraftRun(
        client.stream_chat(context.prompt.messages(), context.params),
        context,
        endpoint_name=endpoint_name,
        speculative_label=speculative_label,
        check_every_chars=check_every_chars,
        checker=checker,
    )
