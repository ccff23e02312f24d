"""Request validation of the embedded server, as the OpenAI API validates (pure functions)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.serving.completions import CompletionRequest, parse_completion
from app.serving.protocol import (
    FIELD_ERRORS,
    ApiError,
    ChatRequest,
    TokenizeRequest,
    check_length,
    check_text,
    parse,
    parse_chat,
)

USER = {"role": "user", "content": "hi"}


def body(**fields: Any) -> dict[str, Any]:
    return {"messages": [USER]} | fields


@pytest.mark.parametrize(
    ("request_body", "param"),
    [
        ([USER], None),  # not an object
        (body(messages=[]), "messages"),
        (body(messages="hi"), "messages"),
        (body(messages=["hi"]), "messages[0]"),
        (body(messages=[{"content": "hi"}]), "messages[0].role"),
        (body(messages=[{"role": "tool", "content": "hi"}]), "messages[0].role"),
        (body(messages=[{"role": "robot", "content": "hi"}]), "messages[0].role"),
        (body(messages=[{"role": 5, "content": "hi"}]), "messages[0].role"),
        (body(messages=[{"role": "user"}]), "messages[0].content"),
        (body(messages=[{"role": "user", "content": None}]), "messages[0].content"),
        (body(messages=[{"role": "user", "content": 5}]), "messages[0].content"),
        (body(messages=[{"role": "user", "content": {"text": "hi"}}]), "messages[0].content"),
        (
            body(messages=[USER, {"role": "user", "content": [{"type": "text", "text": 5}]}]),
            "messages[1].content[0].text",
        ),
        (
            body(messages=[{"role": "user", "content": [{"type": "text", "text": None}]}]),
            "messages[0].content[0].text",
        ),
        (
            body(messages=[{"role": "user", "content": [{"type": "text"}]}]),
            "messages[0].content[0].text",
        ),
        (
            body(messages=[{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]),
            "messages[0].content[0]",
        ),
        (body(messages=[{"role": "user", "content": ["hi"]}]), "messages[0].content[0]"),
        (body(stream="false"), "stream"),
        (body(stream=0), "stream"),
        (body(stream_options="yes"), "stream_options"),
        (body(n=2), "n"),
        (body(n=0), "n"),
        (body(n="1"), "n"),
        (body(stop=["a", "b", "c", "d", "e"]), "stop"),
        (body(stop=5), "stop"),
        (body(stop=["a", None]), "stop"),
        (body(temperature="0"), "temperature"),
        (body(temperature=2.5), "temperature"),
        (body(top_p=0), "top_p"),
        (body(max_tokens=0), "max_tokens"),
        (body(max_tokens=1.5), "max_tokens"),
        (body(max_tokens=True), "max_tokens"),
        (body(max_completion_tokens=-1), "max_completion_tokens"),
        (body(seed="1"), "seed"),
        (body(seed=-1), "seed"),
        (body(seed=-(2**70)), "seed"),
    ],
)
def test_bad_bodies_are_400_naming_the_field(request_body: Any, param: str | None) -> None:
    with pytest.raises(ApiError) as info:
        parse_chat(request_body)
    assert info.value.status == 400 and info.value.param == param
    error = info.value.body()["error"]
    assert error["type"] == "invalid_request_error" and error["code"] == 400
    assert " / " in error["message"]  # bilingual: 中文 / English


@pytest.mark.parametrize(
    ("request_body", "messages", "stream", "stop"),
    [
        (body(), [USER], False, []),
        (body(stream=True, n=1, stop="END"), [USER], True, ["END"]),
        (body(stream=None, n=None, stop=None), [USER], False, []),
        (body(stop=["a", "b", "c", "d"]), [USER], False, ["a", "b", "c", "d"]),
        (
            body(
                messages=[
                    {"role": "system", "content": [{"type": "text", "text": "be brief"}]},
                    {
                        "role": "user",
                        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                    },
                    {"role": "assistant", "content": None},
                ]
            ),
            [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "ab"},
                {"role": "assistant", "content": ""},
            ],
            False,
            [],
        ),
    ],
)
def test_good_bodies_parse(
    request_body: dict[str, Any], messages: list[dict[str, str]], stream: bool, stop: list[str]
) -> None:
    chat = parse_chat(request_body)
    assert (chat.messages, chat.stream, chat.stop) == (messages, stream, stop)


def test_max_completion_tokens_wins_over_max_tokens() -> None:
    assert parse_chat(body(max_tokens=50, max_completion_tokens=7)).max_tokens == 7


@pytest.mark.parametrize(
    ("status", "kind"),
    [(400, "invalid_request_error"), (404, "not_found_error"), (405, "invalid_request_error"),
     (413, "invalid_request_error"), (500, "server_error")],
)  # fmt: skip
def test_error_type_follows_the_status(status: int, kind: str) -> None:
    assert ApiError(status, "x / x").body()["error"]["type"] == kind


LONE = "\ud800"


@pytest.mark.parametrize(
    ("request_body", "param"),
    [
        (body(messages=[{"role": "user", "content": LONE}]), "messages[0].content"),
        (
            body(messages=[{"role": "user", "content": [{"type": "text", "text": "a" + LONE}]}]),
            "messages[0].content[0].text",
        ),
        (body(model="x\udfff"), "model"),  # echoed in a 404 message if it got that far
        (body(stop=["ok", LONE]), "stop[1]"),
        ({"prompt": LONE}, "prompt"),
        ({LONE: 1}, "\\ud800"),  # a key: named with the surrogate escaped, so it can be quoted
        (LONE, None),
    ],
)
def test_lone_surrogates_are_400_naming_the_field(request_body: Any, param: str | None) -> None:
    with pytest.raises(ApiError) as info:
        check_text(request_body)
    assert info.value.status == 400 and info.value.param == param
    info.value.body()["error"]["message"].encode("utf-8")  # the message itself is valid text


def test_surrogate_pairs_and_ordinary_text_pass() -> None:
    """JSON's escaped pair decodes to one character outside the BMP: valid text."""
    pair = json.loads('"emoji \\ud83d\\ude00 条文"')
    assert pair == "emoji \U0001f600 条文"
    check_text(body(messages=[{"role": "user", "content": pair}]))


