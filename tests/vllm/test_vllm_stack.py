"""The app's client, monitor parser, router checks and bench against a real vLLM server."""

from __future__ import annotations

import pytest

from app.config import EndpointConfig
from app.domain import GenerationParams
from app.llm.client import OpenAIClient
from app.llm.metrics_parse import derive, scrape
from app.llm.router import check_health, compare_tokenizers
from app.ops.loadbench import resolve_target, run_bench

pytestmark = pytest.mark.vllm

CHAT = [
    {"role": "system", "content": "You are a careful legal drafting assistant."},
    {"role": "user", "content": "List three duties of a party to a confidentiality agreement."},
]


def test_health_models_and_tokenize(vllm_endpoint: EndpointConfig) -> None:
    health = check_health("vllm", vllm_endpoint, timeout_s=10)
    assert health.healthy, health.error
    match = compare_tokenizers(vllm_endpoint, health.models[0], vllm_endpoint, health.models[0])
    assert match.method == "tokenize" and match.compatible


def test_client_streams_and_metrics_move(vllm_endpoint: EndpointConfig) -> None:
    before = scrape(vllm_endpoint)
    assert before.ok, before.error
    stream = OpenAIClient(vllm_endpoint, timeout_s=120, connect_timeout_s=5).stream_chat(
        CHAT, GenerationParams(max_tokens=48)
    )
    text = "".join(stream)
    assert stream.status == "complete", stream.error
    assert text and stream.stats.completion_tokens > 0
    d = derive(before, scrape(vllm_endpoint))
    assert d.gen_tokens >= stream.stats.completion_tokens
    assert d.draft_tokens > 0 and d.acceptance_rate is not None  # vllm:spec_decode_* counters
    assert d.mean_acceptance_length is not None and d.mean_acceptance_length >= 1
    assert d.ttft_p50 is not None and d.kv_cache_usage is not None


def test_bench_against_vllm(vllm_base_url: str) -> None:
    target = resolve_target(vllm_base_url, {})
    run = run_bench(target, target, [CHAT], levels=[1, 2], requests_per_level=2,
                    max_tokens=32, time_budget_s=300)  # fmt: skip
    assert all(r.errors == 0 for r in run.levels), [r.error_samples for r in run.levels]
    assert run.levels[0].acceptance_rate is not None
    assert run.identical_rate == 1.0  # same server, temperature 0
