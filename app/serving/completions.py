"""The /v1/completions request: OpenAI's legacy text completion API, which vLLM serves and
evaluation harnesses and older SDKs use.

A prompt is a string or a list of token ids (or a batch of exactly one of either); sampling,
length, stop strings, seed and streaming are validated as for chat (`GenerationRequest`).
What this engine does not do is refused with a 400 naming the field, as vLLM refuses the
parameters it does not support: log probabilities, `suffix` (insertion), `best_of` above 1
and several prompts in one request.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field
from pydantic_core import PydanticCustomError

from app.domain import Bilingual
from app.serving.protocol import REFUSED, ApiError, GenerationRequest, null_is, parse

Prompt = str | list[int]


def _one_prompt(raw: Any) -> Any:
    """A batch (`["a", "b"]`, `[[1, 2], [3]]`) of exactly one prompt is that prompt."""
    if not (isinstance(raw, list) and raw and all(isinstance(p, str | list) for p in raw)):
        return raw
    if len(raw) > 1:
        message = Bilingual(
            "每个请求只能有一个 prompt", f"one prompt per request is supported, got {len(raw)}"
        )
        raise PydanticCustomError(REFUSED, str(message))
    return raw[0]


class CompletionRequest(GenerationRequest):
    """A /v1/completions body (the model name is checked by the server)."""

    default_max_tokens: ClassVar[int | None] = 16  # OpenAI's (and vLLM's) for a text completion

    prompt: Annotated[str | Annotated[list[int], Field(min_length=1)], BeforeValidator(_one_prompt)]
    echo: Annotated[bool, null_is(False)] = False  # the text starts with the prompt's
    logprobs: None = None  # any value: the engine returns none
    suffix: Literal[""] | None = None  # insertion
    best_of: Annotated[int, Field(ge=1, le=1)] | None = None


def parse_completion(body: Any) -> CompletionRequest:
    """Validate a /v1/completions body (the model name is checked by the server)."""
    return parse(CompletionRequest, body)


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
