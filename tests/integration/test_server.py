"""The embedded server through the real `openai` client and plain HTTP (a real subprocess)."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable

import httpx
import openai
import pytest

from tests.servers import metric_total

pytestmark = pytest.mark.integration

MSG = [{"role": "user", "content": "List the days of the week."}]


@pytest.fixture(scope="module")
def client(llm_base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=llm_base_url, api_key="x", max_retries=0, timeout=120)


def _model(client: openai.OpenAI) -> str:
    return client.models.list().data[0].id


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


def _json_error(response: httpx.Response, status: int) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"} and error["code"] == status
    return error


def _chat_with(content: object) -> dict:
    return {"messages": [{"role": "user", "content": content}], "max_tokens": 4}


DEEP = b"[" * 100_000 + b"]" * 100_000


def _ascii(body: object) -> bytes:
    """A body as ASCII JSON, so a lone surrogate travels as its escape (\\ud800)."""
    return json.dumps(body).encode()


LONE = "\ud800"


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "param"),
    [
        ("GET", "/no/such/route", None, 404, None),
        ("POST", "/v1/completions", b"{}", 400, "prompt"),
        ("POST", "/v1/chat/completions", _ascii(_chat_with(LONE)), 400, "messages[0].content"),
        (
            "POST",
            "/v1/chat/completions",
            _ascii(_chat_with([{"type": "text", "text": "a" + LONE}])),
            400,
            "messages[0].content[0].text",
        ),
        ("POST", "/v1/chat/completions", _ascii(_chat_with("x") | {"model": LONE}), 400, "model"),
        ("POST", "/tokenize", _ascii({"prompt": LONE}), 400, "prompt"),
        ("POST", "/v1/completions", _ascii({"prompt": "x" + LONE, "max_tokens": 2}), 400, "prompt"),
        ("POST", "/v1/chat/completions", _chat_with("x") | {"seed": -1}, 400, "seed"),
        (
            "POST",
            "/v1/chat/completions",
            _chat_with("x") | {"seed": -5, "stream": True},
            400,
            "seed",
        ),
        ("GET", "/v1/chat/completions", None, 405, None),
        ("DELETE", "/v1/models", None, 405, None),
        ("POST", "/v1/chat/completions", DEEP, 400, None),
        ("POST", "/tokenize", DEEP, 400, None),
        ("POST", "/v1/chat/completions", b"{not json", 400, None),
        ("POST", "/v1/chat/completions", b"\xff\xfe", 400, None),
        ("POST", "/v1/chat/completions", b"x" * (3 * 1024 * 1024), 413, None),
        (
            "POST",
            "/v1/chat/completions",
            _chat_with([{"type": "text", "text": 5}]),
            400,
            "messages[0].content[0].text",
        ),
        (
            "POST",
            "/v1/chat/completions",
            _chat_with([{"type": "text", "text": None}]),
            400,
            "messages[0].content[0].text",
        ),
        ("POST", "/v1/chat/completions", _chat_with(None), 400, "messages[0].content"),
        (
            "POST",
            "/tokenize",
            {"messages": [{"role": "user", "content": 5}]},
            400,
            "messages[0].content",
        ),
        (
            "POST",
            "/tokenize",
            {"prompt": "x", "add_special_tokens": "no"},
            400,
            "add_special_tokens",
        ),
    ],
)
def test_every_error_is_openai_json(
    llm_base_url: str, method: str, path: str, body: object, status: int, param: str | None
) -> None:
    root = llm_base_url.removesuffix("/v1")
    kwargs = {"content": body} if isinstance(body, bytes) else {"json": body}
    response = httpx.request(method, root + path, timeout=60, **kwargs)
    assert _json_error(response, status)["param"] == param


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"stream": "false"}, "stream"),
        ({"stream": 1}, "stream"),
        ({"n": 2}, "n"),
        ({"stop": ["1", "2", "3", "4", "5"]}, "stop"),
        ({"messages": [{"role": "tool", "content": "x"}]}, "messages[0].role"),
        ({"messages": [{"role": "narrator", "content": "x"}]}, "messages[0].role"),
        (
            {"messages": [{"role": "user", "content": [{"type": "image_url"}]}]},
            "messages[0].content[0]",
        ),
    ],
)
def test_fields_are_validated_as_openai_does(llm_base_url: str, fields: dict, param: str) -> None:
    body = {"messages": MSG, "max_tokens": 4} | fields
    response = httpx.post(f"{llm_base_url}/chat/completions", json=body, timeout=60)
    assert _json_error(response, 400)["param"] == param


def test_a_prompt_near_the_body_limit_is_tokenized_and_refused_as_too_long(
    llm_base_url: str,
) -> None:
    content = "第一条 数据出境。" * (1_900_000 // len("第一条 数据出境。".encode()))
    response = httpx.post(f"{llm_base_url}/chat/completions", json=_chat_with(content), timeout=120)
    error = _json_error(response, 400)
    assert error["type"] == "context_length_exceeded" and error["param"] == "messages"
    assert httpx.get(llm_base_url.removesuffix("/v1") + "/health").status_code == 200


@pytest.mark.parametrize("max_tokens", range(1, 13))
def test_streamed_chinese_has_no_replacement_characters(llm_base_url: str, max_tokens: int) -> None:
    body = {
        "messages": [{"role": "user", "content": "请用中文写一句关于合同的话：合同是"}],
        "temperature": 0.7,  # seeded sampling: leaves the greedy acceptance estimates alone
        "seed": max_tokens,
        "max_tokens": max_tokens,
        "stream": True,
    }
    text = ""
    with httpx.stream("POST", f"{llm_base_url}/chat/completions", json=body, timeout=60) as r:
        for line in r.iter_lines():
            if line.startswith("data: {"):
                for choice in json.loads(line[6:]).get("choices", []):
                    text += choice["delta"].get("content") or ""
    assert "\ufffd" not in text


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


LONG = [{"role": "user", "content": "Count from 1 to 5000, one number per line."}]
LONG_MAX_TOKENS = 2000


def _abort_series(llm_base_url: str) -> str:
    name = httpx.get(f"{llm_base_url}/models").json()["data"][0]["id"]
    return f'vllm:request_success_total{{model_name="{name}",finished_reason="abort"}}'


def _after_an_abandoned_request(llm_base_url: str, abandon: Callable[[], None]) -> int:
    """Tokens the server generated for a request the client abandoned (via `abandon`), once
    the next request has completed (the worker serves one at a time, so by then the abandoned
    one is over); checks that the next request completes."""
    generated = metric_total(llm_base_url, "vllm:generation_tokens_total{")
    abandon()
    r = httpx.post(
        f"{llm_base_url}/chat/completions",
        json={"messages": MSG, "temperature": 0, "max_tokens": 8},
        timeout=120,
    ).json()
    assert r["choices"][0]["message"]["content"]
    after = metric_total(llm_base_url, "vllm:generation_tokens_total{")
    return int(after - generated) - r["usage"]["completion_tokens"]


def test_client_disconnect_frees_the_slot(client: openai.OpenAI, llm_base_url: str) -> None:
    abort_series = _abort_series(llm_base_url)
    aborted = metric_total(llm_base_url, abort_series)

    def leave_mid_stream() -> None:
        stream = client.chat.completions.create(
            model=_model(client),
            messages=LONG,
            temperature=0.8,  # sampled: leaves the greedy acceptance estimates to other tests
            seed=1,
            max_tokens=LONG_MAX_TOKENS,
            stream=True,
        )
        for i, _ in enumerate(stream):
            if i >= 3:
                break
        stream.close()  # the client goes away mid-stream

    wasted = _after_an_abandoned_request(llm_base_url, leave_mid_stream)
    assert wasted < LONG_MAX_TOKENS // 4  # stopped soon after the client left, not run to the end
    assert metric_total(llm_base_url, abort_series) == aborted + 1


def test_non_streaming_client_that_leaves_frees_the_worker(llm_base_url: str) -> None:
    """The abandoned request ends as an abort (a server that finishes it for nobody counts it
    as "length" or "stop" instead, however long or short the model's answer would be), and
    it generated few tokens before the worker let it go."""
    abort_series = _abort_series(llm_base_url)
    aborted = metric_total(llm_base_url, abort_series)
    url = httpx.URL(f"{llm_base_url}/chat/completions")
    body = json.dumps(
        {"messages": LONG, "temperature": 0.8, "seed": 1, "max_tokens": LONG_MAX_TOKENS}
    )

    def send_and_leave() -> None:
        with socket.create_connection((url.host, url.port)) as sock:
            sock.sendall(
                f"POST {url.path} HTTP/1.1\r\nHost: {url.host}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n{body}".encode()
            )
        # closed without reading the answer

    assert _after_an_abandoned_request(llm_base_url, send_and_leave) < LONG_MAX_TOKENS // 4
    assert metric_total(llm_base_url, abort_series) == aborted + 1


def test_metrics_counters_move(drafting_url: str) -> None:
    """Every chat moves the token and draft counters (on a server that drafts every step: the
    adaptive default may rightly skip drafting on a loaded machine)."""
    client = openai.OpenAI(base_url=drafting_url, api_key="x")
    before = metric_total(drafting_url, "vllm:generation_tokens_total{")
    drafts = metric_total(drafting_url, "vllm:spec_decode_num_drafts_total{")
    repeat = [
        {
            "role": "user",
            "content": "Repeat exactly, ten times: 第一条 数据处理者应当申报数据出境安全评估。",
        }
    ]
    client.chat.completions.create(
        model=_model(client), messages=repeat, temperature=0, max_tokens=64
    )
    assert metric_total(drafting_url, "vllm:generation_tokens_total{") > before
    assert metric_total(drafting_url, "vllm:spec_decode_num_drafts_total{") > drafts
    text = httpx.get(drafting_url.removesuffix("/v1") + "/metrics").text
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


def _running(llm_base_url: str) -> bool:
    return metric_total(llm_base_url, "vllm:num_requests_running{") > 0


def test_a_waiting_stream_says_where_it_is_queued(llm_base_url: str) -> None:
    """Behind a running request, a stream's first lines are SSE comments `: queued 1 ahead`
    (keep-alives an OpenAI client skips), then its chunks. The running request is released
    (its connection closed, which cancels it) once the waiting one has said so."""
    from tests.servers import holding

    long = {"messages": LONG, "temperature": 0.8, "seed": 2, "max_tokens": LONG_MAX_TOKENS}
    url = f"{llm_base_url}/chat/completions"
    lines: list[str] = []
    with holding(llm_base_url, long) as (busy,):
        while not _running(llm_base_url):
            assert busy.alive(), "the long request ended before it ran"
            time.sleep(0.02)
        body = {"messages": MSG, "temperature": 0, "max_tokens": 4, "stream": True}
        with httpx.stream("POST", url, json=body, timeout=300) as response:
            for line in response.iter_lines():
                if line.startswith(":"):
                    busy.released.set()  # said where it waits: let it run
                lines += [line] if line else []
    comments = [i for i, line in enumerate(lines) if line.startswith(":")]
    assert comments and lines[comments[0]] == ": queued 1 ahead", lines[:5]
    content = [i for i, line in enumerate(lines) if '"content": "' in line and '""' not in line]
    assert content and comments[0] < content[0] and lines[-1] == "data: [DONE]"
