"""Bench verdict and output formats on constructed results (the measuring is integration-tested)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.ops.bench_report import to_markdown, verdict, write_outputs
from app.ops.loadbench import BenchRun, LevelResult, concurrency_levels, percentile


def _level(target: str, c: int, req_tok_s: float, thr: float, acc: float | None) -> LevelResult:
    return LevelResult(
        target=target, concurrency=c, requests=c, errors=0, wall_s=1.0, throughput_tok_s=thr,
        mean_request_tok_s=req_tok_s, latency_p50_s=1.0, latency_p95_s=2.0, ttft_p50_s=0.1,
        ttft_p95_s=0.2, itl_p50_s=0.02, itl_p95_s=0.05, acceptance_rate=acc,
        mean_acceptance_length=None if acc is None else 1 + acc * 4,
    )  # fmt: skip


def _run(low: tuple[float, float], high: tuple[float, float], acc: float) -> BenchRun:
    levels = (
        _level("spec", 1, low[0], low[0], acc), _level("plain", 1, low[1], low[1], None),
        _level("spec", 16, 10.0, high[0], acc), _level("plain", 16, 10.0, high[1], None),
    )  # fmt: skip
    return BenchRun("spec", "plain", 64, levels, 1.0)


@pytest.mark.parametrize(
    ("low", "high", "acc", "suited", "phrase"),
    [
        ((30.0, 20.0), (200.0, 150.0), 0.7, True, "latency-bound"),
        ((30.0, 20.0), (120.0, 150.0), 0.7, True, "load-dependent"),
        ((21.0, 20.0), (120.0, 100.0), 0.7, False, "no clear gain"),
        ((30.0, 20.0), (200.0, 150.0), 0.2, False, "no clear gain"),
    ],
)
def test_verdict(
    low: tuple[float, float], high: tuple[float, float], acc: float, suited: bool, phrase: str
) -> None:
    v = verdict(_run(low, high, acc))
    assert v.suited is suited and phrase in v.summary_en
    assert any(f"{low[0] / low[1]:.2f}×" in en for _, en in v.reasons)
    assert any(f"{acc:.0%}" in en for _, en in v.reasons)


def test_outputs(tmp_path: Path) -> None:
    run = _run((30.0, 20.0), (200.0, 150.0), 0.7)
    md = to_markdown(run, verdict(run))
    assert md.count("\n| spec |") == 2 and "Identical output at temperature 0 (A vs B): 100%" in md
    paths = write_outputs(run, tmp_path)
    assert paths["png"].read_bytes()[:4] == b"\x89PNG"


def test_levels_and_percentiles() -> None:
    assert concurrency_levels(64) == [1, 4, 16, 64]
    assert concurrency_levels(10) == [1, 4]
    assert concurrency_levels(8, [8, 1, 2, 4, 32]) == [1, 2, 4, 8]
    assert percentile([], 50) is None
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == pytest.approx(2.5)
    assert percentile([1.0, 2.0, 3.0, 4.0], 95) == pytest.approx(3.85)
