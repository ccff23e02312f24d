"""Monitor data: scrape an endpoint's Prometheus `/metrics`, derive rates between two
scrapes, and turn them into advice.

The names are vLLM's (`vllm:spec_decode_num_draft_tokens`, `vllm:kv_cache_usage_perc`, ...);
the embedded server exposes the same ones, so one parser serves both. Counters appear with
a `_total` suffix; samples of one metric are summed over labels (model_name, engine).
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field

import httpx

from app.config import EndpointConfig
from app.domain import BilingualMessage
from app.llm import net

PREFIX = "vllm:"
DRAFTS = "spec_decode_num_drafts"
DRAFT_TOKENS = "spec_decode_num_draft_tokens"
ACCEPTED = "spec_decode_num_accepted_tokens"
ACCEPTED_PER_POS = "spec_decode_num_accepted_tokens_per_pos"
GEN_TOKENS = "generation_tokens"
PROMPT_TOKENS = "prompt_tokens"
KV_USAGE = "kv_cache_usage_perc"
RUNNING = "num_requests_running"
WAITING = "num_requests_waiting"
TTFT = "time_to_first_token_seconds"
ITL = "inter_token_latency_seconds"
E2E = "e2e_request_latency_seconds"
HISTOGRAMS = (TTFT, ITL, E2E)

_LINE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class Sample:
    """One line of Prometheus text: name, labels, value."""

    name: str
    labels: dict[str, str]
    value: float


@dataclass(frozen=True)
class Histogram:
    """Cumulative bucket counts (upper bound, count), summed over label sets."""

    buckets: tuple[tuple[float, float], ...] = ()
    sum: float = 0.0
    count: float = 0.0

    def minus(self, prev: Histogram | None) -> Histogram:
        """The observations made since `prev` (a counter reset gives the raw histogram)."""
        if prev is None or prev.count > self.count:
            return self
        before = dict(prev.buckets)
        buckets = tuple((le, c - before.get(le, 0.0)) for le, c in self.buckets)
        return Histogram(buckets, self.sum - prev.sum, self.count - prev.count)

    def quantile(self, q: float) -> float | None:
        """Prometheus' histogram_quantile: linear interpolation inside the bucket."""
        if self.count <= 0 or not self.buckets:
            return None
        rank = q * self.count
        lower_bound, lower_count = 0.0, 0.0
        for le, cum in self.buckets:
            if cum >= rank:
                if math.isinf(le):
                    return lower_bound
                width = cum - lower_count
                frac = (rank - lower_count) / width if width > 0 else 1.0
                return lower_bound + (le - lower_bound) * frac
            lower_bound, lower_count = le, cum
        return lower_bound


@dataclass(frozen=True)
class MetricsSnapshot:
    """What one scrape of /metrics returned (or why it failed)."""

    endpoint: str
    at: float  # time.monotonic() of the scrape
    counters: dict[str, float] = field(default_factory=dict)  # name without prefix/_total
    gauges: dict[str, float] = field(default_factory=dict)
    histograms: dict[str, Histogram] = field(default_factory=dict)
    per_pos: tuple[float, ...] = ()  # accepted tokens at draft position 0, 1, ...
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class DerivedMetrics:
    """Rates over the window between two scrapes (cumulative totals if there is no earlier one)."""

    endpoint: str
    window_s: float | None
    acceptance_rate: float | None
    mean_acceptance_length: float | None
    per_position: tuple[float, ...]
    draft_tokens: float
    gen_tokens: float
    gen_tok_s: float | None
    ttft_p50: float | None
    ttft_p95: float | None
    itl_p50: float | None
    itl_p95: float | None
    e2e_p50: float | None
    e2e_p95: float | None
    requests: float
    kv_cache_usage: float | None
    running: float | None
    waiting: float | None
    error: str | None = None


@dataclass(frozen=True)
class Advice(BilingualMessage):
    """A rule that fired, with what to do about it in both languages."""

    code: str
    severity: str  # warning | info
    message_zh: str
    message_en: str


def parse_prometheus(text: str) -> list[Sample]:
    """Parse Prometheus text exposition; comments and malformed lines are skipped.

    Not prometheus_client's parser: it does read every sample the Monitor folds (vLLM's
    colon names, labels, `_total`/`_created`/`_bucket` samples), but one malformed line makes
    it raise and lose the whole scrape, where a monitor should show what it could read; and
    it would be a dependency for twenty lines."""
    samples: list[Sample] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _LINE.match(line)
        if not m:
            continue
        try:
            value = float(m.group(4))
        except ValueError:
            continue
        labels = dict(_LABEL.findall(m.group(3) or ""))
        samples.append(Sample(m.group(1), labels, value))
    return samples


