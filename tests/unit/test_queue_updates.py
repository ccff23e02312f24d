"""A draft queued behind other requests: the server's SSE comments (`: queued N ahead`) are read
from the response (the `openai` reader drops them), kept on the ChatStream and handed on in
DraftUpdate.queued, so the page and `lexspec draft` can say "queued: N ahead"."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from app.llm.sse import Queued, SSEChunks, queue_note
from tests.fakes import FakeClient
from tests.unit.test_generation import PIECES, RecordingChecker, run_draft

REQUEST = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")
CHUNK = {
    "id": "chatcmpl-x",
    "object": "chat.completion.chunk",
    "created": 0,
    "model": "m",
    "choices": [{"index": 0, "delta": {"content": "第一条"}, "finish_reason": None}],
}


def _response(*events: str) -> httpx.Response:
    return httpx.Response(200, content="".join(events).encode(), request=REQUEST)


@pytest.mark.parametrize(
    ("line", "ahead"),
    [(": queued 3 ahead", 3), (":queued 1 ahead", 1), (": running", None), (": ping", None)],
)
def test_queue_notes(line: str, ahead: int | None) -> None:
    assert queue_note(line) == Queued(ahead)


def test_sse_chunks_hand_on_comments_and_chunks_until_done() -> None:
    response = _response(
        ": queued 2 ahead\n\n",
        ": queued 1 ahead\n\n",
        ": running\n\n",
        f"data: {json.dumps(CHUNK, ensure_ascii=False)}\n\n",
        "data: [DONE]\n\n",
        f"data: {json.dumps(CHUNK)}\n\n",  # after [DONE]: not read
    )
    items = list(SSEChunks(response))
    assert items[:3] == [Queued(2), Queued(1), Queued(None)] and len(items) == 4
    assert items[3].choices[0].delta.content == "第一条"


def test_an_error_event_raises_openai_api_error() -> None:
    error = {"error": {"message": "boom", "type": "server_error", "param": None, "code": 500}}
    with pytest.raises(openai.APIError, match="boom"):
        list(SSEChunks(_response(f"data: {json.dumps(error)}\n\n")))


def test_a_queued_draft_says_how_many_are_ahead_before_its_text() -> None:
    run = run_draft(FakeClient(PIECES, queue=(2, 2, 1, None)), checker=RecordingChecker())
    updates = list(run)
    waiting = [u.queued for u in updates[:3]]
    assert waiting == [2, 1, None] and not any(u.delta for u in updates[:3])  # repeats merged
    assert updates[3].delta == PIECES[0] and updates[3].queued is None
    outcome = run.outcome()
    assert outcome.status == "complete" and outcome.text == "".join(PIECES)
    assert outcome.stats.ttft_s is not None  # timed from the text, not from the queue notes


class _Silent(httpx.SyncByteStream):
    """A response body that sends one comment, then goes silent past the read timeout."""

    def __iter__(self):  # type: ignore[no-untyped-def]
        yield b": queued 1 ahead\n\n"
        raise httpx.ReadTimeout("no bytes within the read timeout")


def test_silence_past_the_read_timeout_is_openais_timeout_error() -> None:
    from app.llm.errors import explain

    response = httpx.Response(200, stream=_Silent(), request=REQUEST)
    items = SSEChunks(response)
    with pytest.raises(openai.APITimeoutError) as info:
        list(items)
    assert "did not answer within 2 s" in explain(info.value, "http://x", 2).message("en")
