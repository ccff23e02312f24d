"""`lexspec bench` output: the verdict (is speculation worth it for this workload?), JSON,
a markdown table and a PNG chart.

The verdict follows how speculative decoding behaves: it pays off when the draft is often
accepted and the server is latency-bound (low concurrency, long outputs); under high
concurrency the GPU/CPU is compute-bound and the gain shrinks or turns into a loss.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.ops.loadbench import BenchRun, LevelResult
from audit.files import private_dir, write_private

SPEEDUP_MIN = 1.10  # below this, speculation is not worth its complexity
ACCEPTANCE_MIN = 0.40


@dataclass(frozen=True)
class Verdict:
    suited: bool
    summary_zh: str
    summary_en: str
    reasons: tuple[tuple[str, str], ...]  # (zh, en) with the numbers behind the verdict


def _pairs(run: BenchRun) -> list[tuple[LevelResult, LevelResult]]:
    a = {r.concurrency: r for r in run.levels if r.target == run.a}
    b = {r.concurrency: r for r in run.levels if r.target == run.b}
    return [(a[c], b[c]) for c in sorted(a) if c in b]


def _ratio(x: float | None, y: float | None) -> float | None:
    return x / y if x is not None and y else None


def verdict(run: BenchRun) -> Verdict:
    """Speculative (A) vs plain (B): per-request speed at low load, throughput at the highest."""
    pairs = _pairs(run)
    if not pairs:
        return Verdict(False, "没有可比较的结果", "no comparable results", ())
    low_a, low_b = pairs[0]
    high_a, high_b = pairs[-1]
    speed_low = _ratio(low_a.mean_request_tok_s, low_b.mean_request_tok_s)
    thr_high = _ratio(high_a.throughput_tok_s, high_b.throughput_tok_s)
    acc = low_a.acceptance_rate
    reasons: list[tuple[str, str]] = []
    if speed_low is not None:
        reasons.append((
            f"并发 {low_a.concurrency} 时单请求速度 {speed_low:.2f}×（{low_a.mean_request_tok_s:.1f} 对 {low_b.mean_request_tok_s:.1f} tok/s）",
            f"per-request speed at concurrency {low_a.concurrency}: {speed_low:.2f}× ({low_a.mean_request_tok_s:.1f} vs {low_b.mean_request_tok_s:.1f} tok/s)",
        ))  # fmt: skip
    if acc is not None:
        reasons.append((f"草稿接受率 {acc:.0%}", f"draft acceptance {acc:.0%}"))
    if thr_high is not None and len(pairs) > 1:
        reasons.append((
            f"并发 {high_a.concurrency} 时吞吐 {thr_high:.2f}×（{high_a.throughput_tok_s:.1f} 对 {high_b.throughput_tok_s:.1f} tok/s）",
            f"throughput at concurrency {high_a.concurrency}: {thr_high:.2f}× ({high_a.throughput_tok_s:.1f} vs {high_b.throughput_tok_s:.1f} tok/s)",
        ))  # fmt: skip
    errors = sum(r.errors for r in run.levels)
    if errors:
        reasons.append((f"共 {errors} 个请求出错", f"{errors} requests failed"))
    suited = (
        speed_low is not None
        and speed_low >= SPEEDUP_MIN
        and (acc is None or acc >= ACCEPTANCE_MIN)
    )
    if not suited:
        zh, en = (
            "不适合：推测解码在此负载下没有明显收益",
            "not suited: speculation gives no clear gain here",
        )
    elif thr_high is not None and len(pairs) > 1 and thr_high < 1.0:
        zh = "低并发时适合；高并发时收益消失——按负载启用推测解码"
        en = "suited at low concurrency only; the gain is gone under high load — make it load-dependent"
    else:
        zh, en = (
            "适合：接受率高、以延迟为主的负载",
            "suited: high acceptance, latency-bound workload",
        )
    return Verdict(suited, zh, en, tuple(reasons))


def to_json(run: BenchRun, v: Verdict) -> dict[str, Any]:
    return {
        "a": run.a,
        "b": run.b,
        "max_tokens": run.max_tokens,
        "identical_output_rate": run.identical_rate,
        "stopped_by_time_budget": run.stopped_by_budget,
        "levels": [r.to_dict() for r in run.levels],
        "k_sweep": [{"k": k.k, **k.level.to_dict()} for k in run.k_sweep],
        "verdict": {"suited": v.suited, "summary_zh": v.summary_zh, "summary_en": v.summary_en,
                    "reasons": [{"zh": zh, "en": en} for zh, en in v.reasons]},
    }  # fmt: skip


def _f(x: float | None, fmt: str = ".2f") -> str:
    return "–" if x is None else format(x, fmt)


def _ms(x: float | None) -> str:
    return "–" if x is None else f"{x * 1000:.0f}"


def _row(label: str, r: LevelResult) -> str:
    return (
        f"| {label} | {r.concurrency} | {r.requests} | {r.errors} | {_f(r.throughput_tok_s, '.1f')} "
        f"| {_f(r.mean_request_tok_s, '.1f')} | {_ms(r.ttft_p50_s)} | {_ms(r.itl_p50_s)} "
        f"| {_f(r.latency_p50_s)} | {_f(r.latency_p95_s)} | {_f(r.acceptance_rate, '.0%')} "
        f"| {_f(r.mean_acceptance_length)} |"
    )


def to_markdown(run: BenchRun, v: Verdict) -> str:
    head = (
        "| endpoint | concurrency | requests | errors | throughput tok/s | request tok/s "
        "| TTFT p50 ms | ITL p50 ms | latency p50 s | latency p95 s | acceptance | mean acc. len |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head, *(_row(r.target, r) for r in run.levels)]
    if run.k_sweep:
        lines += ["", "K sweep (embedded server, n-gram, concurrency 1):", "", head]
        lines += [_row(f"K={k.k}", k.level) for k in run.k_sweep]
    same = "–" if run.identical_rate is None else f"{run.identical_rate:.0%}"
    lines += ["", f"Identical output at temperature 0 (A vs B): {same}", ""]
    lines.append(f"**Verdict / 结论:** {v.summary_zh} / {v.summary_en}")
    lines += [f"- {zh} / {en}" for zh, en in v.reasons]
    if run.stopped_by_budget:
        lines.append(
            "- 时间预算用完，后续并发级别未运行 / time budget reached; higher levels skipped"
        )
    return "\n".join(lines) + "\n"


def to_png(run: BenchRun, path: Path) -> None:
    """Throughput and P95 latency against concurrency for both endpoints (+ the K sweep)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = 3 if run.k_sweep else 2
    fig, axes = plt.subplots(1, panels, figsize=(5 * panels, 4))
    for name in (run.a, run.b):
        rs = sorted((r for r in run.levels if r.target == name), key=lambda r: r.concurrency)
        xs = [r.concurrency for r in rs]
        axes[0].plot(xs, [r.throughput_tok_s for r in rs], marker="o", label=name)
        axes[1].plot(xs, [r.latency_p95_s or 0 for r in rs], marker="o", label=name)
    levels = sorted({r.concurrency for r in run.levels}) or [1]
    axes[0].set(title="throughput", xlabel="concurrency", ylabel="tok/s", xscale="log")
    axes[1].set(title="P95 latency", xlabel="concurrency", ylabel="s", xscale="log")
    if run.k_sweep:
        axes[2].bar(
            [str(k.k) for k in run.k_sweep], [k.level.mean_request_tok_s or 0 for k in run.k_sweep]
        )
        axes[2].set(title="K sweep", xlabel="num_speculative_tokens", ylabel="request tok/s")
    for ax in axes[:2]:
        ax.minorticks_off()
        ax.set_xticks(levels, [str(c) for c in levels])
        ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_outputs(run: BenchRun, out_dir: Path) -> dict[str, Path]:
    """bench.json, bench.md and bench.png in out_dir."""
    v = verdict(run)
    private_dir(out_dir)
    paths = {
        "json": out_dir / "bench.json",
        "md": out_dir / "bench.md",
        "png": out_dir / "bench.png",
    }
    write_private(paths["json"], json.dumps(to_json(run, v), ensure_ascii=False, indent=2).encode())
    write_private(paths["md"], to_markdown(run, v).encode("utf-8"))
    to_png(run, paths["png"])
    return paths
