"""Validation speed: one check of a ~20,000-character draft, and re-checking while it streams;
and the precision / recall of each content capability (calibration.CAPABILITIES: mismatch, part,
renumbered, superseded, part_missing, exemption, in_force) on the labelled set
tests/unit/validation_fixtures/citation_claims.yaml, and of each class of the checks on human
text (calibration.CASE_CLASSES) on tests/unit/validation_fixtures/human_claims.yaml.

Run: .venv/bin/python bench/validation.py [--chars 20000] [--chunk 8] [--repeat 50] [--calibrate]

Each full-check figure is printed twice: with the statute texts (content matching included) and
with an empty text store (the check as it was before content matching, the old figure).

Wall-clock and process CPU time are both reported: on a shared machine the wall-clock median
includes waiting for a core, the CPU time is the work the check itself does.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.commands.check import format_text  # noqa: E402
from app.validation import (  # noqa: E402
    check,
    load_catalogue,
    statements,
)
from app.validation import content as content_stage  # noqa: E402
from app.validation.calibration import (  # noqa: E402
    CAPABILITIES,
    CASE_CLASSES,
    evaluate,
    evaluate_cases,
    grid,
    load_cases,
    load_claims,
)
from app.validation.catalogue import Catalogue  # noqa: E402
from app.validation.numerals import int_to_chinese  # noqa: E402
from app.validation.texts import TextStore, load_texts  # noqa: E402

FIXTURES = ROOT / "tests" / "unit" / "validation_fixtures"
GUIDE = FIXTURES / "guide_ok.md"
CLAIMS = FIXTURES / "citation_claims.yaml"
HUMAN = FIXTURES / "human_claims.yaml"
SECTIONS = ("【适用情形】", "【材料清单】", "【常见错误】")
NO_TEXTS = TextStore({})
TODAY = dt.date.today()  # the day the benchmark checks citations on


def realistic_draft(chars: int) -> str:
    """The correct filing guide's body repeated as chapters (第一章, 第二章 ...) up to `chars`."""
    title, _, body = GUIDE.read_text(encoding="utf-8").partition("\n")
    parts, n = [title, ""], 0
    while sum(len(p) + 1 for p in parts) < chars:
        n += 1
        parts += [f"第{int_to_chinese(n)}章 第{int_to_chinese(n)}类数据出境场景", body]
    return "\n".join(parts)[:chars]


NOTE = "企业应当结合自身业务场景梳理数据处理活动，明确数据类别、数量与出境路径，并保存相关记录以备核查。"


def claims_draft(chars: int) -> str:
    """The labelled citing sentences, each followed by a paragraph of plain prose, up to
    `chars`: about one citation per 200 characters (~100 in 20,000), every one with a claim."""
    sentences = [c.text for c in load_claims(CLAIMS)]
    parts, n = ["数据合规意见书", ""], 0
    while sum(len(p) + 1 for p in parts) < chars:
        n += 1
        parts.append(f"第{int_to_chinese(n)}章 法律依据")
        for i in range(5):
            parts += [sentences[(n * 5 + i) % len(sentences)], NOTE * 2]
    return "\n".join(parts)[:chars].rpartition("\n")[0]


