"""The Draft page's last result for a page test: a finished outcome made of the pieces the test
names (the page reads everything from the outcome, as after a real run)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.drafting.context import DraftContext
    from app.pages.draft_run import DraftRequest, DraftResult


def shown_result(
    request: DraftRequest,
    context: DraftContext,
    status: str,
    text: str,
    *,
    generation_id: int | None = None,
    error: str | None = None,
    **outcome: Any,
) -> DraftResult:
    """A DraftResult whose outcome ended with `status` and `text` in `context` (`outcome`: its
    marks, parts, provenance or thinking)."""
    from app.domain import GenerationStats, GenerationStatus
    from app.drafting.outcome import GenerationOutcome
    from app.pages.draft_run import DraftResult

    ended = GenerationOutcome(
        context=context,
        endpoint_name=request.endpoint,
        model="",
        speculative_label="",
        text=text,
        status=GenerationStatus(status),
        error=error,
        stats=GenerationStats(),
        check=None,
        **outcome,
    )
    return DraftResult(request, ended, generation_id=generation_id)
