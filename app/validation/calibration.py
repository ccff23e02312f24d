"""Precision and recall of the content findings on a labelled set of citing sentences.

The set (tests/unit/validation_fixtures/citation_claims.yaml) labels each sentence right,
wrong (with the better article), wrong_part (with the better 款 / 项 of the same article),
no_claim, renumbered (with the number in force), superseded or exempted (with the prevailing
provision), part_missing (a 款 or 项 the article does not have) or called_in_force (a statute
called 现行 before it took effect).
Each capability (CAPABILITIES) counts its own label as the positives: a wrong sentence for
citation.content_mismatch naming an article, a wrong_part one for the same code naming a 款 or
项, a renumbered one for citation.renumbered, a superseded (or exempted) one for
citation.superseded, a part_missing one for citation.part_out_of_range and a called_in_force one
for citation.called_in_force.
Used by bench/validation.py (which prints the figures and a threshold grid) and by the test
that pins the shipped thresholds."""

from __future__ import annotations

import datetime as dt
import itertools
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from app.validation.catalogue import Catalogue
from app.validation.citations import parse_citations
from app.validation.content import check_content
from app.validation.matching import DEFAULT, Thresholds
from app.validation.texts import TextStore

LABELS = (
    "right",
    "wrong",
    "wrong_part",
    "no_claim",
    "renumbered",
    "superseded",
    "part_missing",
    "exempted",
    "called_in_force",
)
# capability -> (finding code, the label of its positives)
CAPABILITIES: dict[str, tuple[str, str]] = {
    "mismatch": ("citation.content_mismatch", "wrong"),
    "part": ("citation.content_mismatch", "wrong_part"),
    "renumbered": ("citation.renumbered", "renumbered"),
    "superseded": ("citation.superseded", "superseded"),
    "part_missing": ("citation.part_out_of_range", "part_missing"),
    "exemption": ("citation.superseded", "exempted"),
    "in_force": ("citation.called_in_force", "called_in_force"),
}
PART = re.compile(r"条第[零〇一二两三四五六七八九十]+[款项]")
SET_DATE = dt.date(2026, 11, 30)  # the date the set was written against


@dataclass(frozen=True)
class Claim:
    text: str
    label: str
    kind: str = ""
    better: int | None = None  # wrong: the article that says it
    now: int | None = None  # renumbered: the number in force
    better_part: str = ""  # wrong_part: the 款 / 项 that says it, 第十三条第一款第二项
    prevailing: str = ""  # superseded: the prevailing provision, 《…》第九条
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
                better_part=str(entry.get("better_part") or ""),
                prevailing=str(entry.get("prevailing") or ""),
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
    capability: str = "mismatch",
) -> Scores:
    """A hit counts only with the right suggestion (the labelled article, 款 or 项)."""
    code, positive = CAPABILITIES[capability]
    true_pos = false_pos = false_neg = 0
    misses: list[str] = []
    for claim in claims:
        if claim.label not in (positive, "right", "no_claim"):
            continue  # another capability's error: this one's findings on it are not labelled
        suggestion = _found(_codes(claim, catalogue, store, limits), code, capability)
        wanted = claim.label == positive
        if wanted and suggestion is not None and _names(suggestion, claim, capability):
            true_pos += 1
        elif suggestion is not None:
            false_pos += 1
            misses.append(f"FP {claim.text}")
        elif wanted:
            false_neg += 1
            misses.append(f"FN {claim.text}")
    return Scores(true_pos, false_pos, false_neg, tuple(misses))


def _found(found: dict[str, str], code: str, capability: str) -> str | None:
    """The suggestion of this capability's finding: an article-level and a 款/项-level
    content_mismatch are told apart by what they name."""
    suggestion = found.get(code)
    if suggestion is None or capability not in ("mismatch", "part"):
        return suggestion
    return suggestion if bool(PART.search(suggestion)) == (capability == "part") else None


def _names(suggestion: str, claim: Claim, capability: str) -> bool:
    from app.validation.numerals import int_to_chinese

    if capability == "part":
        return bool(claim.better_part) and suggestion.endswith(claim.better_part)
    if capability in ("superseded", "exemption"):
        return bool(claim.prevailing) and claim.prevailing in suggestion
    if capability in ("part_missing", "in_force"):
        return True  # no suggestion: the finding itself is the hit
    number = claim.better if capability == "mismatch" else claim.now
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
