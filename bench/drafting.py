"""How a draft is written, with speculation on and off, side by side in one run.

For each document type × fact set (bench/drafting_cases.yaml: the type's example plus four
more) × way of writing (outline parts written `assemble` | `adapt` | `write`, and free-form) ×
speculation (one embedded server per mode, all started at once; each draft is sent to every
server in turn, so the shared CPU's load hits every arm alike), one draft through the draft
service's door (app.drafting.service.draft, unrecorded: record=False), as the page and
`lexspec draft` make them. Reports per (speculation, writing, type): drafts with zero error
findings, the share of generated parts that passed the prose gates (the rest fell back to their
clause), tokens, drafted/accepted tokens, decode speed, TTFT of the first and later parts,
prefix-cache hits and total time; then, per way of writing, each speculative arm's decode speed
over the plain arm's and whether its text is identical (temperature 0 by default).

    .venv/bin/python bench/drafting.py --part-max-tokens 48 --free-max-tokens 256
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from app.config import EndpointConfig  # noqa: E402
from app.domain import PART_WRITINGS  # noqa: E402
from app.drafting.service import DraftRequest, draft  # noqa: E402
from app.knowledge import Knowledge  # noqa: E402
from app.llm.client import OpenAIClient  # noqa: E402
from app.ops import process  # noqa: E402
from app.prompts import load_library  # noqa: E402
from app.serving.drafter_registry import DEFAULT_DRAFT_TOKENS  # noqa: E402

CASES = REPO / "bench" / "drafting_cases.yaml"


GENERATED = ("adapted", "model", "clause", "placeholder")  # a part the model was asked to write


@dataclass(frozen=True)
class Row:
    spec: str
    mode: str  # "free-form", or the outline's way of writing: assemble | adapt | write
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
    parts: int  # generated parts (asked of the model, or assembled from a clause)
    passed: int  # of which are what they say: the model's prose passed every gate (adapt,
    # write), or the clause as written (assemble); a fallback or a placeholder is not
    draft_tokens: int
    accepted: int
    decode_tokens: int
    decode_s: float
    text: str


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
              max_tokens: int, temperature: float) -> Row:  # fmt: skip
    client = OpenAIClient(EndpointConfig(base_url=url))
    params = replace(doc.defaults, max_tokens=max_tokens, seed=case, temperature=temperature)
    outline = mode != "free-form"
    request = DraftRequest(
        doc, values, spec, params=params, mode="outline" if outline else "free-form",
        writing=next((w for w in PART_WRITINGS if w == mode), None),
        knowledge=Knowledge(REPO / "prompts"),
    )  # fmt: skip
    hits, queries = (
        metric(url, "vllm:prefix_cache_hits_total"),
        metric(url, "vllm:prefix_cache_queries_total"),
    )
    # the bench measures the servers: its drafts go through the door unrecorded
    outcome = draft(None, request, client=client, record=False).outcome
    parts, stats = outcome.parts, outcome.stats
    later = [p.stats.ttft_s for p in parts[1:] if p.stats.ttft_s is not None]
    first = parts[0].stats.ttft_s if parts else stats.ttft_s
    errors = (
        sum(1 for f in outcome.check.findings if f.severity == "error") if outcome.check else -1
    )
    origins = [o for o in outcome.provenance if o.source in GENERATED]
    return Row(
        spec, mode, doc.id, case, str(outcome.status), errors, stats.completion_tokens,
        first, statistics.mean(later) if later else None, stats.total_s,
        metric(url, "vllm:prefix_cache_hits_total") - hits,
        metric(url, "vllm:prefix_cache_queries_total") - queries, len(outcome.marks),
        len(origins), sum(o.source in ("adapted", "model", "clause") and not o.gates for o in origins),
        stats.draft_tokens or 0, stats.accepted_tokens or 0, stats.decode_tokens or 0,
        stats.decode_s or 0.0, outcome.text,
    )  # fmt: skip


def _mean(values: list[float | None]) -> float | None:
    clean = [v for v in values if v is not None]
    return statistics.mean(clean) if clean else None


def _f(value: float | None, fmt: str = "{:.2f}") -> str:
    return "—" if value is None else fmt.format(value)


def _rate(group: list[Row]) -> float | None:
    seconds = sum(r.decode_s for r in group)
    return sum(r.decode_tokens for r in group) / seconds if seconds else None


def table(rows: list[Row]) -> str:
    head = ("| speculation | writing | document type | drafts | zero errors | parts passing gates "
            "| tokens | accepted/drafted | decode tok/s | TTFT first s | TTFT later s "
            "| prefix cache hits | total s |")  # fmt: skip
    lines = [head, "|" + "---|" * 13]
    keys = sorted({(r.spec, r.mode, r.doc_type) for r in rows})
    for key in [*keys, *sorted({(r.spec, r.mode, "all") for r in rows})]:
        group = [r for r in rows if (r.spec, r.mode) == key[:2] and key[2] in ("all", r.doc_type)]
        hits = sum(r.cache_hits for r in group) / max(1.0, sum(r.cache_queries for r in group))
        zero = sum(r.errors == 0 for r in group) / len(group)
        parts = sum(r.parts for r in group)
        passed = f"{sum(r.passed for r in group) / parts:.0%}" if parts else "—"
        drafted = sum(r.draft_tokens for r in group)
        accepted = f"{sum(r.accepted for r in group) / drafted:.0%}" if drafted else "—"
        lines.append(
            f"| {key[0]} | {key[1]} | {key[2]} | {len(group)} | {zero:.0%} | {passed} "
            f"| {_f(_mean([float(r.tokens) for r in group]), '{:.0f}')} | {accepted} "
            f"| {_f(_rate(group), '{:.1f}')} | {_f(_mean([r.ttft_first for r in group]))} "
            f"| {_f(_mean([r.ttft_later for r in group]))} | {hits:.0%} "
            f"| {_f(_mean([r.total_s for r in group]), '{:.1f}')} |"
        )
    return "\n".join(lines)


def side_by_side(rows: list[Row]) -> str:
    """Per drafter, per way of writing: the share of generated parts that are what they say
    (passed every gate, or the clause as written) and the decode speed, in one row."""
    modes = [m for m in (*PART_WRITINGS, "free-form") if any(r.mode == m for r in rows)]
    head = " | ".join(f"{m} passing | {m} tok/s" for m in modes)
    lines = [f"| speculation | {head} |", "|---|" + "---|---|" * len(modes)]
    for spec in sorted({r.spec for r in rows}):
        cells = []
        for mode in modes:
            group = [r for r in rows if (r.spec, r.mode) == (spec, mode)]
            parts = sum(r.parts for r in group)
            share = f"{sum(r.passed for r in group) / parts:.0%}" if parts else "—"
            cells.append(f"{share} | {_f(_rate(group), '{:.1f}')}")
        lines.append(f"| {spec} | {' | '.join(cells)} |")
    return "\n".join(lines)


def _per_pass(group: list[Row]) -> float | None:
    """Seconds per verify pass of a speculative arm: each pass yields its accepted tokens + 1."""
    passes = sum(r.decode_tokens - r.accepted for r in group)
    seconds = sum(r.decode_s for r in group)
    return seconds / passes if passes > 0 and seconds > 0 else None


def ratios(rows: list[Row], plain: str, k: int) -> str:
    """Per way of writing: each speculative arm's acceptance and decode speed over the plain
    arm's on the same drafts, the ceiling its verify cost allows in this run (every one of K
    proposals accepted: (K+1) tokens per pass, at the measured cost of a pass over a plain
    token's), and how many of its drafts have exactly the plain arm's text."""
    lines = [
        "| writing | speculation | accepted/drafted | tokens per pass | decode speedup vs plain "
        "| verify pass / plain token | ceiling (K+1)/cost | identical text |",
        "|---|---|---|---|---|---|---|---|",
    ]
    base = {(r.mode, r.doc_type, r.case): r for r in rows if r.spec == plain}
    for mode in sorted({r.mode for r in rows}):
        for spec in sorted({r.spec for r in rows} - {plain}):
            group = [r for r in rows if (r.spec, r.mode) == (spec, mode)]
            pairs = [(r, base[(r.mode, r.doc_type, r.case)]) for r in group
                     if (r.mode, r.doc_type, r.case) in base]  # fmt: skip
            mine, theirs = _rate([r for r, _ in pairs]), _rate([b for _, b in pairs])
            speedup = mine / theirs if mine and theirs else None
            drafted = sum(r.draft_tokens for r, _ in pairs)
            accepted = f"{sum(r.accepted for r, _ in pairs) / drafted:.0%}" if drafted else "—"
            per_pass = _per_pass([r for r, _ in pairs])
            passes = sum(r.decode_tokens - r.accepted for r, _ in pairs)
            per_pass_tokens = sum(r.decode_tokens for r, _ in pairs) / passes if passes else None
            cost = per_pass * theirs if per_pass and theirs else None
            ceiling = (k + 1) / cost if cost else None
            same = sum(r.text == b.text for r, b in pairs)
            lines.append(
                f"| {mode} | {spec} | {accepted} | {_f(per_pass_tokens)} | {_f(speedup)}× "
                f"| {_f(cost)} | {_f(ceiling)}× | {same}/{len(pairs)} |"
            )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=5, help="fact sets per type (at most 5)")
    ap.add_argument("--part-max-tokens", type=int, default=48, help="cap on each outline part")
    ap.add_argument("--free-max-tokens", type=int, default=256, help="free-form max_tokens")
    ap.add_argument("--spec", default="off,retrieval", help="speculation modes; the first is plain")
    ap.add_argument("--writing", default="assemble,adapt,write,free-form",
                    help="ways of writing: outline parts assemble|adapt|write, and free-form")  # fmt: skip
    ap.add_argument("--temperature", type=float, default=0.0)
    ap.add_argument("--k", type=int, default=DEFAULT_DRAFT_TOKENS, help="proposals per pass (K)")
    ap.add_argument("--types", default="", help="only these document types (comma-separated)")
    args = ap.parse_args()
    library = load_library(REPO / "prompts")
    wanted = [t for t in args.types.split(",") if t] or sorted(library.types)
    specs = args.spec.split(",")
    rows: list[Row] = []
    started = time.monotonic()
    with ExitStack() as servers:
        urls = {
            spec: servers.enter_context(process.embedded_server(
                "--speculative", spec, "--num-speculative-tokens", str(args.k),
                log=Path(tempfile.gettempdir()) / f"bench-drafting-{spec}.log",
            ))
            for spec in specs
        }  # fmt: skip
        for type_id in wanted:
            doc = library.types[type_id]
            for case, values in enumerate(fact_sets(doc, args.cases)):
                for mode in args.writing.split(","):
                    cap = args.free_max_tokens if mode == "free-form" else args.part_max_tokens
                    for spec, url in urls.items():  # every arm in turn, the same draft
                        row = one_draft(url, spec, doc, case, values, mode, cap, args.temperature)
                        rows.append(row)
                        print(replace(row, text=f"{len(row.text)} chars"), file=sys.stderr,
                              flush=True)  # fmt: skip
    print(table(rows))
    print()
    print(side_by_side(rows))
    print()
    print(ratios(rows, specs[0], args.k))
    print(f"\n{len(rows)} drafts in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
