"""Request validation for /v1/completions: OpenAI's legacy text completion API, which vLLM
serves and evaluation harnesses and older SDKs use.

A prompt is a string or a list of token ids (or a batch of exactly one of either); sampling,
length, stop strings, seed and streaming are validated as for chat (`generation_fields`).
What this engine does not do is refused with a 400 naming the field, as vLLM refuses the
parameters it does not support: log probabilities, `suffix` (insertion), `best_of` above 1
and several prompts in one request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.domain import Bilingual
from app.serving.protocol import ApiError, GenerationRequest, generation_fields, json_object

DEFAULT_MAX_TOKENS = 16  # OpenAI's (and vLLM's) default for a text completion

Prompt = str | list[int]


@dataclass
class CompletionRequest(GenerationRequest):
    prompt: Prompt = ""
    echo: bool = False


def _is_ids(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(t, int) and not isinstance(t, bool) for t in value)
    )


def _prompt(body: dict[str, Any]) -> Prompt:
    raw = body.get("prompt")
    if isinstance(raw, list) and raw and all(isinstance(p, str) or _is_ids(p) for p in raw):
        if len(raw) > 1:  # a batch: ["a", "b"] or [[1, 2], [3]]
            raise ApiError(
                400,
                str(
                    Bilingual(
                        "每个请求只能有一个 prompt",
                        f"one prompt per request is supported, got {len(raw)}",
                    )
                ),
                param="prompt",
            )
        raw = raw[0]
    if isinstance(raw, str) or _is_ids(raw):
        return raw  # type: ignore[return-value]
    raise ApiError(
        400,
        str(
            Bilingual(
                "prompt 必须是字符串或词元编号列表",
                "prompt must be a string or a non-empty list of token ids",
            )
        ),
        param="prompt",
    )


def _unsupported(key: str) -> ApiError:
    return ApiError(
        400,
        str(Bilingual(f"本服务不支持 {key}", f"{key} is not supported by this server")),
        param=key,
    )


def _refuse_unsupported(body: dict[str, Any]) -> None:
    """logprobs (any value: the engine returns none), suffix, best_of above 1."""
    if body.get("logprobs") is not None:
        raise _unsupported("logprobs")
    if body.get("suffix") not in (None, ""):
        raise _unsupported("suffix")
    if body.get("best_of") not in (None, 1):
        raise _unsupported("best_of")


def parse_completion(body: Any) -> CompletionRequest:
    """Validate a /v1/completions body (the model name is checked by the server)."""
    body = json_object(body)
    _refuse_unsupported(body)
    echo = body.get("echo")
    if echo is not None and not isinstance(echo, bool):
        raise ApiError(
            400, str(Bilingual("echo 必须是布尔值", "echo must be a boolean")), param="echo"
        )
    fields = generation_fields(body)
    if fields["max_tokens"] is None:
        fields["max_tokens"] = DEFAULT_MAX_TOKENS
    return CompletionRequest(prompt=_prompt(body), echo=bool(echo), **fields)


def check_token_ids(ids: list[int], n_vocab: int) -> list[int]:
    """Token ids within the vocabulary; else 400 naming the first one outside it."""
    for i, token in enumerate(ids):
        if not 0 <= token < n_vocab:
            raise ApiError(
                400,
                str(
                    Bilingual(
                        f"prompt[{i}] 不是有效的词元编号：{token}",
                        f"prompt[{i}] = {token} is not a token id (0 to {n_vocab - 1})",
                    )
                ),
                param=f"prompt[{i}]",
            )
    return ids
