"""Checks on text people wrote (#41): precision and recall per class on the labelled set
tests/unit/validation_fixtures/human_claims.yaml (app/validation/calibration.py:
evaluate_cases), no finding at all on faithful paraphrases, dated historical references,
forward references and hard negatives, and the set's own consistency (every quote is the held
text's, every class has positives and negatives)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from app.validation import load_catalogue
from app.validation.calibration import (
    CASE_CLASSES,
    SILENT,
    evaluate_cases,
    load_cases,
    run_case,
)
from app.validation.texts import load_texts

CATALOGUE, STORE = load_catalogue(), load_texts()
CASES = load_cases(Path(__file__).parent / "validation_fixtures" / "human_claims.yaml")


@pytest.mark.parametrize("cls", sorted(CASE_CLASSES))
def test_each_class_meets_precision_and_recall(cls: str) -> None:
    scores = evaluate_cases(CASES, CATALOGUE, STORE, cls)
    assert scores.true_pos >= 4, (cls, scores)
    assert scores.precision >= 0.95 and scores.recall >= 0.9, (cls, scores.misses)


def test_faithful_historical_forward_and_hard_cases_raise_nothing() -> None:
    silent = [c for c in CASES if c.kind in SILENT]
    kinds = Counter(c.kind for c in silent)
    assert kinds["paraphrase"] >= 20 and kinds["hard"] >= 15
    assert kinds["historical"] >= 6 and kinds["forward"] >= 4
    for case in silent:
        findings, _ = run_case(case, CATALOGUE, STORE)
        assert findings == [], (case.text, [(f.code, f.message_zh) for f in findings])


def test_every_class_has_errors_and_negatives() -> None:
    for cls in CASE_CLASSES:
        kinds = Counter(c.kind == "error" for c in CASES if c.cls == cls)
        assert kinds[True] >= 4 and kinds[False] >= 3, cls


def test_every_quote_is_the_held_text() -> None:
    """Each case was written from an article: its quote is that article's wording."""
    held = "\n".join(
        a.text for versions in STORE.versions.values() for v in versions for a in v.articles
    )
    for case in CASES:
        for part in case.quote.split("……"):
            assert part in held, (case.text, part)
