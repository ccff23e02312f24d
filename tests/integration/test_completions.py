"""/v1/completions on the real embedded server: through the `openai` client's
`completions.create` and plain HTTP, with the same validation, engine and metrics as chat."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from tests.servers import metric_total

pytestmark = pytest.mark.integration

PROMPT = "第一条 为了规范数据出境活动，保护个人信息权益，维护国家安全和社会公共利益，"


@pytest.fixture(scope="module")
def client(llm_base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=llm_base_url, api_key="x", max_retries=0, timeout=120)


def _model(client: openai.OpenAI) -> str:
    return client.models.list().data[0].id


def test_a_text_completion_through_the_openai_client(client: openai.OpenAI) -> None:
    r = client.completions.create(model=_model(client), prompt=PROMPT, max_tokens=12, temperature=0)
    assert r.object == "text_completion" and isinstance(r.choices[0].text, str)
    assert r.choices[0].text and r.choices[0].finish_reason in ("stop", "length")
    assert r.usage is not None and 0 < r.usage.completion_tokens <= 12
    assert r.usage.prompt_tokens > 10
    spec = (r.model_extra or {})["spec_decode"]
    assert spec["method"] == "ngram" and spec["accepted_tokens"] <= spec["draft_tokens"]


def test_streamed_text_equals_the_whole_and_token_ids_equal_the_string(
    client: openai.OpenAI, llm_base_url: str
) -> None:
    kw = {"model": _model(client), "max_tokens": 12, "temperature": 0}
    whole = client.completions.create(prompt=PROMPT, **kw).choices[0].text
    chunks = list(client.completions.create(prompt=PROMPT, stream=True, **kw))
    assert "".join(c.choices[0].text for c in chunks if c.choices) == whole  # greedy
    assert chunks[-1].choices[0].finish_reason in ("stop", "length")
    assert "spec_decode" in (chunks[-1].model_extra or {})
    root = llm_base_url.removesuffix("/v1")
    ids = httpx.post(f"{root}/tokenize", json={"prompt": PROMPT}, timeout=60).json()["tokens"]
    by_ids = client.completions.create(prompt=ids, **kw)
    assert by_ids.choices[0].text == whole
    assert by_ids.usage is not None and by_ids.usage.prompt_tokens == len(ids)


def test_echo_starts_with_the_prompt_streamed_or_not(client: openai.OpenAI) -> None:
    kw = {"model": _model(client), "prompt": PROMPT, "max_tokens": 6, "temperature": 0}
    plain = client.completions.create(**kw).choices[0].text
    echoed = client.completions.create(echo=True, **kw).choices[0].text
    assert echoed == PROMPT + plain
    stream = list(client.completions.create(echo=True, stream=True, **kw))
    assert stream[0].choices[0].text == PROMPT
    assert "".join(c.choices[0].text for c in stream) == echoed


def test_stop_strings_seeded_sampling_and_metrics(client: openai.OpenAI, llm_base_url: str) -> None:
    generated = metric_total(llm_base_url, "vllm:generation_tokens_total{")
    kw = {"model": _model(client), "prompt": "Monday, Tuesday, Wednesday,", "max_tokens": 16}
    r = client.completions.create(temperature=0, stop=["Friday"], **kw)
    assert "Friday" not in r.choices[0].text
    a = client.completions.create(temperature=1.0, top_p=0.9, seed=7, **kw)
    b = client.completions.create(temperature=1.0, top_p=0.9, seed=7, **kw)
    assert a.choices[0].text == b.choices[0].text
    assert metric_total(llm_base_url, "vllm:generation_tokens_total{") > generated


def test_the_default_length_is_openais_16_tokens(llm_base_url: str) -> None:
    body = {"prompt": "Count: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,", "temperature": 0}
    r = httpx.post(f"{llm_base_url}/completions", json=body, timeout=120).json()
    assert r["usage"]["completion_tokens"] <= 16


@pytest.mark.parametrize(
    ("fields", "param", "needle"),
    [
        ({"logprobs": 1}, "logprobs", "not supported"),
        ({"logprobs": 0, "echo": True}, "logprobs", "not supported"),
        ({"suffix": "end"}, "suffix", "not supported"),
        ({"best_of": 2}, "best_of", "not supported"),
        ({"n": 2}, "n", "n = 1"),
        ({"prompt": ["a", "b"]}, "prompt", "one prompt"),
        ({"prompt": [[1, 2], [3]]}, "prompt", "one prompt"),
        ({"prompt": 5}, "prompt", "token ids"),
        ({"prompt": []}, "prompt", "token ids"),
        ({"prompt": [1, -1]}, "prompt[1]", "not a token id"),
        ({"prompt": [10**9]}, "prompt[0]", "not a token id"),
        ({"prompt": [1, True]}, "prompt", "token ids"),
        ({"echo": "yes"}, "echo", "boolean"),
        ({"seed": -1}, "seed", "0 or more"),
        ({"seed": -1, "stream": True}, "seed", "0 or more"),
        ({"temperature": 3}, "temperature", "[0, 2]"),
        ({"stream": "true"}, "stream", "boolean"),
        ({"max_tokens": 0}, "max_tokens", "positive"),
        ({"max_tokens": 100_000}, "max_tokens", "context limit"),
        ({"prompt": "word " * 6000}, "prompt", "context limit"),
        ({"model": "no-such-model"}, "model", "does not exist"),
    ],
)
def test_bad_requests_are_openai_json_errors(
    llm_base_url: str, fields: dict, param: str, needle: str
) -> None:
    body = {"prompt": "x", "max_tokens": 2} | fields
    response = httpx.post(f"{llm_base_url}/completions", json=body, timeout=120)
    assert response.status_code in (400, 404), response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["param"] == param and needle in error["message"]


def test_a_lone_surrogate_in_the_prompt_is_a_400(llm_base_url: str) -> None:
    data = json.dumps({"prompt": "a\ud800", "max_tokens": 2}).encode()
    response = httpx.post(
        f"{llm_base_url}/completions",
        content=data,
        headers={"content-type": "application/json"},
        timeout=60,
    )
    assert response.status_code == 400 and response.json()["error"]["param"] == "prompt"
