"""Precision and recall of the content findings on a labelled set of citing sentences.

The set (tests/unit/validation_fixtures/citation_claims.yaml) labels each sentence right,
wrong (with the better article), no_claim or renumbered (with the number in force). A wrong
sentence is a positive for citation.content_mismatch; a renumbered one for citation.renumbered.
Used by bench/validation.py (which prints the figures and a threshold grid) and by the test
that pins the shipped thresholds."""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass
from pathlib import Path

import yaml

from app.validation.catalogue import Catalogue
from app.validation.citations import parse_citations
from app.validation.content import DEFAULT, Thresholds, check_content
from app.validation.texts import TextStore

LABELS = ("right", "wrong", "no_claim", "renumbered")
SET_DATE = dt.date(2026, 11, 30)  # the date the set was written against


@dataclass(frozen=True)
class Claim:
    text: str
    label: str
    kind: str = ""
    better: int | None = None  # wrong: the article that says it
    now: int | None = None  # renumbered: the number in force
    doc_date: dt.date = SET_DATE


@dataclass(frozen=True)
class Scores:
    """Counts for one finding code over the set, with the sentences it got wrong."""

    true_pos: int
    false_pos: int
    false_neg: int
    misses: tuple[str, ...] = ()

    @property
    def precision(self) -> float:
        flagged = self.true_pos + self.false_pos
        return self.true_pos / flagged if flagged else 1.0

    @property
    def recall(self) -> float:
        wanted = self.true_pos + self.false_neg
        return self.true_pos / wanted if wanted else 1.0


def load_claims(path: Path) -> list[Claim]:
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))["claims"]
    claims = []
    for entry in entries:
        if entry["label"] not in LABELS:
            raise ValueError(f"unknown label {entry['label']!r} in {path.name}")
        date = entry.get("doc_date")
        claims.append(
            Claim(
                text=str(entry["text"]),
                label=str(entry["label"]),
                kind=str(entry.get("kind") or ""),
                better=entry.get("better"),
                now=entry.get("now"),
                doc_date=date if isinstance(date, dt.date) else SET_DATE,
            )
        )
    return claims


def _codes(
    claim: Claim, catalogue: Catalogue, store: TextStore, limits: Thresholds
) -> dict[str, str]:
    """Content finding code → its suggestion, for one sentence."""
    citations, _ = parse_citations(claim.text, catalogue)
    findings, _ = check_content(
        claim.text,
        citations,
        catalogue=catalogue,
        store=store,
        doc_date=claim.doc_date,
        limits=limits,
    )
    return {f.code: f.suggestion for f in findings}


def evaluate(
    claims: list[Claim],
    catalogue: Catalogue,
    store: TextStore,
    limits: Thresholds = DEFAULT,
    code: str = "citation.content_mismatch",
) -> Scores:
    """A hit counts only with the right suggestion (the labelled better / in-force article)."""
    positive = "wrong" if code == "citation.content_mismatch" else "renumbered"
    true_pos = false_pos = false_neg = 0
    misses: list[str] = []
    for claim in claims:
        found = _codes(claim, catalogue, store, limits)
        target = claim.better if positive == "wrong" else claim.now
        wanted = claim.label == positive
        hit = code in found and (not wanted or _names(found[code], target))
        if wanted and hit:
            true_pos += 1
        elif code in found:
            false_pos += 1
            misses.append(f"FP {claim.text}")
        elif wanted:
            false_neg += 1
            misses.append(f"FN {claim.text}")
    return Scores(true_pos, false_pos, false_neg, tuple(misses))


def _names(suggestion: str, number: int | None) -> bool:
    from app.validation.numerals import int_to_chinese

    return number is not None and suggestion.endswith(f"第{int_to_chinese(number)}条")


def grid(
    claims: list[Claim], catalogue: Catalogue, store: TextStore
) -> list[tuple[Thresholds, Scores]]:
    """Every threshold combination tried when choosing the shipped ones."""
    results = []
    for min_grams, margin, min_better in itertools.product(
        (3, 6, 9), (0.1, 0.25, 0.4, 0.55, 0.7), (0.3, 0.5, 0.7, 0.9)
    ):
        limits = Thresholds(DEFAULT.min_claim, min_grams, margin, min_better)
        results.append((limits, evaluate(claims, catalogue, store, limits)))
    return results
