"""The embedded server through the real `openai` client and plain HTTP (a real subprocess)."""

from __future__ import annotations

import re
import threading
import time

import httpx
import openai
import pytest

pytestmark = pytest.mark.integration

MSG = [{"role": "user", "content": "List the days of the week."}]


@pytest.fixture(scope="module")
def client(llm_base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=llm_base_url, api_key="x", max_retries=0, timeout=120)


def _model(client: openai.OpenAI) -> str:
    return client.models.list().data[0].id


def _metric(base_url: str, name: str) -> float:
    text = httpx.get(base_url.removesuffix("/v1") + "/metrics").text
    total = 0.0
    for line in text.splitlines():
        if not line.startswith("#") and line.startswith(name):
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_models_lists_context_length(llm_base_url: str) -> None:
    data = httpx.get(f"{llm_base_url}/models").json()["data"]
    assert data[0]["object"] == "model" and data[0]["max_model_len"] >= 2048


def test_non_streaming_completion(client: openai.OpenAI) -> None:
    r = client.chat.completions.create(
        model=_model(client), messages=MSG, temperature=0, max_tokens=24
    )
    assert r.choices[0].message.content and r.choices[0].finish_reason in ("stop", "length")
    assert r.usage is not None and r.usage.completion_tokens <= 24 and r.usage.prompt_tokens > 5
    spec = (r.model_extra or {})["spec_decode"]
    assert spec["method"] == "ngram" and spec["accepted_tokens"] <= spec["draft_tokens"]


def test_streaming_completion_ends_with_usage_and_spec_decode(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model=_model(client),
        messages=MSG,
        temperature=0,
        max_tokens=24,
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    last = chunks[-1]
    assert text and last.usage is not None and last.usage.completion_tokens <= 24
    assert "spec_decode" in (last.model_extra or {})
    same = client.chat.completions.create(
        model=_model(client), messages=MSG, temperature=0, max_tokens=24
    )
    assert same.choices[0].message.content == text  # greedy: streaming == non-streaming


def test_stop_strings_and_seeded_sampling(client: openai.OpenAI) -> None:
    kw = {"model": _model(client), "messages": MSG, "max_tokens": 30}
    r = client.chat.completions.create(temperature=0, stop=["Tuesday"], **kw)
    assert "Tuesday" not in (r.choices[0].message.content or "")
    a = client.chat.completions.create(temperature=1.0, top_p=0.9, seed=42, **kw)
    b = client.chat.completions.create(temperature=1.0, top_p=0.9, seed=42, **kw)
    assert a.choices[0].message.content == b.choices[0].message.content


@pytest.mark.parametrize(
    ("kwargs", "param", "pattern"),
    [
        ({"messages": []}, "messages", "messages"),
        ({"max_tokens": 0}, "max_tokens", "max_tokens"),
        ({"temperature": 3.0}, "temperature", r"\[0, 2\]"),
        (
            {"messages": [{"role": "user", "content": "word " * 6000}]},
            "messages",
            r"\d{4,} tokens.*limit is \d+",
        ),
    ],
)
def test_bad_requests_get_openai_error_shape(
    client: openai.OpenAI, kwargs: dict, param: str, pattern: str
) -> None:
    args = {"model": _model(client), "messages": MSG, "max_tokens": 8} | kwargs
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(**args)
    assert info.value.status_code == 400
    error = info.value.response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["param"] == param and error["code"] == 400
    assert re.search(pattern, error["message"])


def test_unknown_model_is_404(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as info:
        client.chat.completions.create(model="no-such-model", messages=MSG, max_tokens=4)
    error = info.value.response.json()["error"]
    assert info.value.status_code == 404 and error["param"] == "model"


def test_four_concurrent_streams_all_complete(client: openai.OpenAI) -> None:
    results: dict[int, str] = {}

    def run(i: int) -> None:
        stream = client.chat.completions.create(
            model=_model(client),
            messages=[{"role": "user", "content": f"Count to {i + 3}."}],
            temperature=0,
            max_tokens=20,
            stream=True,
        )
        results[i] = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert sorted(results) == [0, 1, 2, 3] and all(results.values())


def test_client_disconnect_frees_the_slot(client: openai.OpenAI, llm_base_url: str) -> None:
    abort_series = (
        'vllm:request_success_total{model_name="SmolLM2-135M-Instruct",finished_reason="abort"}'
    )
    aborted = _metric(llm_base_url, abort_series)
    stream = client.chat.completions.create(
        model=_model(client),
        messages=[{"role": "user", "content": "Write a very long essay about contract law."}],
        temperature=0.8,
        max_tokens=3000,
        stream=True,
    )
    for i, _ in enumerate(stream):
        if i >= 3:
            break
    stream.close()  # the client goes away mid-stream
    t0 = time.monotonic()
    r = client.chat.completions.create(
        model=_model(client), messages=MSG, temperature=0, max_tokens=8
    )
    assert r.choices[0].message.content
    assert time.monotonic() - t0 < 10  # 3000 tokens would take far longer
    deadline = time.monotonic() + 5
    while _metric(llm_base_url, abort_series) <= aborted:
        assert time.monotonic() < deadline, "the abandoned request was not aborted"
        time.sleep(0.2)


def test_metrics_counters_move(client: openai.OpenAI, llm_base_url: str) -> None:
    before = _metric(llm_base_url, "vllm:generation_tokens_total{")
    drafts = _metric(llm_base_url, "vllm:spec_decode_num_drafts_total{")
    repeat = [
        {
            "role": "user",
            "content": "Repeat exactly, ten times: 第一条 数据处理者应当申报数据出境安全评估。",
        }
    ]
    client.chat.completions.create(
        model=_model(client), messages=repeat, temperature=0, max_tokens=64
    )
    assert _metric(llm_base_url, "vllm:generation_tokens_total{") > before
    assert _metric(llm_base_url, "vllm:spec_decode_num_drafts_total{") > drafts
    text = httpx.get(llm_base_url.removesuffix("/v1") + "/metrics").text
    for name in (
        "vllm:time_to_first_token_seconds_bucket",
        "vllm:e2e_request_latency_seconds_count",
        "vllm:num_requests_running{",
        "vllm:kv_cache_usage_perc{",
        "vllm:prompt_tokens_total{",
    ):
        assert name in text
    assert re.search(
        r'vllm:inter_token_latency_seconds_bucket\{model_name="[^"]+",le="\+Inf"\} [1-9]', text
    )


def test_tokenize_counts(llm_base_url: str) -> None:
    root = llm_base_url.removesuffix("/v1")
    short = httpx.post(
        f"{root}/tokenize", json={"prompt": "hello world", "add_special_tokens": False}
    ).json()
    assert short["count"] == len(short["tokens"]) == 2
    chat = httpx.post(f"{root}/tokenize", json={"messages": MSG}).json()
    assert chat["count"] > short["count"] and chat["max_model_len"] >= 2048
    bad = httpx.post(f"{root}/tokenize", json={"model": "nope", "prompt": "x"})
    assert bad.status_code == 404 and bad.json()["error"]["code"] == 404