# --- text completions and /tokenize: the same models, the same 400s -------------------------


def completion(**fields: Any) -> dict[str, Any]:
    return {"prompt": "x"} | fields


@pytest.mark.parametrize(
    ("request_body", "param", "needle"),
    [
        ({}, "prompt", "token ids"),
        (completion(prompt=5), "prompt", "token ids"),
        (completion(prompt=[]), "prompt", "token ids"),
        (completion(prompt=[1, True]), "prompt", "token ids"),
        (completion(prompt=[1.0]), "prompt", "token ids"),
        (completion(prompt=["a", "b"]), "prompt", "one prompt"),
        (completion(prompt=[[1, 2], [3]]), "prompt", "one prompt"),
        (completion(logprobs=0), "logprobs", "not supported"),
        (completion(logprobs=False), "logprobs", "not supported"),
        (completion(suffix="end"), "suffix", "not supported"),
        (completion(best_of=2), "best_of", "not supported"),
        (completion(echo="yes"), "echo", "boolean"),
        (completion(n=2), "n", "n = 1"),
        (completion(temperature=3), "temperature", "[0, 2]"),
        (completion(temperature=float("nan")), "temperature", "[0, 2]"),
        (completion(max_tokens=0), "max_tokens", "positive"),
        (completion(seed=-1), "seed", "0 or more"),
    ],
)
def test_bad_text_completions_are_400_naming_the_field(
    request_body: dict[str, Any], param: str, needle: str
) -> None:
    with pytest.raises(ApiError) as info:
        parse_completion(request_body)
    assert info.value.status == 400 and info.value.param == param
    assert needle in info.value.message and " / " in info.value.message


