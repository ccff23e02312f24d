"""Prompt snapshots on the embedded server: the same drafts in the same order sent to a server
that keeps none (LEXSPEC_PROMPT_CACHE_MB=0: only the one cached sequence is reused), to one that
keeps them in memory (the default budget) and to one that keeps them as files
(LEXSPEC_PROMPT_CACHE_DIR), each draft to all three in turn. The order asks type A, type B, A
again (a regenerate, or a second matter of the same type after another document), then A once
every server has been restarted: printed per draft, each server's time and prefix-cache hits,
and the ratios of their times to the first's.

    .venv/bin/python bench/prompt_snapshots.py [--types pia-report,self-assessment-report]
        [--part-max-tokens 8]
"""

from __future__ import annotations

import argparse
import os
import shutil
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

MB = str(Settings.model_fields["prompt_cache_mb"].default)
ARMS = {"none": {"LEXSPEC_PROMPT_CACHE_MB": "0"}, "memory": {"LEXSPEC_PROMPT_CACHE_MB": MB},
        "files": {"LEXSPEC_PROMPT_CACHE_MB": MB}}  # fmt: skip


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
    files = Path(tempfile.mkdtemp(prefix="bench-snapshots-"))
    base = {k: v for k, v in os.environ.items() if k != "LEXSPEC_PROMPT_CACHE_DIR"}
    env = {arm: {**base, **extra} for arm, extra in ARMS.items()}
    env["files"]["LEXSPEC_PROMPT_CACHE_DIR"] = str(files)

    def start(arm: str, servers: ExitStack) -> str:
        log = Path(tempfile.gettempdir()) / f"bench-snapshots-{arm}.log"
        server = process.embedded_server("--speculative", "off", log=log, env=env[arm])
        return servers.enter_context(server)

    steps = [(first, False), (second, False), (first, False), (first, True)]
    totals = dict.fromkeys(ARMS, 0.0)
    print(f"{'draft':<34}" + "".join(f"{arm + ': s, hits':>22}" for arm in ARMS)
          + "   memory/none files/none")  # fmt: skip
    with ExitStack() as outer:
        outer.callback(shutil.rmtree, files, ignore_errors=True)
        stacks = {arm: outer.enter_context(ExitStack()) for arm in ARMS}
        urls = {arm: start(arm, stacks[arm]) for arm in ARMS}
        for n, (type_id, restart) in enumerate(steps, 1):
            if restart:  # every server stopped and started again: only files are left
                for arm in ARMS:
                    stacks[arm].close()
                    urls[arm] = start(arm, stacks[arm])
            row = {arm: one_draft(url, knowledge, type_id, args.part_max_tokens)
                   for arm, url in urls.items()}  # fmt: skip
            for arm, (seconds, _) in row.items():
                totals[arm] += seconds
            cells = "".join(f"{s:>13.1f} {h:>8.0f}" for s, h in row.values())
            label = f"{n}. {type_id}" + (" (restarted)" if restart else "")
            none = row["none"][0]
            print(f"{label:<34}{cells}   {row['memory'][0] / none:>11.2f} "
                  f"{row['files'][0] / none:>10.2f}")  # fmt: skip
        none = totals["none"]
        print(f"{'all four':<34}" + "".join(f"{t:>13.1f} {'':>8}" for t in totals.values())
              + f"   {totals['memory'] / none:>11.2f} {totals['files'] / none:>10.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