def timed(
    text: str, catalogue: Catalogue, texts: TextStore | None = None, cold: bool = False
) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one check; `cold` forgets every scored claim first."""
    if cold:
        content_stage._ASSESSED.clear()
        statements._PIECES.clear()
        content_stage._JUDGED.clear()
    wall, cpu = time.perf_counter(), time.process_time()
    check(text, required_sections=SECTIONS, catalogue=catalogue, doc_date=TODAY, texts=texts)
    return time.perf_counter() - wall, time.process_time() - cpu


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def medians(samples: list[tuple[float, float]]) -> str:
    wall = statistics.median(s[0] for s in samples)
    cpu = statistics.median(s[1] for s in samples)
    return f"median {ms(wall)} wall / {ms(cpu)} CPU"


def full_checks(name: str, text: str, catalogue: Catalogue, repeat: int) -> None:
    result = check(text, required_sections=SECTIONS, catalogue=catalogue, doc_date=TODAY)  # warm
    print(
        f"{name}: {len(text)} chars, {len(result.citations)} citations, "
        f"{len(result.findings)} findings"
    )
    for label, texts, cold in (
        ("with statute texts, claims scored afresh", None, True),
        ("with statute texts, claims remembered", None, False),
        ("without statute texts (the old check)", NO_TEXTS, False),
    ):
        runs = [timed(text, catalogue, texts, cold) for _ in range(repeat)]
        walls = sorted(r[0] for r in runs)
        print(
            f"  full check x{repeat} {label}: {medians(runs)}, "
            f"p95 {ms(walls[int(0.95 * (len(walls) - 1))])} wall"
        )


def text_report(text: str, catalogue: Catalogue) -> None:
    """`lexspec check --format text`'s report (line:col per finding) of the draft repeated to
    about 1 MB: its cost beyond the check itself, which rescanning per finding made quadratic."""
    big = "\n".join([text] * max(1, 1_000_000 // max(1, len(text))))
    result = check(
        big, required_sections=SECTIONS, catalogue=catalogue, doc_date=TODAY, texts=NO_TEXTS
    )
    wall, cpu = time.perf_counter(), time.process_time()
    format_text(big, result, "zh")
    print(
        f"  text report of {len(big)} chars, {len(result.findings)} findings: "
        f"{ms(time.perf_counter() - wall)} wall / {ms(time.process_time() - cpu)} CPU"
    )


def streaming(text: str, catalogue: Catalogue, chunk: int) -> None:
    ends = range(chunk, len(text) + chunk, chunk)
    per_check = [timed(text[:end], catalogue) for end in ends]
    tail = per_check[-max(1, len(per_check) // 20) :]  # the last 5% of the stream
    total_wall = sum(s[0] for s in per_check)
    total_cpu = sum(s[1] for s in per_check)
    print(
        f"  streaming, re-check every {chunk} chars: {len(per_check)} checks, "
        f"total {total_wall:.2f} s wall / {total_cpu:.2f} s CPU; per check over the stream "
        f"{medians(per_check)}; at the end (last {len(tail)}) {medians(tail)}"
    )


def accuracy(catalogue: Catalogue, calibrate: bool) -> None:
    claims, store = load_claims(CLAIMS), load_texts()
    print(f"labelled set: {len(claims)} citing sentences")
    for capability, (code, _) in CAPABILITIES.items():
        scores = evaluate(claims, catalogue, store, capability=capability)
        print(
            f"  {capability} ({code}): precision {scores.precision:.3f}, recall {scores.recall:.3f} "
            f"(tp {scores.true_pos}, fp {scores.false_pos}, fn {scores.false_neg})"
        )
        for miss in scores.misses:
            print(f"    {miss}")
    cases = load_cases(HUMAN)
    held = sum(c.held_out for c in cases)
    print(f"human text: {len(cases)} labelled texts ({held} held out: written after tuning)")
    for cls in CASE_CLASSES:
        every = evaluate_cases(cases, catalogue, store, cls)
        later = evaluate_cases(cases, catalogue, store, cls, held_out=True)
        print(
            f"  {cls}: precision {every.precision:.3f}, recall {every.recall:.3f} "
            f"(tp {every.true_pos}, fp {every.false_pos}, fn {every.false_neg}); held out "
            f"{later.precision:.3f} / {later.recall:.3f}"
        )
        for miss in every.misses:
            print(f"    {miss.splitlines()[0]}")
    if calibrate:
        print("  grid (min_grams, margin, min_better): precision / recall of content_mismatch")
        for limits, scores in grid(claims, catalogue, store):
            print(
                f"    {limits.min_grams} {limits.margin:.2f} {limits.min_better:.2f}: "
                f"{scores.precision:.3f} / {scores.recall:.3f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chars", type=int, default=20_000)
    parser.add_argument("--chunk", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--calibrate", action="store_true", help="print the threshold grid")
    args = parser.parse_args()
    catalogue = load_catalogue()
    accuracy(catalogue, args.calibrate)
    for name, text in (
        ("filing-guide draft", realistic_draft(args.chars)),
        ("citing-sentences draft", claims_draft(args.chars)),
    ):
        full_checks(name, text, catalogue, args.repeat)
        text_report(text, catalogue)
        for chunk in sorted({args.chunk, 200}):
            streaming(text, catalogue, chunk)


if __name__ == "__main__":
    main()