def _short(name: str) -> str:
    return name[len(PREFIX) :] if name.startswith(PREFIX) else name


def snapshot_from_text(
    text: str, *, endpoint: str = "", at: float | None = None
) -> MetricsSnapshot:
    """Fold parsed samples into counters, gauges, histograms and per-position acceptance."""
    counters: dict[str, float] = {}
    gauges: dict[str, float] = {}
    buckets: dict[str, dict[float, float]] = {}
    sums: dict[str, float] = {}
    counts: dict[str, float] = {}
    per_pos: dict[int, float] = {}
    for s in parse_prometheus(text):
        name = _short(s.name)
        if name.endswith("_created"):
            continue
        base = name.removesuffix("_total")
        if base == ACCEPTED_PER_POS:
            pos = int(s.labels.get("position", "0"))
            per_pos[pos] = per_pos.get(pos, 0.0) + s.value
        elif name.endswith("_bucket") and "le" in s.labels:
            le = float(s.labels["le"].replace("+Inf", "inf"))
            hist = buckets.setdefault(name.removesuffix("_bucket"), {})
            hist[le] = hist.get(le, 0.0) + s.value
        elif name.endswith("_sum") and name.removesuffix("_sum") in HISTOGRAMS:
            sums[name.removesuffix("_sum")] = sums.get(name.removesuffix("_sum"), 0.0) + s.value
        elif name.endswith("_count") and name.removesuffix("_count") in HISTOGRAMS:
            key = name.removesuffix("_count")
            counts[key] = counts.get(key, 0.0) + s.value
        elif name.endswith("_total"):
            counters[base] = counters.get(base, 0.0) + s.value
        else:
            gauges[name] = gauges.get(name, 0.0) + s.value
    histograms = {
        k: Histogram(tuple(sorted(b.items())), sums.get(k, 0.0), counts.get(k, 0.0))
        for k, b in buckets.items()
    }
    positions = tuple(per_pos.get(i, 0.0) for i in range(max(per_pos, default=-1) + 1))
    return MetricsSnapshot(
        endpoint,
        time.monotonic() if at is None else at,
        counters,
        gauges,
        histograms,
        positions,
    )


def metrics_url(base_url: str) -> str:
    """/metrics sits at the server root, beside /v1."""
    root = base_url.rstrip("/").removesuffix("/v1")
    return f"{root}/metrics"


def scrape(
    endpoint: EndpointConfig | str, *, name: str = "", timeout_s: float = 3.0
) -> MetricsSnapshot:
    """GET /metrics of an endpoint; a failure is returned as a snapshot with `error` set."""
    base = endpoint if isinstance(endpoint, str) else endpoint.base_url
    headers = {}
    if isinstance(endpoint, EndpointConfig) and endpoint.api_key not in ("", "not-needed"):
        headers["Authorization"] = f"Bearer {endpoint.api_key}"
    at = time.monotonic()
    try:
        resp = net.get(metrics_url(base), timeout=timeout_s, headers=headers)
        resp.raise_for_status()
    except httpx.HTTPError as exc:
        return MetricsSnapshot(name or base, at, error=f"{type(exc).__name__}: {exc}")
    return snapshot_from_text(resp.text, endpoint=name or base, at=at)


def _delta(prev: MetricsSnapshot | None, cur: MetricsSnapshot, key: str) -> float:
    now = cur.counters.get(key, 0.0)
    before = prev.counters.get(key, 0.0) if prev else 0.0
    return now - before if now >= before else now  # a reset: count from zero


def _ratio(num: float, den: float) -> float | None:
    return num / den if den > 0 else None


