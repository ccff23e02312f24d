"""OpenAI-compatible request parsing and error bodies for the embedded server."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any


class ApiError(Exception):
    """An error returned as OpenAI's `{"error": {message, type, param, code}}` body."""

    def __init__(
        self, status: int, message: str, *, param: str | None = None, kind: str = ""
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param
        self.kind = kind or ("invalid_request_error" if status == 400 else "not_found_error")

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.kind,
                "param": self.param,
                "code": self.status,
            }
        }


@dataclass
class ChatRequest:
    messages: list[dict[str, Any]]
    stream: bool = False
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int | None = None
    seed: int | None = None
    stop: list[str] = field(default_factory=list)


def _number(body: dict[str, Any], key: str, default: float) -> float:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ApiError(400, f"{key} 必须是数字 / {key} must be a number", param=key)
    return float(value)


def _messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ApiError(
            400, "messages 不能为空 / messages must be a non-empty list", param="messages"
        )
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise ApiError(
                400, f"第 {i} 条消息无效 / message {i} needs a role and content", param="messages"
            )
        content = m.get("content") or ""
        if isinstance(content, list):  # content parts: keep the text ones
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        out.append({"role": m["role"], "content": str(content)})
    return out


def parse_chat(body: Any) -> ChatRequest:
    """Validate a /v1/chat/completions body (the model name is checked by the server)."""
    if not isinstance(body, dict):
        raise ApiError(400, "请求体必须是 JSON 对象 / the body must be a JSON object")
    temperature = _number(body, "temperature", 1.0)
    if not 0.0 <= temperature <= 2.0:
        raise ApiError(
            400,
            f"temperature 必须在 0 到 2 之间 / temperature must be in [0, 2], got {temperature}",
            param="temperature",
        )
    top_p = _number(body, "top_p", 1.0)
    if not 0.0 < top_p <= 1.0:
        raise ApiError(
            400, f"top_p 必须在 (0, 1] 之间 / top_p must be in (0, 1], got {top_p}", param="top_p"
        )
    raw_max = body.get("max_completion_tokens", body.get("max_tokens"))
    max_tokens = None
    if raw_max is not None:
        if isinstance(raw_max, bool) or not isinstance(raw_max, int) or raw_max <= 0:
            raise ApiError(
                400,
                f"max_tokens 必须是正整数 / max_tokens must be a positive integer, got {raw_max}",
                param="max_tokens",
            )
        max_tokens = raw_max
    seed = body.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ApiError(400, "seed 必须是整数 / seed must be an integer", param="seed")
    stop = body.get("stop") or []
    stop = [stop] if isinstance(stop, str) else stop
    if not isinstance(stop, list) or not all(isinstance(s, str) for s in stop):
        raise ApiError(
            400,
            "stop 必须是字符串或字符串列表 / stop must be a string or a list of strings",
            param="stop",
        )
    return ChatRequest(
        messages=_messages(body),
        stream=bool(body.get("stream", False)),
        temperature=temperature,
        top_p=top_p,
        max_tokens=max_tokens,
        seed=seed,
        stop=stop,
    )


def check_length(prompt_tokens: int, max_tokens: int | None, limit: int) -> int:
    """The max_tokens to use; 400 when the prompt (plus the requested completion) does not fit."""
    if prompt_tokens >= limit:
        raise ApiError(
            400,
            f"提示过长：{prompt_tokens} 个词元，上下文上限为 {limit} / "
            f"the prompt is {prompt_tokens} tokens long; the context limit is {limit} tokens",
            param="messages",
            kind="context_length_exceeded",
        )
    room = limit - prompt_tokens
    if max_tokens is None:
        return room
    if max_tokens > room:
        raise ApiError(
            400,
            f"提示 {prompt_tokens} 个词元加上 max_tokens {max_tokens} 超过上下文上限 {limit} / "
            f"the prompt ({prompt_tokens} tokens) plus max_tokens ({max_tokens}) exceeds the "
            f"context limit of {limit} tokens",
            param="max_tokens",
            kind="context_length_exceeded",
        )
    return max_tokens


def completion_id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex[:24]}"


def chunk(cid: str, model: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
