"""The facts check on less common ways of stating a count (bounds, approximations, unit forms,
counting periods, shares said to be sensitive, mixed units, figures that flip the route, counts
for a category the form says is 0, sensitive vs total; and text that is not a count: dates,
phone numbers, article numbers, thresholds): precision and recall per capability on a labelled
set (a hit is the labelled span with the labelled code: facts.count_flips_route, an error, where
the figure would lead to another route), 0 findings on the faithful statements, and the
quantity parser's unit forms."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

from app.route.facts import check_facts, form_facts
from app.route.form import decision_from_values
from app.validation.count_claims import Bound
from app.validation.quantities import quantities

HERE = Path(__file__).parent
VALUES = json.loads((HERE / "facts_fixtures" / "filing-guide.facts.json").read_text("utf-8"))
CLAIMS = yaml.safe_load((HERE / "validation_fixtures" / "facts_claims.yaml").read_text("utf-8"))[
    "facts"
]
CAPABILITIES = (
    "bound",
    "approx",
    "unit",
    "period",
    "share",
    "mixed",
    "flip",
    "zero",
    "sensitive",
    # round 5 (#41 item 6): facts as others write them
    "magnitude",
    "client_name",
    "share_total",
    "split",
    "category",
)
# text that is never a count: no contradictions, only faithful statements
NOISE = "noise"


def _found(case: dict[str, object]) -> list[tuple[str, str]]:
    values = {**VALUES, **dict(case.get("values") or {})}  # type: ignore[call-overload]
    facts = form_facts(values, decision_from_values(values))
    assert facts is not None
    text = str(case["text"])
    return [(f.code, text[f.start : f.end]) for f in check_facts(text, facts)]


@pytest.mark.parametrize("capability", CAPABILITIES)
def test_precision_and_recall_per_capability(capability: str) -> None:
    cases = [c for c in CLAIMS if c["capability"] == capability]
    labels = Counter(c["label"] for c in cases)
    assert labels["contradiction"] >= 4 and labels["consistent"] >= 4
    tp = fp = fn = 0
    for case in cases:
        found = _found(case)
        if case["label"] == "contradiction":
            wanted = (case.get("code", "facts.number_mismatch"), str(case["span"]))
            tp += wanted in found
            fn += wanted not in found
            fp += sum(1 for f in found if f != wanted)
        else:
            fp += len(found)
    precision, recall = tp / max(1, tp + fp), tp / max(1, tp + fn)
    assert precision >= 0.95 and recall >= 0.9, (capability, tp, fp, fn)


def test_faithful_statements_and_non_counts_raise_nothing() -> None:
    assert sum(1 for c in CLAIMS if c["capability"] == NOISE) >= 6
    for case in CLAIMS:
        if case["label"] == "consistent":
            assert _found(case) == [], case["text"]


def test_a_figure_that_flips_the_route_is_an_error() -> None:
    flips = [c for c in CLAIMS if c.get("code") == "facts.count_flips_route"]
    assert len(flips) >= 8
    for case in flips:
        values = {**VALUES, **dict(case.get("values") or {})}
        facts = form_facts(values, decision_from_values(values))
        assert facts is not None
        (hit,) = check_facts(str(case["text"]), facts)
        assert hit.severity == "error" and "路径" in hit.message_zh, case["text"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1.2百万", 1_200_000),
        ("0.5千万", 5_000_000),
        ("12.5万", 125_000),
        ("8千", 8_000),
        ("１．２万", 12_000),
        ("3千万", 30_000_000),
        ("一千二百万", 12_000_000),
        ("1亿2000万", 120_000_000),
        ("12万8千", 128_000),
        ("3亿5千万", 350_000_000),
    ],
)
def test_unit_forms(text: str, value: int) -> None:
    assert [q.value for q in quantities(text)] == [value]


@pytest.mark.parametrize(
    ("kind", "stated", "yes", "no"),
    [
        ("gt", 100, 101, 100),
        ("ge", 100, 100, 99),
        ("lt", 100, 99, 100),
        ("le", 100, 100, 101),
        ("approx", 100, 110, 111),
        ("near", 100, 90, 101),
        ("over", 100, 110, 99),
    ],
)
def test_bound_edges(kind: str, stated: int, yes: int, no: int) -> None:
    bound = Bound(kind, stated, 0, 1)
    assert bound.allows(yes) and not bound.allows(no)
