"""Outline vs free-form drafting on the embedded server, speculation on and off, in one run.

For each document type × fact set (bench/drafting_cases.yaml: the type's example plus four
more) × mode (outline, free-form) × speculation (off, ngram), one draft through the draft
service (app.generation.prepare_draft / start_draft), as the page and `lexspec draft` make
them. Reports per (speculation, mode, type): the share of drafts with zero error findings
(structure, numbering, citations), tokens generated, time to first token of the first part and
of the later parts (outline; they share the prefix), the prefix-cache hit rate and total time.

    .venv/bin/python bench/drafting.py --part-max-tokens 48 --free-max-tokens 256
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from app.config import EndpointConfig  # noqa: E402
from app.generation import prepare_draft, run_to_end, start_draft  # noqa: E402
from app.llm.client import OpenAIClient  # noqa: E402
from app.prompts import load_library  # noqa: E402
from app.serving import process  # noqa: E402

CASES = REPO / "bench" / "drafting_cases.yaml"


@dataclass(frozen=True)
class Row:
    spec: str
    mode: str
    doc_type: str
    case: int
    status: str
    errors: int
    tokens: int
    ttft_first: float | None
    ttft_later: float | None
    total_s: float
    cache_hits: float
    cache_queries: float
    marks: int


def metric(url: str, name: str) -> float:
    import httpx

    text = httpx.get(url.removesuffix("/v1") + "/metrics", timeout=30).text
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith(name) and not line.startswith("#")
    )


def fact_sets(doc: Any, limit: int) -> list[dict[str, str]]:
    extra = yaml.safe_load(CASES.read_text(encoding="utf-8")).get(doc.id, [])
    return [doc.example_values(), *({**doc.example_values(), **c} for c in extra)][:limit]


def one_draft(url: str, spec: str, doc: Any, case: int, values: dict[str, str], mode: str,
              max_tokens: int) -> Row:  # fmt: skip
    client = OpenAIClient(EndpointConfig(base_url=url))
    params = replace(doc.defaults, max_tokens=max_tokens, seed=case)
    prepared = prepare_draft(
        doc, values, prompts_dir=REPO / "prompts", client=client, params=params, mode=mode
    )
    hits, queries = (
        metric(url, "vllm:prefix_cache_hits_total"),
        metric(url, "vllm:prefix_cache_queries_total"),
    )
    outcome = run_to_end(start_draft(prepared, client, endpoint_name=spec))
    parts = outcome.parts
    later = [p.stats.ttft_s for p in parts[1:] if p.stats.ttft_s is not None]
    first = parts[0].stats.ttft_s if parts else outcome.stats.ttft_s
    errors = (
        sum(1 for f in outcome.check.findings if f.severity == "error") if outcome.check else -1
    )
    return Row(
        spec, mode, doc.id, case, str(outcome.status), errors, outcome.stats.completion_tokens,
        first, statistics.mean(later) if later else None, outcome.stats.total_s,
        metric(url, "vllm:prefix_cache_hits_total") - hits,
        metric(url, "vllm:prefix_cache_queries_total") - queries, len(outcome.marks),
    )  # fmt: skip


def _mean(values: list[float | None]) -> float | None:
    clean = [v for v in values if v is not None]
    return statistics.mean(clean) if clean else None


def _f(value: float | None, fmt: str = "{:.2f}") -> str:
    return "—" if value is None else fmt.format(value)


def table(rows: list[Row]) -> str:
    head = ("| speculation | mode | document type | drafts | zero errors | tokens | TTFT first s "
            "| TTFT later s | later/first | prefix cache hits | total s | guard marks |")  # fmt: skip
    lines = [head, "|" + "---|" * 12]
    keys = sorted({(r.spec, r.mode, r.doc_type) for r in rows})
    for key in [*keys, *sorted({(r.spec, r.mode, "all") for r in rows})]:
        group = [r for r in rows if (r.spec, r.mode) == key[:2] and key[2] in ("all", r.doc_type)]
        first = _mean([r.ttft_first for r in group])
        later = _mean([r.ttft_later for r in group])
        ratio = later / first if later is not None and first else None
        hits = sum(r.cache_hits for r in group) / max(1.0, sum(r.cache_queries for r in group))
        zero = sum(r.errors == 0 for r in group) / len(group)
        lines.append(
            f"| {key[0]} | {key[1]} | {key[2]} | {len(group)} | {zero:.0%} "
            f"| {_f(_mean([float(r.tokens) for r in group]), '{:.0f}')} | {_f(first)} "
            f"| {_f(later)} | {_f(ratio, '{:.0%}')} | {hits:.0%} "
            f"| {_f(_mean([r.total_s for r in group]), '{:.1f}')} "
            f"| {sum(r.marks for r in group)} |"
        )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=5, help="fact sets per type (at most 5)")
    ap.add_argument("--part-max-tokens", type=int, default=48, help="cap on each outline part")
    ap.add_argument("--free-max-tokens", type=int, default=256, help="free-form max_tokens")
    ap.add_argument("--spec", default="off,ngram", help="speculation modes, comma-separated")
    ap.add_argument("--types", default="", help="only these document types (comma-separated)")
    args = ap.parse_args()
    library = load_library(REPO / "prompts")
    wanted = [t for t in args.types.split(",") if t] or sorted(library.types)
    rows: list[Row] = []
    started = time.monotonic()
    for spec in args.spec.split(","):
        log = Path(tempfile.gettempdir()) / f"bench-drafting-{spec}.log"
        with process.embedded_server("--speculative", spec, log=log) as url:
            for type_id in wanted:
                doc = library.types[type_id]
                for case, values in enumerate(fact_sets(doc, args.cases)):
                    for mode in ("outline", "free-form"):
                        cap = args.part_max_tokens if mode == "outline" else args.free_max_tokens
                        row = one_draft(url, spec, doc, case, values, mode, cap)
                        rows.append(row)
                        print(row, file=sys.stderr, flush=True)
    print(table(rows))
    print(f"\n{len(rows)} drafts in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
