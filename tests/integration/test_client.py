"""The OpenAI-compatible client against the real embedded server (and real dead sockets)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from app.config import EndpointConfig, Settings
from app.domain import GenerationParams
from app.drafting.context import decide_route
from app.llm.client import OpenAIClient, make_client
from app.llm.errors import LLMError
from app.prompts import estimate_tokens
from tests.servers import free_port, metric_total

pytestmark = pytest.mark.integration

MESSAGES = [{"role": "user", "content": "List three duties of a data processor."}]
SHORT = GenerationParams(temperature=0.0, max_tokens=24, seed=1)


@pytest.fixture(scope="module")
def client(llm_base_url: str) -> OpenAIClient:
    return OpenAIClient(EndpointConfig(base_url=llm_base_url), timeout_s=60, connect_timeout_s=5)


def test_models_context_and_token_count(client: OpenAIClient) -> None:
    assert client.models() and client.model() == client.models()[0]
    assert client.context_limit() == 4096
    counted = client.count_tokens(MESSAGES)
    assert counted is not None and 0 < counted <= estimate_tokens(MESSAGES)


def test_streams_text_with_stats(client: OpenAIClient) -> None:
    stream = client.stream_chat(MESSAGES, SHORT)
    deltas = list(stream)
    assert stream.status == "complete" and stream.error is None
    assert deltas and "".join(deltas) == stream.text
    assert stream.finish_reason in ("stop", "length")
    assert stream.model == client.model()
    stats = stream.stats
    assert stats.ttft_s is not None and 0 < stats.ttft_s <= stats.total_s
    assert 0 < stats.completion_tokens <= SHORT.max_tokens
    assert stats.prompt_tokens is not None and stats.prompt_tokens > 0
    # the fixture's server speculates (n-gram) and reports it in the final chunk
    assert stats.draft_tokens is not None and stats.accepted_tokens is not None
    assert 0 <= stats.accepted_tokens <= stats.draft_tokens


def test_temperature_zero_is_repeatable(client: OpenAIClient) -> None:
    first, second = client.stream_chat(MESSAGES, SHORT), client.stream_chat(MESSAGES, SHORT)
    list(first), list(second)
    assert first.text == second.text


def test_cancel_mid_stream_keeps_the_partial_text_and_frees_the_server(
    client: OpenAIClient, llm_base_url: str
) -> None:
    generated = metric_total(llm_base_url, "vllm:generation_tokens_total{")
    stream = client.stream_chat(MESSAGES, GenerationParams(max_tokens=400))
    seen = []
    for delta in stream:
        seen.append(delta)
        if len(seen) == 3:
            stream.cancel()
    assert stream.status == "stopped"
    assert stream.text == "".join(seen) and len(seen) == 3
    after = client.stream_chat(MESSAGES, SHORT)
    list(after)
    assert after.status == "complete", after.error
    # the server stopped the cancelled request soon after, instead of writing its 400 tokens
    wasted = metric_total(llm_base_url, "vllm:generation_tokens_total{") - generated
    assert wasted - after.stats.completion_tokens < 200


def test_cancel_from_another_thread(client: OpenAIClient) -> None:
    """Another thread (the UI's Stop) cancels while this one reads; ordered by events, not
    by sleeping, so a fast server cannot finish first."""
    stream = client.stream_chat(MESSAGES, GenerationParams(max_tokens=400))
    first_delta, cancelled = threading.Event(), threading.Event()

    def stop_button() -> None:
        first_delta.wait(timeout=60)
        stream.cancel()
        cancelled.set()

    stopper = threading.Thread(target=stop_button)
    stopper.start()
    got: list[str] = []
    for delta in stream:
        got.append(delta)
        if not first_delta.is_set():
            first_delta.set()
            assert cancelled.wait(timeout=60)
    stopper.join()
    assert stream.status == "stopped"
    assert stream.text == "".join(got)
    assert stream.stats.completion_tokens < 400


def test_max_tokens_beyond_the_context_is_a_clear_400(client: OpenAIClient) -> None:
    stream = client.stream_chat(MESSAGES, GenerationParams(max_tokens=100_000))
    assert list(stream) == []
    assert stream.status == "error" and stream.text == ""
    assert stream.error is not None
    assert "HTTP 400" in stream.error and "4096" in stream.error and "模型服务" in stream.error


def test_server_down_is_an_error_status_with_a_message() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    down = OpenAIClient(EndpointConfig(base_url=url), timeout_s=5, connect_timeout_s=1)
    stream = down.stream_chat(MESSAGES, SHORT)
    assert list(stream) == []
    assert stream.status == "error"
    assert (
        stream.error is not None and "无法连接" in stream.error and "Cannot reach" in stream.error
    )
    assert down.context_limit() is None and down.count_tokens(MESSAGES) is None
    with pytest.raises(LLMError):
        down.models()


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A real socket that accepts connections and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(4)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def test_a_server_that_never_answers_times_out(silent_server: str) -> None:
    slow = OpenAIClient(
        EndpointConfig(base_url=silent_server, model="m"), timeout_s=0.5, connect_timeout_s=1
    )
    stream = slow.stream_chat(MESSAGES, SHORT)
    list(stream)  # ends (pytest-timeout would catch a hang): the 0.5 s read timeout fired
    assert stream.status == "error"
    assert stream.error is not None and "0.5" in stream.error and "did not answer" in stream.error


def test_make_client_uses_the_named_endpoint(llm_base_url: str) -> None:
    settings = Settings(
        llm_base_url=llm_base_url,
        endpoints={"vllm": EndpointConfig(base_url="http://127.0.0.1:9/v1", label="vLLM")},
        request_timeout_s=30,
    )
    assert make_client("embedded", settings).base_url == llm_base_url
    assert make_client("vllm", settings).base_url == "http://127.0.0.1:9/v1"
    with pytest.raises(LLMError) as info:
        make_client("nope", settings)
    assert "nope" in info.value.message("zh") and "nope" in info.value.message("en")


def test_the_local_estimate_never_undercounts_our_prompts(client: OpenAIClient) -> None:
    from app.config import REPO_ROOT
    from app.prompts import load_library, render

    for doc in load_library(REPO_ROOT / "prompts").types.values():
        messages = render(
            doc, doc.example_values(), route=decide_route(doc, doc.example_values())
        ).messages()
        counted = client.count_tokens(messages)
        assert counted is not None and counted <= estimate_tokens(messages), doc.id
