"""The /metrics parser on a recorded vLLM sample, deltas between scrapes, and advice rules."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.llm.metrics_parse import (
    DerivedMetrics,
    Histogram,
    advice,
    derive,
    metrics_url,
    parse_prometheus,
    snapshot_from_text,
)

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "vllm_metrics.txt"
L = 'engine="0",model_name="m"'


def _text(
    drafts: float, draft_tokens: float, accepted: float, gen: float, ttft: list[float]
) -> str:
    buckets = [0.1, 0.5, 1.0]
    lines = [
        f"vllm:spec_decode_num_drafts_total{{{L}}} {drafts}",
        f"vllm:spec_decode_num_draft_tokens_total{{{L}}} {draft_tokens}",
        f"vllm:spec_decode_num_accepted_tokens_total{{{L}}} {accepted}",
        f"vllm:generation_tokens_total{{{L}}} {gen}",
        f"vllm:kv_cache_usage_perc{{{L}}} 0.5",
    ]
    for le, c in zip(buckets, ttft, strict=True):
        lines.append(f'vllm:time_to_first_token_seconds_bucket{{{L},le="{le}"}} {c}')
    lines.append(f'vllm:time_to_first_token_seconds_bucket{{{L},le="+Inf"}} {ttft[-1]}')
    lines.append(f"vllm:time_to_first_token_seconds_count{{{L}}} {ttft[-1]}")
    lines.append(f"vllm:time_to_first_token_seconds_sum{{{L}}} 1.0")
    return "\n".join(lines)


def test_parses_labels_and_skips_comments() -> None:
    samples = parse_prometheus(
        '# HELP x y\n# TYPE x counter\nx_total{a="1",b="q\\"uote"} 3\nbroken line\ny 2.5\n'
    )
    assert [(s.name, s.value) for s in samples] == [("x_total", 3.0), ("y", 2.5)]
    assert samples[0].labels == {"a": "1", "b": 'q\\"uote'}


def test_recorded_vllm_sample() -> None:
    snap = snapshot_from_text(FIXTURE.read_text(), endpoint="vllm-spec", at=100.0)
    assert snap.counters["spec_decode_num_drafts"] == 1200
    assert snap.counters["request_success"] == 150  # summed over finished_reason
    assert snap.per_pos == (1020, 880, 780, 660, 560)
    d = derive(None, snap)
    assert d.acceptance_rate == pytest.approx(3900 / 6000)
    assert d.mean_acceptance_length == pytest.approx(1 + 3900 / 1200)
    assert d.per_position == pytest.approx((0.85, 880 / 1200, 0.65, 0.55, 560 / 1200))
    assert d.kv_cache_usage == pytest.approx(0.42)
    assert (d.running, d.waiting) == (3, 0)
    assert d.requests == 150
    # 75th of 150 TTFT observations lies in (0.1, 0.25]: 58 below, 62 inside
    assert d.ttft_p50 == pytest.approx(0.1 + 0.15 * (75 - 58) / 62)
    assert d.gen_tok_s is None  # one scrape has no time window
    assert advice(d) == []


def test_deltas_between_scrapes() -> None:
    a = snapshot_from_text(_text(10, 40, 30, 100, [1, 2, 2]), at=10.0)
    b = snapshot_from_text(_text(30, 120, 50, 300, [1, 5, 6]), at=14.0)
    d = derive(a, b)
    assert d.window_s == 4.0
    assert d.acceptance_rate == pytest.approx(20 / 80)
    assert d.mean_acceptance_length == pytest.approx(1 + 20 / 20)
    assert d.gen_tok_s == pytest.approx(200 / 4)
    # the 4 new observations: 0 under 0.1, 3 in (0.1, 0.5], 1 in (0.5, 1.0]
    hist = b.histograms["time_to_first_token_seconds"].minus(
        a.histograms["time_to_first_token_seconds"]
    )
    assert hist.count == 4
    assert d.ttft_p50 == pytest.approx(0.1 + 0.4 * 2 / 3)


def test_counter_reset_counts_from_zero() -> None:
    a = snapshot_from_text(_text(100, 400, 300, 1000, [1, 2, 2]), at=0.0)
    b = snapshot_from_text(_text(5, 20, 10, 50, [0, 1, 1]), at=1.0)
    d = derive(a, b)
    assert d.acceptance_rate == pytest.approx(0.5)
    assert d.gen_tok_s == pytest.approx(50)


def test_histogram_quantile_edges() -> None:
    assert Histogram().quantile(0.5) is None
    h = Histogram(((1.0, 0.0), (2.0, 10.0), (float("inf"), 10.0)), 15.0, 10.0)
    assert h.quantile(0.5) == pytest.approx(1.5)
    assert h.quantile(1.0) == pytest.approx(2.0)


def test_metrics_url() -> None:
    assert metrics_url("http://h:8000/v1") == "http://h:8000/metrics"
    assert metrics_url("http://h:8000/v1/") == "http://h:8000/metrics"


_BASE = DerivedMetrics(
    endpoint="e", window_s=10.0, acceptance_rate=None, mean_acceptance_length=None,
    per_position=(), draft_tokens=0.0, gen_tokens=0.0, gen_tok_s=None, ttft_p50=None,
    ttft_p95=None, itl_p50=None, itl_p95=None, e2e_p50=None, e2e_p95=None, requests=0.0,
    kv_cache_usage=None, running=None, waiting=None,
)  # fmt: skip


def _derived(**kw: object) -> DerivedMetrics:
    return replace(_BASE, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kw", "plain", "codes"),
    [
        ({"acceptance_rate": 0.3, "draft_tokens": 500.0}, None, ["acceptance.low"]),
        ({"acceptance_rate": 0.3, "draft_tokens": 10.0}, None, []),  # too few to judge
        ({"acceptance_rate": 0.4, "draft_tokens": 500.0}, None, []),
        ({"kv_cache_usage": 0.95}, None, ["kv_cache.full"]),
        ({"kv_cache_usage": 0.94}, None, []),
        ({"gen_tok_s": 20.0, "gen_tokens": 400.0}, {"gen_tok_s": 30.0, "gen_tokens": 600.0},
         ["speculation.slower"]),
        ({"gen_tok_s": 40.0, "gen_tokens": 400.0}, {"gen_tok_s": 30.0, "gen_tokens": 600.0}, []),
    ],
)  # fmt: skip
def test_advice_rules(
    kw: dict[str, object], plain: dict[str, object] | None, codes: list[str]
) -> None:
    got = advice(
        _derived(**kw), plain=_derived(**plain) if plain else None, num_speculative_tokens=8
    )
    assert [a.code for a in got] == codes
    for a in got:
        assert a.message("zh") != a.message("en")
        assert a.message_zh and a.message_en
