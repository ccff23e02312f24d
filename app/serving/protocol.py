"""OpenAI-compatible request parsing and error bodies for the embedded server.

Requests are validated as the OpenAI API does: a field of the wrong type is a 400 naming the
field (`param`), never coerced (`"stream": "false"` is not false) and never a 500.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from app.domain import MAX_TEMPERATURE, Bilingual

# The roles every chat template formats (and the plain "role: content" fallback for a model
# without one); tool and function messages need tool calling, which this server does not offer.
CHAT_ROLES = ("system", "user", "assistant")
MAX_STOP = 4  # OpenAI's limit on stop sequences
# A lone UTF-16 surrogate: JSON's "\ud800" escape decodes to one, and it cannot be encoded as
# UTF-8 (not for the tokenizer, not for an error message that quotes it).
SURROGATE = re.compile("[\ud800-\udfff]")


class ApiError(Exception):
    """An error returned as OpenAI's `{"error": {message, type, param, code}}` body."""

    def __init__(
        self, status: int, message: str, *, param: str | None = None, kind: str = ""
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param
        self.kind = kind or (
            "not_found_error"
            if status == 404
            else "server_error"
            if status >= 500
            else "invalid_request_error"
        )

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
class GenerationRequest:
    """What chat and text completions share: sampling, length, stop strings, streaming."""

    stream: bool = False
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int | None = None
    seed: int | None = None
    stop: list[str] = field(default_factory=list)


@dataclass
class ChatRequest(GenerationRequest):
    messages: list[dict[str, Any]] = field(default_factory=list)


def _number(body: dict[str, Any], key: str, default: float) -> float:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ApiError(
            400, str(Bilingual(f"{key} 必须是数字", f"{key} must be a number")), param=key
        )
    return float(value)


def _integer(body: dict[str, Any], key: str) -> int | None:
    value = body.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise ApiError(
            400, str(Bilingual(f"{key} 必须是整数", f"{key} must be an integer")), param=key
        )
    return value


def _strings(value: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """(path, string) for every key and string value in a parsed JSON body, without recursion
    (the parser's own depth limit is far above Python's)."""
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        at, item = stack.pop()
        if isinstance(item, str):
            yield at, item
        elif isinstance(item, dict):
            for key, inner in item.items():
                name = str(key).encode("utf-8", "backslashreplace").decode()  # quotable
                path = f"{at}.{name}" if at else name
                yield path, str(key)
                stack.append((path, inner))
        elif isinstance(item, list):
            stack.extend((f"{at}[{i}]", inner) for i, inner in enumerate(item))


def check_text(body: Any) -> None:
    """400 naming the first field that holds a lone surrogate (no UTF-8 text can carry it)."""
    for at, text in _strings(body):
        if SURROGATE.search(text):
            raise ApiError(
                400,
                str(
                    Bilingual(
                        f"{at or '请求体'} 含有孤立的 UTF-16 代理字符（不是有效的 Unicode 文本）",
                        f"{at or 'the body'} holds a lone UTF-16 surrogate (not valid Unicode text)",
                    )
                ),
                param=at or None,
            )


def _seed(body: dict[str, Any]) -> int | None:
    seed = _integer(body, "seed")
    if seed is not None and seed < 0:
        raise ApiError(
            400,
            str(Bilingual("seed 不能为负数", f"seed must be 0 or more, got {seed}")),
            param="seed",
        )
    return seed


def _content(content: Any, where: str, role: str) -> str:
    """A message's text: a string, or a list of `{"type": "text", "text": str}` parts."""
    if isinstance(content, str):
        return content
    if content is None and role == "assistant":  # OpenAI allows it (a tool-call turn)
        return ""
    if not isinstance(content, list):
        raise ApiError(
            400,
            f"{where}.content 必须是字符串或文本片段列表 / "
            f"{where}.content must be a string or a list of text parts",
            param=f"{where}.content",
        )
    texts = []
    for j, part in enumerate(content):
        at = f"{where}.content[{j}]"
        if not isinstance(part, dict) or part.get("type") != "text":
            raise ApiError(
                400,
                str(
                    Bilingual(
                        f"{at} 只支持 type 为 text 的片段",
                        f"{at}: only parts of type `text` are supported",
                    )
                ),
                param=at,
            )
        if not isinstance(part.get("text"), str):
            raise ApiError(
                400,
                str(Bilingual(f"{at}.text 必须是字符串", f"{at}.text must be a string")),
                param=f"{at}.text",
            )
        texts.append(part["text"])
    return "".join(texts)


def parse_messages(messages: Any) -> list[dict[str, str]]:
    """Chat messages as `{"role", "content"}` strings; 400 naming the first bad field."""
    if not isinstance(messages, list) or not messages:
        raise ApiError(
            400,
            str(Bilingual("messages 不能为空", "messages must be a non-empty list")),
            param="messages",
        )
    out = []
    for i, m in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(m, dict):
            raise ApiError(
                400,
                str(Bilingual(f"{where} 必须是对象", f"{where} must be an object")),
                param=where,
            )
        role = m.get("role")
        if not isinstance(role, str) or role not in CHAT_ROLES:
            raise ApiError(
                400,
                f"{where}.role 无效：{role!r}，可用 {', '.join(CHAT_ROLES)} / "
                f"{where}.role {role!r} is not one of {', '.join(CHAT_ROLES)}",
                param=f"{where}.role",
            )
        if "content" not in m and role != "assistant":
            raise ApiError(
                400,
                str(Bilingual(f"{where} 缺少 content", f"{where} needs content")),
                param=f"{where}.content",
            )
        out.append({"role": role, "content": _content(m.get("content"), where, role)})
    return out


def _stop(body: dict[str, Any]) -> list[str]:
    stop = body.get("stop")
    stop = [] if stop is None else [stop] if isinstance(stop, str) else stop
    if not isinstance(stop, list) or not all(isinstance(s, str) for s in stop):
        raise ApiError(
            400,
            str(
                Bilingual(
                    "stop 必须是字符串或字符串列表", "stop must be a string or a list of strings"
                )
            ),
            param="stop",
        )
    if len(stop) > MAX_STOP:
        raise ApiError(
            400,
            str(
                Bilingual(
                    f"stop 最多 {MAX_STOP} 个",
                    f"at most {MAX_STOP} stop sequences, got {len(stop)}",
                )
            ),
            param="stop",
        )
    return stop


def _flags(body: dict[str, Any]) -> bool:
    """`stream` (a real boolean), and `n` (only 1: this server returns one choice)."""
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise ApiError(
            400, str(Bilingual("stream 必须是布尔值", "stream must be a boolean")), param="stream"
        )
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        raise ApiError(
            400,
            str(Bilingual("stream_options 必须是对象", "stream_options must be an object")),
            param="stream_options",
        )
    n = _integer(body, "n")
    if n is not None and n != 1:
        raise ApiError(
            400, str(Bilingual("n 只支持 1", f"only n = 1 is supported, got {n}")), param="n"
        )
    return bool(stream)


def _max_tokens(body: dict[str, Any]) -> int | None:
    key = "max_completion_tokens" if body.get("max_completion_tokens") is not None else "max_tokens"
    raw = body.get(key)
    if raw is not None and (isinstance(raw, bool) or not isinstance(raw, int) or raw <= 0):
        raise ApiError(
            400,
            str(Bilingual(f"{key} 必须是正整数", f"{key} must be a positive integer, got {raw}")),
            param=key,
        )
    return raw


def json_object(body: Any) -> dict[str, Any]:
    """The body, if it is a JSON object; else 400."""
    if not isinstance(body, dict):
        raise ApiError(
            400, str(Bilingual("请求体必须是 JSON 对象", "the body must be a JSON object"))
        )
    return body


def generation_fields(body: dict[str, Any]) -> dict[str, Any]:
    """The validated GenerationRequest fields of a chat or text completion body."""
    temperature = _number(body, "temperature", 1.0)
    if not 0.0 <= temperature <= MAX_TEMPERATURE:
        raise ApiError(
            400,
            str(
                Bilingual(
                    f"temperature 必须在 0 到 {MAX_TEMPERATURE:g} 之间",
                    f"temperature must be in [0, {MAX_TEMPERATURE:g}], got {temperature}",
                )
            ),
            param="temperature",
        )
    top_p = _number(body, "top_p", 1.0)
    if not 0.0 < top_p <= 1.0:
        raise ApiError(
            400,
            str(Bilingual("top_p 必须在 (0, 1] 之间", f"top_p must be in (0, 1], got {top_p}")),
            param="top_p",
        )
    return {
        "stream": _flags(body),
        "temperature": temperature,
        "top_p": top_p,
        "max_tokens": _max_tokens(body),
        "seed": _seed(body),
        "stop": _stop(body),
    }


def parse_chat(body: Any) -> ChatRequest:
    """Validate a /v1/chat/completions body (the model name is checked by the server)."""
    body = json_object(body)
    return ChatRequest(messages=parse_messages(body.get("messages")), **generation_fields(body))


def check_length(
    prompt_tokens: int, max_tokens: int | None, limit: int, *, prompt_param: str = "messages"
) -> int:
    """The max_tokens to use; 400 when the prompt (plus the requested completion) does not fit
    (`prompt_param` names the prompt's field: messages, or a text completion's prompt)."""
    if prompt_tokens >= limit:
        raise ApiError(
            400,
            f"提示过长：{prompt_tokens} 个词元，上下文上限为 {limit} / "
            f"the prompt is {prompt_tokens} tokens long; the context limit is {limit} tokens",
            param=prompt_param,
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