@pytest.mark.parametrize(
    ("request_body", "prompt"),
    [
        (completion(), "x"),
        (completion(prompt=[5, 6]), [5, 6]),
        (completion(prompt=["only"]), "only"),  # a batch of one
        (completion(prompt=[[7]]), [7]),
        (completion(echo=None, logprobs=None, suffix="", best_of=1), "x"),
    ],
)
def test_good_text_completions_parse(request_body: dict[str, Any], prompt: object) -> None:
    assert parse_completion(request_body).prompt == prompt


def test_null_is_the_default() -> None:
    nulls = dict.fromkeys(["stream", "temperature", "top_p", "seed", "stop", "n", "max_tokens"])
    chat = parse_chat(body(**nulls))
    assert (chat.stream, chat.temperature, chat.top_p, chat.seed, chat.stop) == (
        False, 1.0, 1.0, None, []
    )  # fmt: skip
    assert chat.max_tokens is None  # the server's cap applies (check_length)


@pytest.mark.parametrize(
    ("request_body", "param"),
    [
        ({"prompt": 5}, "prompt"),
        ({"prompt": "x", "add_special_tokens": "no"}, "add_special_tokens"),
        ({"messages": [{"role": "user", "content": 5}]}, "messages[0].content"),
        ({"messages": []}, "messages"),
    ],
)
def test_bad_tokenize_bodies_are_400_naming_the_field(request_body: Any, param: str) -> None:
    with pytest.raises(ApiError) as info:
        parse(TokenizeRequest, request_body)
    assert info.value.status == 400 and info.value.param == param


def test_every_field_has_its_message() -> None:
    """A field FIELD_ERRORS does not describe would be reported as a bad body."""
    for model in (ChatRequest, CompletionRequest, TokenizeRequest):
        assert set(model.model_fields) <= set(FIELD_ERRORS), model.__name__


# --- the length: the request's, else the server's cap, within the context --------------------


@pytest.mark.parametrize(
    ("prompt_tokens", "max_tokens", "expected"),
    [
        (10, None, 100),  # none given (absent or null): the cap
        (950, None, 50),  # ... within the room the prompt leaves
        (10, 500, 500),  # a request may ask for more than the cap
        (10, 990, 990),
    ],
)
def test_the_length_is_the_requests_else_the_cap(
    prompt_tokens: int, max_tokens: int | None, expected: int
) -> None:
    assert check_length(prompt_tokens, max_tokens, 1000, default=100) == expected


@pytest.mark.parametrize(("prompt_tokens", "max_tokens"), [(10, 991), (1000, None), (1200, 1)])
def test_a_length_that_does_not_fit_is_400(prompt_tokens: int, max_tokens: int | None) -> None:
    with pytest.raises(ApiError) as info:
        check_length(prompt_tokens, max_tokens, 1000, default=100)
    assert info.value.status == 400 and info.value.kind == "context_length_exceeded"


@pytest.mark.parametrize(
    ("fields", "refused"),
    [
        ({"logprobs": True}, "logprobs"),
        ({"logprobs": True, "top_logprobs": 3}, "logprobs"),
        ({"top_logprobs": 0}, "top_logprobs"),
        ({"logprobs": False}, None),
        ({"logprobs": None, "top_logprobs": None}, None),
    ],
)
def test_chat_log_probabilities_are_refused_like_a_completions(
    fields: dict[str, Any], refused: str | None
) -> None:
    """Issue 37: chat accepted `logprobs: true` and returned none; completions refused it.
    The engine computes none, so asking for them is a 400 naming the field."""
    if refused is None:
        assert parse_chat(body(**fields)).messages
        return
    with pytest.raises(ApiError) as info:
        parse_chat(body(**fields))
    assert info.value.status == 400 and info.value.param == refused
    assert "not supported" in info.value.message
