"""OpenAI-compatible requests of the embedded server, declared as strict pydantic models (as
vLLM's protocol declares them), and OpenAI's error bodies.

A field of the wrong type is a 400 naming the field (`param`, e.g. `messages[0].content[1].text`),
never coerced (`"stream": "false"` is not false) and never a 500. Every message a client can get
for a bad field is in FIELD_ERRORS, one per field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Annotated, Any, ClassVar, Literal, NotRequired, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)
from pydantic_core import ErrorDetails
from typing_extensions import TypedDict

from app.domain import MAX_TEMPERATURE, Bilingual

MAX_STOP = 4  # OpenAI's limit on stop sequences
# A lone UTF-16 surrogate: JSON's "\ud800" escape decodes to one, and it cannot be encoded as
# UTF-8 (not for the tokenizer, not for an error message that quotes it).
SURROGATE = re.compile("[\ud800-\udfff]")
REFUSED = "lexspec_refused"  # the type of an error a validator raises with its own message


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


# --- the requests ---------------------------------------------------------------------------


def null_is(default: Any) -> BeforeValidator:
    """JSON null means the field's default, as in OpenAI's API."""
    return BeforeValidator(lambda value: default if value is None else value)


def _listed(value: Any) -> Any:
    """`stop` as a list: one string is a list of one, null is none."""
    return [] if value is None else [value] if isinstance(value, str) else value


class Strict(BaseModel):
    """No coercion (a string is not a number, 0 is not false), no NaN; unknown fields ignored."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False, extra="ignore")


class TextPart(TypedDict):
    type: Literal["text"]
    text: str


Content = str | list[TextPart]


class Turn(TypedDict):
    role: Literal["system", "user"]
    content: Content


class AssistantTurn(TypedDict):
    role: Literal["assistant"]
    content: NotRequired[Content | None]  # OpenAI allows none (a tool-call turn)


# The roles every chat template formats (and the plain "role: content" fallback for a model
# without one); tool and function messages need tool calling, which this server does not offer.
Message = Annotated[Turn | AssistantTurn, Field(discriminator="role")]
PositiveInt = Annotated[int, Field(gt=0)]


def _as_text(messages: list[Message]) -> list[Message]:
    """Each message's content as one string (its text parts joined; none is empty)."""
    for m in messages:
        content = m.get("content")
        m["content"] = (
            "".join(part["text"] for part in content)
            if isinstance(content, list)
            else content or ""
        )
    return messages


Messages = Annotated[list[Message], Field(min_length=1), AfterValidator(_as_text)]


class GenerationRequest(Strict):
    """What chat and text completions share: sampling, length, stop strings, streaming."""

    # The length when the request gives none (absent or null), within the server's cap: None
    # is the cap itself (check_length).
    default_max_tokens: ClassVar[int | None] = None

    stream: Annotated[bool, null_is(False)] = False
    stream_options: dict[str, Any] | None = None
    n: Annotated[int, Field(ge=1, le=1)] | None = None  # this server returns one choice
    temperature: Annotated[float, null_is(1.0), Field(ge=0.0, le=MAX_TEMPERATURE)] = 1.0
    top_p: Annotated[float, null_is(1.0), Field(gt=0.0, le=1.0)] = 1.0
    max_tokens: PositiveInt | None = None
    max_completion_tokens: PositiveInt | None = None  # wins over max_tokens
    seed: Annotated[int, Field(ge=0)] | None = None
    stop: Annotated[list[str], BeforeValidator(_listed), Field(max_length=MAX_STOP)] = []

    @model_validator(mode="after")
    def _length(self) -> GenerationRequest:
        """max_tokens is max_completion_tokens when that is given."""
        if self.max_completion_tokens is not None:
            self.max_tokens = self.max_completion_tokens
        return self


class ChatRequest(GenerationRequest):
    """A /v1/chat/completions body (the model name is checked by the server). Log
    probabilities are refused, as a text completion refuses them (the engine returns none):
    `logprobs: true` and any `top_logprobs`; `logprobs: false` asks for none."""

    messages: Messages
    logprobs: Literal[False] | None = None
    top_logprobs: None = None


class TokenizeRequest(Strict):
    """A /tokenize body: chat messages (formatted by the chat template), or a prompt."""

    messages: Messages | None = None
    prompt: str | None = None
    add_special_tokens: bool = True


# --- errors: one message per field ---------------------------------------------------------

