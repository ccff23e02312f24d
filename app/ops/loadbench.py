"""`lexspec bench A B`: load test two OpenAI-compatible endpoints with a legal workload.

A is the speculative arm, B the baseline. Every request streams at temperature 0; per request
we measure TTFT, inter-token gaps, output tok/s; per concurrency level the throughput, latency
percentiles, errors and (from /metrics deltas) the draft acceptance. A K sweep starts the
embedded server once per num_speculative_tokens on free ports.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

import httpx

from app.config import EndpointConfig
from app.domain import Bilingual
from app.llm import net
from app.llm.metrics_parse import derive, scrape
from app.ops import process

if TYPE_CHECKING:
    from app.prompts import Library

Messages = list[dict[str, str]]


class BenchError(ValueError):
    """Bad input (unknown endpoint, empty workload, server failed to start); bilingual."""


@dataclass(frozen=True)
class Target:
    name: str
    endpoint: EndpointConfig
    model: str


@dataclass(frozen=True)
class RequestResult:
    prompt_index: int
    ok: bool
    error: str = ""
    ttft_s: float | None = None
    total_s: float = 0.0
    completion_tokens: int = 0
    gaps: tuple[float, ...] = ()  # seconds between content chunks
    text: str = ""
    draft_tokens: int = 0  # the embedded server reports these in its last chunk (vLLM does not)
    accepted_tokens: int = 0

    @property
    def tok_s(self) -> float | None:
        gen = self.total_s - (self.ttft_s or 0.0)
        return (
            (self.completion_tokens - 1) / gen if self.completion_tokens > 1 and gen > 0 else None
        )


@dataclass(frozen=True)
class LevelResult:
    """One endpoint at one concurrency level."""

    target: str
    concurrency: int
    requests: int
    errors: int
    wall_s: float
    throughput_tok_s: float
    mean_request_tok_s: float | None
    latency_p50_s: float | None
    latency_p95_s: float | None
    ttft_p50_s: float | None
    ttft_p95_s: float | None
    itl_p50_s: float | None
    itl_p95_s: float | None
    acceptance_rate: float | None
    mean_acceptance_length: float | None
    error_samples: tuple[str, ...] = ()
    texts: dict[int, str] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("texts")
        return d


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in 0..100); None for no values."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def resolve_target(spec: str, endpoints: dict[str, EndpointConfig]) -> Target:
    """An endpoint name (from Settings.all_endpoints()), or an http(s) URL (with or without /v1)."""
    if spec in endpoints:
        name, ep = spec, endpoints[spec]
    elif spec.startswith(("http://", "https://")):
        base = spec.rstrip("/")
        name, ep = spec, EndpointConfig(base_url=base if base.endswith("/v1") else f"{base}/v1")
    else:
        known = ", ".join(endpoints)
        raise BenchError(
            str(Bilingual("未知端点", f"unknown endpoint: {spec} (known: {known}, or a URL)"))
        )
    try:
        resp = net.get(f"{ep.base_url.rstrip('/')}/models", timeout=5)
        resp.raise_for_status()
        served = [m["id"] for m in resp.json()["data"]]
    except (httpx.HTTPError, ValueError, KeyError) as exc:
        raise BenchError(
            str(Bilingual("无法连接端点", f"cannot reach endpoint {name}: {exc}"))
        ) from exc
    return Target(name, ep, ep.model or served[0])


def workload(library: Library) -> list[Messages]:
    """One chat per document type (the installation's: `ctx.knowledge.library`), filled with its
    example values (the free-form prompt, with the example's own route)."""
    from app.outline.prepare import example_route
    from app.prompts import render

    chats = [
        render(dt, dt.example_values(), route=example_route(dt, dt.example_values())).messages()
        for _, dt in sorted(library.types.items())
    ]
    if not chats:
        raise BenchError(
            str(Bilingual("提示词库为空", f"the prompt library is empty: {library.errors}"))
        )
    return chats


def _parse_chunk(line: str) -> dict[str, Any] | None:
    if not line.startswith("data:"):
        return None
    data = line[5:].strip()
    return None if data == "[DONE]" else json.loads(data)


def one_request(
    session: httpx.Client, target: Target, messages: Messages, index: int, max_tokens: int
) -> RequestResult:
    """Stream one chat completion and time it; failures come back as ok=False, never raise."""
    body = {
        "model": target.model,
        "messages": messages,
        "max_tokens": max_tokens,
        "temperature": 0,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    headers = (
        {}
        if target.endpoint.api_key in ("", "not-needed")
        else {"Authorization": f"Bearer {target.endpoint.api_key}"}
    )
    start = time.perf_counter()
    first: float | None = None
    last = start
    gaps: list[float] = []
    parts: list[str] = []
    tokens, done = 0, False
    spec: dict[str, Any] = {}
    try:
        url = f"{target.endpoint.base_url.rstrip('/')}/chat/completions"
        with session.stream("POST", url, json=body, headers=headers) as resp:
            if resp.status_code != 200:
                resp.read()
                return RequestResult(index, False, f"HTTP {resp.status_code}: {resp.text[:200]}")
            for line in resp.iter_lines():
                done = done or line.strip() == "data: [DONE]"
                chunk = _parse_chunk(line)
                if not chunk:
                    continue
                if chunk.get("usage"):
                    tokens = int(chunk["usage"].get("completion_tokens") or 0)
                spec = chunk.get("spec_decode") or spec
                delta = (chunk.get("choices") or [{}])[0].get("delta", {}).get("content")
                if delta:
                    now = time.perf_counter()
                    if first is None:
                        first = now
                    else:
                        gaps.append(now - last)
                    last = now
                    parts.append(delta)
    except (httpx.HTTPError, ValueError) as exc:
        return RequestResult(index, False, f"{type(exc).__name__}: {exc}")
    total = time.perf_counter() - start
    if not done:
        return RequestResult(index, False, "stream ended without [DONE]", total_s=total)
    ttft = first - start if first is not None else None
    return RequestResult(
        index,
        True,
        "",
        ttft,
        total,
        tokens or len(parts),
        tuple(gaps),
        "".join(parts),
        int(spec.get("draft_tokens", 0)),
        int(spec.get("accepted_tokens", 0)),
    )


def run_level(
    target: Target,
    chats: Sequence[Messages],
    *,
    concurrency: int,
    n_requests: int,
    max_tokens: int,
    deadline: float,
    on_done: Callable[[], None] = lambda: None,
) -> LevelResult:
    """n_requests (cycling over chats) with `concurrency` in flight; none started after deadline."""
    before = scrape(target.endpoint, name=target.name)
    limits = httpx.Limits(max_connections=concurrency + 2)
    timeout = httpx.Timeout(300.0, connect=5.0)
    with net.client(limits=limits, timeout=timeout) as session:

        def job(i: int) -> RequestResult | None:
            if time.monotonic() > deadline:
                return None
            result = one_request(session, target, chats[i % len(chats)], i % len(chats), max_tokens)
            on_done()
            return result

        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            results = [r for r in pool.map(job, range(n_requests)) if r is not None]
        wall = time.perf_counter() - start
    metrics = derive(before, scrape(target.endpoint, name=target.name)) if before.ok else None
    ok = [r for r in results if r.ok]
    errors = [r for r in results if not r.ok]
    speeds = [s for r in ok if (s := r.tok_s) is not None]
    gaps = [g for r in ok for g in r.gaps]
    ttfts = [r.ttft_s for r in ok if r.ttft_s is not None]
    latencies = [r.total_s for r in ok]
    return LevelResult(
        target=target.name,
        concurrency=concurrency,
        requests=len(results),
        errors=len(errors),
        wall_s=wall,
        throughput_tok_s=sum(r.completion_tokens for r in ok) / wall if wall > 0 else 0.0,
        mean_request_tok_s=statistics.fmean(speeds) if speeds else None,
        latency_p50_s=percentile(latencies, 50),
        latency_p95_s=percentile(latencies, 95),
        ttft_p50_s=percentile(ttfts, 50),
        ttft_p95_s=percentile(ttfts, 95),
        itl_p50_s=percentile(gaps, 50),
        itl_p95_s=percentile(gaps, 95),
        acceptance_rate=metrics.acceptance_rate if metrics else None,
        mean_acceptance_length=metrics.mean_acceptance_length if metrics else None,
        error_samples=tuple(r.error for r in errors[:3]),
        texts={r.prompt_index: r.text for r in ok},
    )


def concurrency_levels(max_concurrency: int, explicit: Sequence[int] = ()) -> list[int]:
    """1, 4, 16, 64, ... up to max_concurrency (or the explicit list, bounded the same way)."""
    if explicit:
        return sorted({c for c in explicit if 1 <= c <= max_concurrency})
    levels, c = [], 1
    while c <= max_concurrency:
        levels.append(c)
        c *= 4
    return levels


def identical_rate(a: LevelResult, b: LevelResult) -> float | None:
    """Share of prompts whose temperature-0 outputs are byte-identical on both endpoints."""
    common = sorted(set(a.texts) & set(b.texts))
    if not common:
        return None
    return sum(a.texts[i] == b.texts[i] for i in common) / len(common)


@contextmanager
def embedded_server(k: int, *, speculative: str = "ngram") -> Iterator[str]:
    """Start `lexspec serve --num-speculative-tokens K` on a free loopback port; yield its /v1 URL."""
    args = ("--speculative", speculative, "--num-speculative-tokens", str(k), "--fixed-k")
    try:
        with process.embedded_server(*args) as url:
            yield url
    except process.StartError as exc:
        raise BenchError(
            str(Bilingual("内置服务启动失败", f"embedded server failed to start (K={k}): {exc}"))
        ) from exc


@dataclass(frozen=True)
class KResult:
    k: int
    level: LevelResult


@dataclass(frozen=True)
class BenchRun:
    """Everything one `lexspec bench` measured."""

    a: str
    b: str
    max_tokens: int
    levels: tuple[LevelResult, ...]
    identical_rate: float | None
    k_sweep: tuple[KResult, ...] = ()
    stopped_by_budget: bool = False


Progress = Callable[[int, int, str], None]


def run_bench(
    a: Target,
    b: Target,
    chats: Sequence[Messages],
    *,
    levels: Sequence[int],
    requests_per_level: int,
    max_tokens: int,
    time_budget_s: float,
    k_values: Sequence[int] = (),
    progress: Progress = lambda done, total, label: None,
) -> BenchRun:
    """Concurrency sweep over both endpoints (A then B per level), then the optional K sweep.

    No new level starts once time_budget_s has passed since the start.
    """
    sizes = [max(c, requests_per_level) for c in levels]
    total = 2 * sum(sizes) + len(k_values) * len(chats)
    done = 0
    deadline = time.monotonic() + time_budget_s
    results: list[LevelResult] = []
    stopped = False

    def tick(label: str) -> Callable[[], None]:
        def step() -> None:
            nonlocal done
            done += 1
            progress(done, total, label)

        return step

    for c, n in zip(levels, sizes, strict=True):
        if time.monotonic() > deadline:
            stopped = True
            break
        # both arms of a level run in full (bounded by count); each gets at most the budget
        for t in (a, b):
            label = f"{t.name} c={c}"
            results.append(
                run_level(t, chats, concurrency=c, n_requests=n, max_tokens=max_tokens,
                          deadline=time.monotonic() + time_budget_s, on_done=tick(label))
            )  # fmt: skip
    first = [r for r in results if r.concurrency == (levels[0] if levels else 1)]
    same = identical_rate(first[0], first[1]) if len(first) == 2 else None
    k_results = []
    for k in k_values:
        with embedded_server(k) as url:
            target = replace(resolve_target(url, {}), name=f"K={k}")
            lvl = run_level(target, chats, concurrency=1, n_requests=len(chats), max_tokens=max_tokens,
                            deadline=time.monotonic() + max(60.0, time_budget_s), on_done=tick(f"K={k}"))  # fmt: skip
            k_results.append(KResult(k, lvl))
    progress(total, total, "done")
    return BenchRun(a.name, b.name, max_tokens, tuple(results), same, tuple(k_results), stopped)
