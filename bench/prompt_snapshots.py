"""Prompt snapshots on the embedded server: the same drafts in the same order sent to a server
that keeps none (LEXSPEC_PROMPT_CACHE_MB=0: only the one cached sequence is reused) and to one
that keeps them (the default budget), each draft to both in turn. The order asks type A, type B,
then A again (a regenerate, or a second matter of the same type after another document):
printed per draft, each server's time and prefix-cache hits, and the ratio of their times.

    .venv/bin/python bench/prompt_snapshots.py [--types pia-report,self-assessment-report]
        [--part-max-tokens 8]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from app.config import EndpointConfig, Settings  # noqa: E402
from app.drafting.service import DraftRequest, draft  # noqa: E402
from app.knowledge import Knowledge  # noqa: E402
from app.llm.client import OpenAIClient  # noqa: E402
from app.ops import process  # noqa: E402
from bench.drafting import metric  # noqa: E402

ARMS = {"no snapshots": "0", "snapshots": str(Settings.model_fields["prompt_cache_mb"].default)}


def one_draft(url: str, knowledge: Knowledge, type_id: str, max_tokens: int) -> tuple[float, float]:
    """Seconds for the type's example drafted in `adapt` at temperature 0, and prefix-cache hits."""
    doc = knowledge.types[type_id]
    params = replace(doc.defaults, max_tokens=max_tokens, temperature=0.0, seed=0)
    request = DraftRequest(doc, doc.example_values(), "", params=params, mode="outline",
                           writing="adapt", knowledge=knowledge)  # fmt: skip
    hits = metric(url, "vllm:prefix_cache_hits_total")
    start = time.perf_counter()
    draft(None, request, client=OpenAIClient(EndpointConfig(base_url=url)), record=False)
    return time.perf_counter() - start, metric(url, "vllm:prefix_cache_hits_total") - hits


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--types", default="pia-report,self-assessment-report", help="types A,B")
    ap.add_argument("--part-max-tokens", type=int, default=8, help="cap on each adapted part")
    args = ap.parse_args()
    first, second = args.types.split(",")
    knowledge = Knowledge(REPO / "prompts")
    with ExitStack() as servers:
        urls = {
            arm: servers.enter_context(process.embedded_server(
                "--speculative", "off",
                log=Path(tempfile.gettempdir()) / f"bench-snapshots-{mb}.log",
                env={**os.environ, "LEXSPEC_PROMPT_CACHE_MB": mb},
            ))
            for arm, mb in ARMS.items()
        }  # fmt: skip
        totals = dict.fromkeys(ARMS, 0.0)
        print(f"{'draft':<32}" + "".join(f"{arm + ' s, hits':>26}" for arm in ARMS) + "   ratio")
        for n, type_id in enumerate((first, second, first), 1):
            row = {arm: one_draft(url, knowledge, type_id, args.part_max_tokens)
                   for arm, url in urls.items()}  # fmt: skip
            for arm, (seconds, _) in row.items():
                totals[arm] += seconds
            cells = "".join(f"{s:>17.1f} {h:>8.0f}" for s, h in row.values())
            base, kept = (row[arm][0] for arm in ARMS)
            print(f"{f'{n}. {type_id}':<32}{cells}   {kept / base:.2f}")
        base, kept = totals.values()
        print(f"{'all three':<32}" + "".join(f"{t:>17.1f} {'':>8}" for t in totals.values())
              + f"   {kept / base:.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