def derive(prev: MetricsSnapshot | None, cur: MetricsSnapshot) -> DerivedMetrics:
    """Rates between `prev` and `cur` (same endpoint); with no `prev`, totals since start."""
    usable_prev = prev if prev is not None and prev.ok else None
    drafts = _delta(usable_prev, cur, DRAFTS)
    draft_tokens = _delta(usable_prev, cur, DRAFT_TOKENS)
    accepted = _delta(usable_prev, cur, ACCEPTED)
    gen = _delta(usable_prev, cur, GEN_TOKENS)
    old_pos = usable_prev.per_pos if usable_prev else ()
    per_pos = tuple(
        max(0.0, v - (old_pos[i] if i < len(old_pos) else 0.0)) / drafts if drafts > 0 else 0.0
        for i, v in enumerate(cur.per_pos)
    )
    window = cur.at - usable_prev.at if usable_prev else None
    hists = {
        k: cur.histograms.get(k, Histogram()).minus(
            usable_prev.histograms.get(k) if usable_prev else None
        )
        for k in HISTOGRAMS
    }
    acc_rate = _ratio(accepted, draft_tokens)
    return DerivedMetrics(
        endpoint=cur.endpoint,
        window_s=window,
        acceptance_rate=acc_rate,
        mean_acceptance_length=1 + accepted / drafts if drafts > 0 else None,
        per_position=per_pos,
        draft_tokens=draft_tokens,
        gen_tokens=gen,
        gen_tok_s=gen / window if window and window > 0 else None,
        ttft_p50=hists[TTFT].quantile(0.5),
        ttft_p95=hists[TTFT].quantile(0.95),
        itl_p50=hists[ITL].quantile(0.5),
        itl_p95=hists[ITL].quantile(0.95),
        e2e_p50=hists[E2E].quantile(0.5),
        e2e_p95=hists[E2E].quantile(0.95),
        requests=hists[E2E].count,
        kv_cache_usage=cur.gauges.get(KV_USAGE),
        running=cur.gauges.get(RUNNING),
        waiting=cur.gauges.get(WAITING),
        error=cur.error,
    )


LOW_ACCEPTANCE = 0.40
KV_FULL = 0.95
MIN_DRAFT_TOKENS = 50  # below this, an acceptance rate is noise


def advice(
    derived: DerivedMetrics,
    *,
    plain: DerivedMetrics | None = None,
    num_speculative_tokens: int | None = None,
) -> list[Advice]:
    """Troubleshooting rules over one endpoint's window (and a plain endpoint's, to compare)."""
    out: list[Advice] = []
    rate = derived.acceptance_rate
    if rate is not None and derived.draft_tokens >= MIN_DRAFT_TOKENS and rate < LOW_ACCEPTANCE:
        k = (
            f" (K={num_speculative_tokens} → {max(1, num_speculative_tokens // 2)})"
            if num_speculative_tokens
            else ""
        )
        out.append(
            Advice(
                "acceptance.low",
                "warning",
                f"草稿接受率仅 {rate:.0%}（低于 40%）：减少 num_speculative_tokens{k}，"
                "或换一个与目标模型更接近的草稿模型。",
                f"Draft acceptance is only {rate:.0%} (under 40%): lower num_speculative_tokens{k}, "
                "or use a draft model closer to the target.",
            )
        )
    kv = derived.kv_cache_usage
    if kv is not None and kv >= KV_FULL:
        out.append(
            Advice(
                "kv_cache.full",
                "warning",
                f"KV 缓存使用率 {kv:.0%}：降低并发序列数（--max-num-seqs）"
                "或调低 --gpu-memory-utilization，以免请求被抢占或排队。",
                f"KV cache is {kv:.0%} full: lower the number of concurrent sequences "
                "(--max-num-seqs) or --gpu-memory-utilization, so requests are not preempted or queued.",
            )
        )
    if plain is not None and _spec_slower(derived, plain):
        load = derived.running or 0.0
        out.append(
            Advice(
                "speculation.slower",
                "warning",
                f"当前负载（运行中 {load:.0f} 个请求）下，推测解码吞吐 {derived.gen_tok_s:.1f} tok/s "
                f"低于普通解码 {plain.gen_tok_s:.1f} tok/s：关闭推测解码，或仅在低负载时启用。",
                f"At the current load ({load:.0f} running requests) speculative decoding gives "
                f"{derived.gen_tok_s:.1f} tok/s, below plain decoding's {plain.gen_tok_s:.1f} tok/s: "
                "turn speculation off, or enable it only at low load.",
            )
        )
    return out


def _spec_slower(spec: DerivedMetrics, plain: DerivedMetrics) -> bool:
    if spec.gen_tok_s is None or plain.gen_tok_s is None:
        return False
    if spec.gen_tokens < MIN_DRAFT_TOKENS or plain.gen_tokens < MIN_DRAFT_TOKENS:
        return False
    return spec.gen_tok_s < plain.gen_tok_s