_BOOLEAN = Bilingual("{at} 必须是布尔值", "{at} must be a boolean")
_POSITIVE = Bilingual("{at} 必须是正整数", "{at} must be a positive integer, got {got}")
_UNSUPPORTED = Bilingual("本服务不支持 {at}", "{at} is not supported by this server")
# A field's path with its list indexes as [] (the root is "") -> what a bad value there is.
FIELD_ERRORS: dict[str, Bilingual] = {
    "": Bilingual("请求体必须是 JSON 对象", "the body must be a JSON object"),
    "messages": Bilingual("messages 不能为空", "messages must be a non-empty list"),
    "messages[]": Bilingual("{at} 必须是对象", "{at} must be an object"),
    "messages[].role": Bilingual(
        "{at} 无效，可用 system, user, assistant", "{at} is not one of system, user, assistant"
    ),
    "messages[].content": Bilingual(
        "{at} 必须是字符串或文本片段列表", "{at} must be a string or a list of text parts"
    ),
    "messages[].content[]": Bilingual(
        "{at} 只支持 type 为 text 的片段", "{at}: only parts of type `text` are supported"
    ),
    "messages[].content[].text": Bilingual("{at} 必须是字符串", "{at} must be a string"),
    "stream": _BOOLEAN,
    "stream_options": Bilingual("stream_options 必须是对象", "stream_options must be an object"),
    "n": Bilingual("n 只支持 1", "only n = 1 is supported, got {got}"),
    "temperature": Bilingual(
        f"temperature 必须是 0 到 {MAX_TEMPERATURE:g} 之间的数",
        f"temperature must be a number in [0, {MAX_TEMPERATURE:g}], got {{got}}",
    ),
    "top_p": Bilingual("top_p 必须在 (0, 1] 之间", "top_p must be a number in (0, 1], got {got}"),
    "max_tokens": _POSITIVE,
    "max_completion_tokens": _POSITIVE,
    "seed": Bilingual("seed 必须是非负整数", "seed must be an integer, 0 or more, got {got}"),
    "stop": Bilingual(
        f"stop 必须是字符串或至多 {MAX_STOP} 个字符串的列表",
        f"stop must be a string or a list of at most {MAX_STOP} strings",
    ),
    "prompt": Bilingual(
        "prompt 必须是字符串或词元编号列表",
        "prompt must be a string or a non-empty list of token ids",
    ),
    "echo": _BOOLEAN,
    "add_special_tokens": _BOOLEAN,
    "logprobs": _UNSUPPORTED,  # any value: the engine returns none
    "top_logprobs": _UNSUPPORTED,
    "suffix": _UNSUPPORTED,
    "best_of": _UNSUPPORTED,
}
# Field names (anything else in a pydantic location is a union's tag); a text part's `type` is
# one too, so its error ranks with its `text`'s and is reported as the part.
_NAMES = {"type"} | {name.removesuffix("[]") for shape in FIELD_ERRORS for name in shape.split(".")}


def _path(loc: list[str | int]) -> str:
    """`messages[0].content[1].text`, as OpenAI names a field."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")


def _shape(loc: list[str | int]) -> str:
    """The path with its list indexes left out (`messages[].content[].text`)."""
    return "".join("[]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")


def _field_loc(error: ErrorDetails) -> list[str | int]:
    """An error's location without pydantic's union tags; a role that is missing or not one of
    the roles (the discriminator) is the message's `role`."""
    loc = [p for p in error["loc"] if isinstance(p, int) or p in _NAMES]
    if error["type"] in ("union_tag_invalid", "union_tag_not_found"):
        loc.append(str(error.get("ctx", {}).get("discriminator", "")).strip("'"))
    return loc


def _api_error(error: ErrorDetails) -> ApiError:
    """The 400 for one pydantic error, at the nearest field FIELD_ERRORS describes (`stop[1]`
    is reported as `stop`); a validator's own refusal keeps its message."""
    loc = _field_loc(error)
    exact = len(loc)
    while loc and _shape(loc) not in FIELD_ERRORS:
        loc.pop()
    at = _path(loc)
    if error["type"] == REFUSED:
        return ApiError(400, error["msg"], param=at or None)
    got = json.dumps(error["input"], ensure_ascii=False, default=str)[:40]
    message = str(FIELD_ERRORS[_shape(loc)]).format(at=at, got=got if len(loc) == exact else "?")
    return ApiError(400, message, param=at or None)


Model = TypeVar("Model", bound=Strict)


def parse(model: type[Model], body: Any) -> Model:
    """The body as `model`; else the 400 of its deepest error (the most precise field: of a
    union's errors, the member that got furthest)."""
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        raise _api_error(max(exc.errors(), key=lambda e: len(_field_loc(e)))) from None


def parse_chat(body: Any) -> ChatRequest:
    """Validate a /v1/chat/completions body (the model name is checked by the server)."""
    return parse(ChatRequest, body)


def check_length(
    prompt_tokens: int,
    max_tokens: int | None,
    limit: int,
    *,
    default: int,
    prompt_param: str = "messages",
) -> int:
    """The max_tokens to use: the request's, or when it gives none (absent or null) `default`
    (the server's cap) within the room the context leaves. 400 when the prompt (plus the
    requested completion) does not fit (`prompt_param` names the prompt's field)."""
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
        return min(room, default)
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
