"""Prometheus text exposition with vLLM's metric names, so one dashboard reads both servers.

Counters get the `_total` suffix (as prometheus_client and vLLM expose them), histograms
`_bucket{le}`/`_sum`/`_count`, gauges are plain; every series carries `model_name`.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence
from typing import ClassVar

LATENCY_BUCKETS = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
)
E2E_BUCKETS = (
    0.3,
    0.5,
    0.8,
    1.0,
    1.5,
    2.0,
    2.5,
    5.0,
    10.0,
    15.0,
    20.0,
    30.0,
    40.0,
    50.0,
    60.0,
    120.0,
    240.0,
)

Labels = tuple[tuple[str, str], ...]


def _fmt_labels(labels: Labels) -> str:
    inner = ",".join(f'{k}="{v}"' for k, v in labels)
    return "{" + inner + "}"


def _fmt(v: float) -> str:
    return repr(float(v)) if v != int(v) else f"{float(v):.1f}"


class Metrics:
    """The embedded server's counters, gauges and histograms (thread-safe)."""

    COUNTERS: ClassVar[dict[str, str]] = {
        "vllm:spec_decode_num_drafts": "Number of spec decoding drafts.",
        "vllm:spec_decode_num_draft_tokens": "Number of draft tokens.",
        "vllm:spec_decode_num_accepted_tokens": "Number of accepted tokens.",
        "vllm:spec_decode_num_accepted_tokens_per_pos": "Accepted tokens per draft position.",
        "vllm:prompt_tokens": "Number of prefill tokens processed.",
        "vllm:prefix_cache_queries": "Prefix cache queries, in terms of number of queried tokens.",
        "vllm:prefix_cache_hits": "Prefix cache hits, in terms of number of cached tokens.",
        "vllm:generation_tokens": "Number of generation tokens processed.",
        "vllm:request_success": "Count of successfully processed requests.",
    }
    LABELLED = ("vllm:spec_decode_num_accepted_tokens_per_pos", "vllm:request_success")
    GAUGES: ClassVar[dict[str, str]] = {
        "vllm:num_requests_running": "Number of requests in model execution batches.",
        "vllm:num_requests_waiting": "Number of requests waiting to be processed.",
        "vllm:kv_cache_usage_perc": "KV-cache usage. 1 means 100 percent usage.",
    }
    HISTOGRAMS: ClassVar[dict[str, tuple[str, tuple[float, ...]]]] = {
        "vllm:time_to_first_token_seconds": (
            "Histogram of time to first token in seconds.",
            LATENCY_BUCKETS,
        ),
        "vllm:inter_token_latency_seconds": (
            "Histogram of inter-token latency in seconds.",
            LATENCY_BUCKETS,
        ),
        "vllm:e2e_request_latency_seconds": (
            "Histogram of e2e request latency in seconds.",
            E2E_BUCKETS,
        ),
    }

    def __init__(self, model_name: str) -> None:
        self.base: Labels = (("model_name", model_name),)
        self._lock = threading.Lock()
        self._counters: dict[str, dict[Labels, float]] = {n: {} for n in self.COUNTERS}
        self._gauges: dict[str, float] = dict.fromkeys(self.GAUGES, 0.0)
        self._hist: dict[str, tuple[list[int], list[float]]] = {
            n: ([0] * (len(b) + 1), [0.0]) for n, (_, b) in self.HISTOGRAMS.items()
        }

    def inc(self, name: str, value: float = 1.0, **labels: str) -> None:
        key = self.base + tuple(sorted(labels.items()))
        with self._lock:
            series = self._counters[name]
            series[key] = series.get(key, 0.0) + value

    def set(self, name: str, value: float) -> None:
        with self._lock:
            self._gauges[name] = value

    def add(self, name: str, delta: float) -> None:
        with self._lock:
            self._gauges[name] += delta

    def observe(self, name: str, value: float, count: int = 1) -> None:
        buckets = self.HISTOGRAMS[name][1]
        with self._lock:
            counts, total = self._hist[name]
            counts[bisect.bisect_left(buckets, value)] += count
            total[0] += value * count

    def record_step(self, drafted: int, accepted: int) -> None:
        if drafted <= 0:
            return
        self.inc("vllm:spec_decode_num_drafts")
        self.inc("vllm:spec_decode_num_draft_tokens", drafted)
        self.inc("vllm:spec_decode_num_accepted_tokens", accepted)
        for pos in range(accepted):
            self.inc("vllm:spec_decode_num_accepted_tokens_per_pos", position=str(pos))

    def render(self) -> str:
        """The Prometheus text format (version 0.0.4)."""
        lines: list[str] = []
        with self._lock:
            for name, help_text in self.COUNTERS.items():
                lines += [f"# HELP {name}_total {help_text}", f"# TYPE {name}_total counter"]
                series = self._counters[name]
                if not series and name not in self.LABELLED:
                    series = {self.base: 0.0}
                for labels, v in sorted(series.items()):
                    lines.append(f"{name}_total{_fmt_labels(labels)} {_fmt(v)}")
            for name, help_text in self.GAUGES.items():
                lines += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge"]
                lines.append(f"{name}{_fmt_labels(self.base)} {_fmt(self._gauges[name])}")
            for name, (help_text, buckets) in self.HISTOGRAMS.items():
                lines += [f"# HELP {name} {help_text}", f"# TYPE {name} histogram"]
                lines += self._render_hist(name, buckets)
        return "\n".join(lines) + "\n"

    def _render_hist(self, name: str, buckets: Sequence[float]) -> list[str]:
        counts, total = self._hist[name]
        out, cum = [], 0
        for le, c in zip([*map(str, buckets), "+Inf"], counts, strict=True):
            cum += c
            out.append(f"{name}_bucket{_fmt_labels((*self.base, ('le', le)))} {_fmt(cum)}")
        out.append(f"{name}_sum{_fmt_labels(self.base)} {_fmt(total[0])}")
        out.append(f"{name}_count{_fmt_labels(self.base)} {_fmt(cum)}")
        return out
