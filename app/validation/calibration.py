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
that pins the shipped thresholds.

The second set (tests/unit/validation_fixtures/human_claims.yaml: text written as lawyers and
counterparties write it) labels whole texts by the findings expected in them, each with the
words it spans (`expect`), the citations the text holds (`cites`) or the date it speaks from
(`date`); `evaluate_cases` counts each class (CASE_CLASSES) on its own codes: a finding of one
of them that no expectation names is a false positive, an expectation not found a false
negative."""

from __future__ import annotations

import datetime as dt
import itertools
import re
from dataclasses import dataclass
from pathlib import Path

from app import yamldata
from app.domain import Citation, Finding
from app.validation.catalogue import Catalogue
from app.validation.checker import check
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
    entries = yamldata.load(path.read_text(encoding="utf-8"))["claims"]
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


# class -> the finding codes it is judged on (the findings of other codes in its cases are
# another class's business); a class with `cites` or `date` expectations is judged on those too
CASE_CLASSES: dict[str, tuple[str, ...]] = {
    "figure": ("citation.figure_mismatch", "citation.condition_mismatch"),
    "actor": ("citation.actor_mismatch",),
    "condition": ("citation.condition_mismatch", "citation.figure_mismatch"),
    "negation": ("citation.negates_duty",),
    "elsewhere": ("citation.rule_elsewhere", "citation.content_mismatch"),
    "english": ("citation.article_out_of_range", "citation.content_mismatch", "citation.repealed",
                "citation.negates_duty", "citation.figure_mismatch"),
    "text_date": ("citation.called_in_force", "citation.not_in_force", "citation.renumbered",
                  "citation.superseded", "citation.content_mismatch"),
    "sentence_date": ("citation.called_in_force", "citation.not_in_force",
                      "citation.renumbered", "citation.superseded", "citation.content_mismatch"),
    "surface": ("citation.content_mismatch", "citation.not_a_provision", "citation.renumbered"),
    "short_names": ("citation.content_mismatch", "citation.unknown_statute",
                    "citation.figure_mismatch", "citation.renumbered"),
    "passage": (*(code for code, _ in CAPABILITIES.values()),
        "citation.figure_mismatch", "citation.actor_mismatch", "citation.condition_mismatch",
        "citation.negates_duty", "citation.rule_elsewhere"),
}  # fmt: skip


@dataclass(frozen=True)
class Expected:
    code: str
    span: str  # the words the finding spans
    suggestion: str = ""  # a part of its suggestion, when given


@dataclass(frozen=True)
class Case:
    """A labelled text: its class, what it must raise, and how it is written (`kind`: error,
    paraphrase, historical, forward, hard … — the last four must raise nothing at all)."""

    text: str
    cls: str
    kind: str
    expect: tuple[Expected, ...] = ()
    cites: tuple[tuple[str, int, int | None, int | None], ...] | None = None
    date: dt.date | None = None  # the date the text speaks from (text_date)
    held_out: bool = False  # written after the checks were tuned, measured before any change
    doc_date: dt.date | None = None  # given, as a form or --date would
    quote: str = ""  # the article the case was written from, as the held text words it


SILENT = ("paraphrase", "historical", "forward", "hard")  # kinds that must raise nothing


def load_cases(path: Path) -> list[Case]:
    entries = yamldata.load(path.read_text(encoding="utf-8"))["cases"]
    cases = []
    for entry in entries:
        if entry["class"] not in CASE_CLASSES:
            raise ValueError(f"unknown class {entry['class']!r} in {path.name}")
        cites = entry.get("cites")
        cases.append(
            Case(
                text=str(entry["text"]),
                cls=str(entry["class"]),
                kind=str(entry.get("kind") or "error"),
                expect=tuple(
                    Expected(str(e["code"]), str(e["span"]), str(e.get("suggestion") or ""))
                    for e in entry.get("expect") or ()
                ),
                cites=None
                if cites is None
                else tuple(
                    (
                        str(c[0]),
                        int(c[1]),
                        c[2] if len(c) > 2 else None,
                        c[3] if len(c) > 3 else None,
                    )
                    for c in cites
                ),
                date=entry.get("date"),
                doc_date=entry.get("doc_date"),
                quote=str(entry.get("quote") or ""),
                held_out=entry.get("round") == "held-out",
            )
        )
    return cases


def run_case(
    case: Case, catalogue: Catalogue, store: TextStore
) -> tuple[list[Finding], list[Citation]]:
    """(findings, citations) of the whole check on one case: on its given date, else on the
    date it speaks from, else on the date the set was written against."""
    result = check(
        case.text, catalogue=catalogue, doc_date=case.doc_date, default_date=SET_DATE, texts=store
    )
    return list(result.findings), list(result.citations)


def evaluate_cases(
    cases: list[Case], catalogue: Catalogue, store: TextStore, cls: str, held_out: bool = False
) -> Scores:
    """Precision and recall of one class: its codes' findings against the expectations (code,
    span, suggestion), the citations read against `cites`, the date read against `date`
    (`held_out`: only the cases written after the checks were tuned)."""
    from app.validation.text_date import read_text_date

    codes = CASE_CLASSES[cls]
    tp = fp = fn = 0
    misses: list[str] = []
    for case in (c for c in cases if c.cls == cls and (c.held_out or not held_out)):
        findings, citations = run_case(case, catalogue, store)
        found = [
            (f.code, case.text[f.start : f.end], f.suggestion) for f in findings if f.code in codes
        ]
        for want in case.expect:
            hit = next((f for f in found if f[0] == want.code and f[1] == want.span
                        and want.suggestion in f[2]), None)  # fmt: skip
            if hit is None:
                fn += 1
                misses.append(f"FN {want.code} {want.span} | {case.text[:60]}")
            else:
                tp += 1
                found.remove(hit)
        fp += len(found)
        misses += [f"FP {f[0]} {f[1]} | {case.text[:60]}" for f in found]
        if case.cites is not None:
            read = [
                (c.statute or "", c.article, c.paragraph, c.item)
                for c in citations
                if c.article is not None  # a title on its own cites no article
            ]
            for want_cite in case.cites:
                if want_cite in read:
                    tp += 1
                    read.remove(want_cite)
                else:
                    fn += 1
                    misses.append(f"FN cite {want_cite} | {case.text[:60]}")
            fp += len(read)
            misses += [f"FP cite {r} | {case.text[:60]}" for r in read]
        if cls == "text_date":
            own = read_text_date(case.text)
            day = own.date if own else None
            tp += day is not None and day == case.date
            fp += day is not None and day != case.date
            fn += case.date is not None and day != case.date
            if day != case.date:
                misses.append(f"date {day} != {case.date} | {case.text[:60]}")
    return Scores(tp, fp, fn, tuple(misses))
