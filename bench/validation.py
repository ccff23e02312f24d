"""Validation speed: one check of a ~20,000-character draft, and re-checking while it streams.

Run: .venv/bin/python bench/validation.py [--chars 20000] [--chunk 8] [--repeat 50]

Wall-clock and process CPU time are both reported: on a shared machine the wall-clock median
includes waiting for a core, the CPU time is the work the check itself does.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.validation import check, load_catalogue  # noqa: E402
from app.validation.catalogue import Catalogue  # noqa: E402
from app.validation.numerals import int_to_chinese  # noqa: E402

GUIDE = ROOT / "tests" / "unit" / "validation_fixtures" / "guide_ok.md"
SECTIONS = ("【适用情形】", "【材料清单】", "【常见错误】")


def realistic_draft(chars: int) -> str:
    """The correct filing guide's body repeated as chapters (第一章, 第二章 ...) up to `chars`."""
    title, _, body = GUIDE.read_text(encoding="utf-8").partition("\n")
    parts, n = [title, ""], 0
    while sum(len(p) + 1 for p in parts) < chars:
        n += 1
        parts += [f"第{int_to_chinese(n)}章 第{int_to_chinese(n)}类数据出境场景", body]
    return "\n".join(parts)[:chars]


def timed(text: str, catalogue: Catalogue) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one check."""
    wall, cpu = time.perf_counter(), time.process_time()
    check(text, required_sections=SECTIONS, catalogue=catalogue)
    return time.perf_counter() - wall, time.process_time() - cpu


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def medians(samples: list[tuple[float, float]]) -> str:
    wall = statistics.median(s[0] for s in samples)
    cpu = statistics.median(s[1] for s in samples)
    return f"median {ms(wall)} wall / {ms(cpu)} CPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chars", type=int, default=20_000)
    parser.add_argument("--chunk", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    catalogue = load_catalogue()
    text = realistic_draft(args.chars)
    result = check(text, required_sections=SECTIONS, catalogue=catalogue)  # warm caches
    print(
        f"draft: {len(text)} chars, {len(result.citations)} citations, "
        f"{len(result.findings)} findings"
    )
    runs = [timed(text, catalogue) for _ in range(args.repeat)]
    walls = sorted(r[0] for r in runs)
    print(
        f"full check x{args.repeat}: {medians(runs)}, "
        f"p95 {ms(walls[int(0.95 * (len(walls) - 1))])} wall, min {ms(walls[0])} wall"
    )
    for chunk in (args.chunk, 200):
        ends = range(chunk, len(text) + chunk, chunk)
        per_check = [timed(text[:end], catalogue) for end in ends]
        tail = per_check[-max(1, len(per_check) // 20) :]  # the last 5% of the stream
        total_wall = sum(s[0] for s in per_check)
        total_cpu = sum(s[1] for s in per_check)
        print(
            f"streaming, re-check every {chunk} chars: {len(per_check)} checks, "
            f"total {total_wall:.2f} s wall / {total_cpu:.2f} s CPU; per check over the stream "
            f"{medians(per_check)}; at the end (last {len(tail)}) {medians(tail)}"
        )


if __name__ == "__main__":
    main()
