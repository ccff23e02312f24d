"""Test doubles for the LLM Protocol: a client that replays chat-completion chunks.

The chunks are real `openai` ChatCompletionChunk objects, parsed from the same JSON shape the
embedded server sends (including the final chunk's usage and spec_decode), and they go through
the real ChatStream, so only the network is faked.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from openai.types.chat import ChatCompletionChunk

from app.domain import GenerationParams
from app.llm.client import ChatStream
from app.llm.sse import Queued


def chunk(
    content: str | None = None, *, finish: str | None = None, **extra: Any
) -> ChatCompletionChunk:
    """One chunk as an OpenAI-compatible server streams it."""
    choices = (
        []
        if content is None and finish is None
        else [{"index": 0, "delta": {"content": content}, "finish_reason": finish}]
    )
    data = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "fake-model",
        "choices": choices,
        **extra,
    }
    return ChatCompletionChunk.model_validate(data)


def final_chunk(
    prompt_tokens: int, completion_tokens: int, draft: int | None, accepted: int | None
) -> ChatCompletionChunk:
    usage = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    spec = (
        {}
        if draft is None
        else {
            "spec_decode": {"draft_tokens": draft, "accepted_tokens": accepted, "method": "ngram"}
        }
    )
    return chunk(usage=usage, **spec)


class Replay:
    """An iterable of chunks that can fail after N chunks, wait between chunks, and be closed."""

    def __init__(
        self,
        chunks: Sequence[ChatCompletionChunk],
        *,
        fail_after: int | None = None,
        error: Exception | None = None,
        delay_s: float = 0.0,
    ) -> None:
        self.chunks = list(chunks)
        self.fail_after = fail_after
        self.error = error or ConnectionResetError("connection reset by peer")
        self.delay_s = delay_s
        self.closed = False
        self.sent = 0

    def __iter__(self) -> Iterator[ChatCompletionChunk]:
        for i, item in enumerate(self.chunks):
            if self.closed:
                raise ConnectionAbortedError("stream closed")
            if self.fail_after is not None and i >= self.fail_after:
                raise self.error
            if self.delay_s:
                time.sleep(self.delay_s)
            self.sent += 1
            yield item

    def close(self) -> None:
        self.closed = True


class FakeClient:
    """LLMClient that replays the given text pieces, then a usage/spec_decode final chunk."""

    def __init__(
        self,
        pieces: Iterable[str],
        *,
        draft: int | None = 12,
        accepted: int | None = 9,
        fail_after: int | None = None,
        open_error: Exception | None = None,
        context: int | None = 4096,
        tokens: int | None = None,
        delay_s: float = 0.0,
        finish: str = "stop",
        scripts: Sequence[Sequence[str]] | None = None,
        queue: Sequence[int | None] = (),
    ) -> None:
        self.pieces = list(pieces)
        self.queue = list(queue)  # the server's queue comments before the first chunk
        self.finish = finish  # the finish_reason of every request ("length": cut by max_tokens)
        self.scripts = [list(s) for s in scripts] if scripts else None  # pieces per request
        self.draft, self.accepted = draft, accepted
        self.fail_after = fail_after
        self.open_error = open_error
        self.context = context
        self.tokens = tokens
        self.delay_s = delay_s
        self.requests: list[tuple[list[dict[str, str]], GenerationParams]] = []
        self.replays: list[Replay] = []

    def stream_chat(
        self, messages: Sequence[Mapping[str, str]], params: GenerationParams
    ) -> ChatStream:
        self.requests.append(([dict(m) for m in messages], params))
        pieces = (
            self.scripts[(len(self.requests) - 1) % len(self.scripts)]
            if self.scripts
            else self.pieces
        )

        def open_chunks() -> Replay:
            if self.open_error is not None:
                raise self.open_error
            chunks: list[Any] = [Queued(ahead) for ahead in self.queue]
            chunks += [chunk(p) for p in pieces]
            chunks.append(chunk("", finish=self.finish))
            chunks.append(final_chunk(20, len(pieces), self.draft, self.accepted))
            replay = Replay(chunks, fail_after=self.fail_after, delay_s=self.delay_s)
            self.replays.append(replay)
            return replay

        return ChatStream(open_chunks, model="fake-model")

    def models(self) -> list[str]:
        return ["fake-model"]

    def context_limit(self) -> int | None:
        return self.context

    def count_tokens(self, messages: Sequence[Mapping[str, str]]) -> int | None:
        return self.tokens
