"""Two models at once on this machine: the same generation (the installation's model, a legal
prompt, greedy) timed in one process alone, then in two processes at once — with the Settings'
threads each, and with one thread each — printing each run's time and its ratio to running
alone. Above 2.0, two generations at once take longer than the same two one after the other
(what a second test process, a second server or a second firm's request costs the first).

    .venv/bin/python bench/parallel.py [--rounds 3] [--max-tokens 32]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PROMPT = (
    "根据《数据出境安全评估办法》第四条，数据处理者向境外提供数据，有下列情形之一的，应当申报。"
    * 20
)


def _generate(model: str, threads: int, rounds: int, max_tokens: int, out: mp.Queue) -> None:
    from llama_cpp import Llama

    llm = Llama(model_path=model, n_ctx=2048, n_threads=threads, verbose=False)
    start = time.perf_counter()
    for _ in range(rounds):
        llm(PROMPT, max_tokens=max_tokens, temperature=0.0)
        llm.reset()
    out.put(time.perf_counter() - start)


def timed(model: str, processes: int, threads: int, rounds: int, max_tokens: int) -> float:
    """The slowest process's time when `processes` run the generation at once."""
    out: mp.Queue = mp.Queue()
    procs = [
        mp.Process(target=_generate, args=(model, threads, rounds, max_tokens, out))
        for _ in range(processes)
    ]
    for p in procs:
        p.start()
    times = [out.get() for _ in procs]
    for p in procs:
        p.join()
    return max(times)


def main() -> int:
    from app.config import get_settings

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=32)
    args = parser.parse_args()
    settings = get_settings()
    model = str(settings.resolved_model_path)
    threads = settings.n_threads
    alone = timed(model, 1, threads, args.rounds, args.max_tokens)
    print(f"one process alone, {threads} threads:   {alone:6.1f} s  (1.00)")
    for each in (threads, 1):
        both = timed(model, 2, each, args.rounds, args.max_tokens)
        print(f"two at once, {each} thread(s) each:   {both:6.1f} s  ({both / alone:.2f} of alone)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
