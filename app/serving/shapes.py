"""How a generation is written back: as a chat completion (/v1/chat/completions) or as a text
completion (/v1/completions, OpenAI's legacy API that vLLM also serves), whole or as SSE chunks.

Both carry `usage` and our `spec_decode` object on the last chunk (or the whole body); a text
completion with `echo` starts with the prompt's text, as vLLM's does.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any, Protocol

from app.serving.worker import Outcome


def usage(out: Outcome, method: str) -> dict[str, Any]:
    """`usage` (OpenAI's) and `spec_decode` (draft and accepted tokens, the drafter's method)."""
    return {
        "usage": {
            "prompt_tokens": out.prompt_tokens,
            "completion_tokens": out.completion_tokens,
            "total_tokens": out.prompt_tokens + out.completion_tokens,
        },
        "spec_decode": {
            "draft_tokens": out.draft_tokens,
            "accepted_tokens": out.accepted_tokens,
            "method": method,
        },
    }


def finish(reason: str) -> str:
    """OpenAI's finish_reason: "length" when max_tokens (or the context) ended it, else "stop"."""
    return "length" if reason == "length" else "stop"


class Shape(Protocol):
    """The bodies of one response: SSE chunks (opening, deltas, closing) or the whole."""

    def opening(self) -> dict[str, Any] | None: ...

    def delta(self, text: str) -> dict[str, Any]: ...

    def closing(self, out: Outcome) -> dict[str, Any]: ...

    def whole(self, text: str, out: Outcome) -> dict[str, Any]: ...


@dataclass(frozen=True)
class ChatShape:
    """chat.completion / chat.completion.chunk."""

    model: str
    method: str
    cid: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "cid", self.cid or f"chatcmpl-{uuid.uuid4().hex[:24]}")

    def _chunk(self, delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return {
            "id": self.cid,
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": reason}],
        }

    def opening(self) -> dict[str, Any]:
        return self._chunk({"role": "assistant", "content": ""})

    def delta(self, text: str) -> dict[str, Any]:
        return self._chunk({"content": text})

    def closing(self, out: Outcome) -> dict[str, Any]:
        return self._chunk({}, finish(out.finish_reason)) | usage(out, self.method)

    def whole(self, text: str, out: Outcome) -> dict[str, Any]:
        choice = {
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": finish(out.finish_reason),
        }
        return {
            "id": self.cid,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [choice],
        } | usage(out, self.method)


@dataclass(frozen=True)
class TextShape:
    """text_completion, streamed or whole; `echo` is the prompt's text when echo was asked."""

    model: str
    method: str
    echo: str = ""
    cid: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "cid", self.cid or f"cmpl-{uuid.uuid4().hex[:24]}")

    def _body(self, text: str, reason: str | None) -> dict[str, Any]:
        return {
            "id": self.cid,
            "object": "text_completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [{"index": 0, "text": text, "logprobs": None, "finish_reason": reason}],
        }

    def opening(self) -> dict[str, Any] | None:
        return self._body(self.echo, None) if self.echo else None

    def delta(self, text: str) -> dict[str, Any]:
        return self._body(text, None)

    def closing(self, out: Outcome) -> dict[str, Any]:
        return self._body("", finish(out.finish_reason)) | usage(out, self.method)

    def whole(self, text: str, out: Outcome) -> dict[str, Any]:
        return self._body(self.echo + text, finish(out.finish_reason)) | usage(out, self.method)
