"""Fuzzing the embedded server's chat and text completion APIs (hypothesis) over message and
prompt shapes and parameter types, strings with lone UTF-16 surrogates and negative seeds:
every answer is a valid completion or OpenAI's JSON error (never a 5xx), and /health stays up."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.integration

MAX_TOKENS = 4  # a valid request generates at most this many tokens, so examples stay cheap

# Text as JSON can carry it: any code point, lone surrogates included ("\ud800" is valid JSON
# but no valid Unicode text); st.text() alone never draws a surrogate.
surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
texts = st.one_of(
    st.text(max_size=12),
    st.lists(st.one_of(st.characters(), surrogates), min_size=1, max_size=6).map("".join),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
parts = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": st.one_of(texts, scalars)}),
    st.fixed_dictionaries({"type": st.sampled_from(["image_url", "input_audio", 5])}),
    scalars,
)
contents = st.one_of(texts, scalars, st.lists(parts, max_size=3), st.dictionaries(texts, texts))
roles = st.one_of(
    st.sampled_from(["system", "user", "assistant", "tool", "developer", "function", ""]),
    scalars,
)
messages = st.one_of(
    st.lists(
        st.one_of(
            st.fixed_dictionaries({"role": roles, "content": contents}),
            st.fixed_dictionaries({"role": roles}),
            scalars,
        ),
        max_size=3,
    ),
    scalars,
)
# never null or absent: a valid request without it would run to the server's cap (1,024 tokens)
max_tokens = st.one_of(
    st.integers(1, MAX_TOKENS),
    st.integers(-1, 0),
    texts,
    st.floats(allow_nan=False, allow_infinity=False),
)
sampling = {
    "stream": scalars,
    "n": scalars,
    "stop": st.one_of(scalars, st.lists(st.one_of(texts, scalars), max_size=6)),
    "temperature": scalars,
    "top_p": scalars,
    "seed": scalars,
    "stream_options": st.one_of(scalars, st.fixed_dictionaries({"include_usage": scalars})),
    "model": st.one_of(st.none(), texts),
}
bodies = st.fixed_dictionaries({"messages": messages, "max_tokens": max_tokens}, optional=sampling)
# /v1/completions: the same fields around a prompt of any shape, and its own options
token_ids = st.lists(st.integers(-2, 70_000), max_size=4)
prompts = st.one_of(texts, scalars, token_ids, st.lists(st.one_of(texts, token_ids), max_size=2))
completion_bodies = st.fixed_dictionaries(
    {"prompt": prompts, "max_tokens": max_tokens},
    optional=sampling
    | {"echo": scalars, "logprobs": scalars, "suffix": scalars, "best_of": scalars},
)


def _client_mistake(body: dict) -> bool:
    """A lone surrogate anywhere, or a negative seed: the answer must be a 400."""
    try:
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    seed = body.get("seed")
    return isinstance(seed, int) and not isinstance(seed, bool) and seed < 0


def _check_error(response: httpx.Response) -> None:
    assert 400 <= response.status_code < 500, response.text  # a client's mistake, never a 500
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["code"] == response.status_code and error["message"]


def _check_completion(body: dict[str, Any], kind: str) -> None:
    assert body["object"] == kind
    choice = body["choices"][0]
    text = choice["message"]["content"] if kind == "chat.completion" else choice["text"]
    assert isinstance(text, str)
    assert choice["finish_reason"] in ("stop", "length")
    assert body["usage"]["completion_tokens"] <= MAX_TOKENS


def _check_stream(lines: list[str], kind: str) -> None:
    data = [line.removeprefix("data: ") for line in lines if line.startswith("data: ")]
    assert data and data[-1] == "[DONE]"
    chunks = [json.loads(d) for d in data[:-1]]
    expected = "chat.completion.chunk" if kind == "chat.completion" else kind
    assert all(c["object"] == expected for c in chunks)
    assert chunks[-1]["choices"][0]["finish_reason"] in ("stop", "length")


def _check_answer(http: httpx.Client, url: str, body: dict, kind: str) -> None:
    data = json.dumps(body).encode()  # ASCII JSON: surrogates travel as \ud800 escapes
    headers = {"content-type": "application/json"}
    with http.stream("POST", url, content=data, headers=headers) as response:
        if _client_mistake(body):
            assert response.status_code == 400, response.read()
        if response.status_code != 200:
            response.read()
            _check_error(response)
        elif response.headers["content-type"].startswith("text/event-stream"):
            _check_stream(list(response.iter_lines()), kind)
        else:
            response.read()
            _check_completion(response.json(), kind)


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    """One client for every example: `httpx.get` and `httpx.stream` make a client a call, and
    each builds its TLS context (reading the CA bundle) though these URLs are plain HTTP."""
    with httpx.Client(timeout=120) as client:
        yield client


FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@FUZZ
@given(body=bodies)
def test_any_body_gets_a_completion_or_a_json_error(
    llm_base_url: str, http: httpx.Client, body: dict
) -> None:
    _check_answer(http, f"{llm_base_url}/chat/completions", body, "chat.completion")
    assert http.get(llm_base_url.removesuffix("/v1") + "/health").status_code == 200


@FUZZ
@given(body=completion_bodies)
def test_any_text_completion_body_gets_a_completion_or_a_json_error(
    llm_base_url: str, http: httpx.Client, body: dict
) -> None:
    _check_answer(http, f"{llm_base_url}/completions", body, "text_completion")
    assert http.get(llm_base_url.removesuffix("/v1") + "/health").status_code == 200
