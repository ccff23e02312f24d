"""The unblinded results of a review study, and their CSV and DOCX exports.

Per arm and dimension: the mean with a t-based 95% CI; per pair of arms and dimension: the
paired difference (the earlier arm minus the later on the same case by the same reviewer)
with a Wilcoxon signed-rank p; hard errors per arm (total, per draft); Krippendorff's alpha
(interval) per dimension. "overall" is each verdict's mean of the three dimensions, the
seed's "average score out of 10". Preference designs add a Bradley–Terry ranking of the arms
(ties half a win each, 95% Wald intervals from the Fisher information); gold items add each
reviewer's catch rate, flagged below Settings.study_gold_min_catch_rate. Verdicts and
preferences on gold items count only there, never in the arms' numbers.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from app.domain import Bilingual
from app.export.cleaning import xml_safe
from app.i18n import t
from app.studies import stats as rs
from app.studies.design import GOLD_KINDS, arm_pairs
from app.studies.domain import (
    DIMENSION_LABELS,
    DIMENSIONS,
    Preference,
    Study,
    StudyProgress,
    Verdict,
)
from app.studies.store import scored_drafts
from audit.vocabulary import Choice, GoldKind, StudyDesign

if TYPE_CHECKING:
    from app.config import Settings

OVERALL = "overall"
REPORT_DIMENSIONS = (*DIMENSIONS, OVERALL)
SCALE = (0.0, 10.0)  # the reviewers' score range
# With fewer than 6 pairs the exact two-sided Wilcoxon p can never fall below 0.05 (its
# smallest value is 2/2^n: 0.0625 at n = 5), so no difference could be called significant.
MIN_PAIRS = 6
# a CSV cell a spreadsheet reads as a formula (OWASP CSV injection), unless it is a number
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")


def text(key: str, lang: str) -> str:
    """A report string (app/locales/*.yaml `report:`) or a dimension's label, in `lang`."""
    if key in DIMENSION_LABELS:
        return DIMENSION_LABELS[key].text(lang)
    return t(f"report.{key}", lang)


@dataclass(frozen=True)
class Remark:
    """A hard error or a comment, attributed (the report is unblinded)."""

    arm: str
    reviewer: str
    case: str
    text: str


@dataclass(frozen=True)
class StudyReport:
    study_id: int
    name: str
    doc_type: str
    doc_type_title: Bilingual  # the type's name as the lawyer knows it, not its internal id
    arms: tuple[str, ...]  # labels, in the study's order
    endpoints: tuple[str, ...]
    n_cases: int
    reviewers: tuple[str, ...]
    verdicts_in: int
    verdicts_expected: int
    unblinded_by: str | None  # set when an admin unblinded early
    unblinded_at: datetime | None
    means: dict[str, dict[str, rs.MeanCI]]  # {arm: {dimension: MeanCI}}, the chart's data
    paired: tuple[rs.PairedDifference, ...]
    hard_errors: tuple[rs.HardErrorSummary, ...]
    agreement: dict[str, float | None]
    drafts: tuple[rs.ScoredDraft, ...]
    errors_listed: tuple[Remark, ...]
    comments: tuple[Remark, ...]
    design: StudyDesign = StudyDesign.SCORES
    ranking: rs.Ranking | None = None  # preference designs: Bradley–Terry, best first
    preferences: int = 0  # preferences counted in the ranking
    catch: tuple[rs.CatchRate, ...] = ()  # gold items: per reviewer


def _with_overall(d: rs.ScoredDraft) -> rs.ScoredDraft:
    overall = sum(d.scores[k] for k in DIMENSIONS) / len(DIMENSIONS)
    return rs.ScoredDraft(d.reviewer, d.case, d.arm, {**d.scores, OVERALL: overall}, d.hard_errors)


def build_report(
    study: Study,
    progress: StudyProgress,
    verdicts: Sequence[Verdict],
    doc_type_title: Bilingual | None = None,
    *,
    preferences: Sequence[Preference] = (),
    settings: Settings,
) -> StudyReport:
    """Compute every number of the results page from the latest verdicts and preferences.
    `doc_type_title` names the document type in the report (its id when the type is no
    longer installed); `settings` gives the gold thresholds."""
    gold_score = settings.study_gold_catch_score
    study, verdicts = shown(study, verdicts)
    drafts = [_with_overall(d) for d in scored_drafts(study, verdicts)]
    arms = tuple(a.label for a in study.arms)
    errors, comments = _remarks(study, verdicts)
    early = study.unblinded_at is not None and not progress.all_verdicts_in
    return StudyReport(
        study_id=study.id,
        name=study.name,
        doc_type=study.doc_type,
        doc_type_title=doc_type_title or Bilingual(study.doc_type, study.doc_type),
        arms=arms,
        endpoints=tuple(a.endpoint for a in study.arms),
        n_cases=len(study.cases),
        reviewers=study.reviewers,
        verdicts_in=sum(r.done for r in progress.reviewers),
        verdicts_expected=sum(r.total for r in progress.reviewers),
        unblinded_by=study.unblinded_by if early else None,
        unblinded_at=study.unblinded_at if early else None,
        means=rs.per_arm_means(drafts, arms, REPORT_DIMENSIONS),
        paired=tuple(
            p
            for i, j in arm_pairs(len(arms))
            for p in rs.paired_differences(drafts, (arms[i], arms[j]), REPORT_DIMENSIONS)
            if p.diff.n or len(arms) == 2
        ),
        hard_errors=tuple(rs.hard_errors(drafts, arms)),
        agreement=rs.agreement(drafts, REPORT_DIMENSIONS),
        drafts=tuple(drafts),
        errors_listed=tuple(errors),
        comments=tuple(comments),
        design=study.design,
        ranking=_ranking(study, preferences) if study.design != StudyDesign.SCORES else None,
        preferences=sum(not p.gold for p in preferences),
        catch=tuple(
            rs.catch_rates(_gold(verdicts), gold_score, settings.study_gold_min_catch_rate)
        ),
    )


def shown(study: Study, verdicts: Sequence[Verdict]) -> tuple[Study, list[Verdict]]:
    """The study and its verdicts with the control characters people typed into names,
    labels, comments and hard errors removed (`xml_safe`), so the page, the terminal, the CSV
    and the DOCX all show the same harmless text."""
    arms = tuple(
        replace(a, label=xml_safe(a.label), endpoint=xml_safe(a.endpoint)) for a in study.arms
    )
    clean = replace(study, name=xml_safe(study.name), arms=arms)
    return clean, [
        replace(v, comment=xml_safe(v.comment), hard_errors=tuple(map(xml_safe, v.hard_errors)))
        for v in verdicts
    ]


def paired_overall(study: Study, verdicts: Sequence[Verdict]) -> list[float]:
    """The overall score's paired differences so far (earlier arm minus later, per reviewer
    and case; gold items left out): the observed spread that planning uses."""
    order = {a.label: a.position for a in study.arms}
    by_key: dict[tuple[str, str], list[rs.ScoredDraft]] = {}
    for d in scored_drafts(study, verdicts):
        by_key.setdefault((d.reviewer, d.case), []).append(_with_overall(d))
    diffs = []
    for pair in by_key.values():
        if len(pair) == 2:
            first, second = sorted(pair, key=lambda d: order[d.arm])
            diffs.append(first.scores[OVERALL] - second.scores[OVERALL])
    return diffs


def _remarks(study: Study, verdicts: Sequence[Verdict]) -> tuple[list[Remark], list[Remark]]:
    """Hard errors and comments on real drafts, attributed to arm, reviewer and case (those
    on gold items are not the arm's: they count in the catch rates only)."""
    labels = {a.id: a.label for a in study.arms}
    case_no = {c.id: str(c.position + 1) for c in study.cases}
    verdicts = [v for v in verdicts if v.gold_kind is None]
    errors = [
        Remark(labels[v.arm_id], v.reviewer, case_no[v.case_id], e)
        for v in verdicts
        for e in v.hard_errors
    ]
    comments = [
        Remark(labels[v.arm_id], v.reviewer, case_no[v.case_id], v.comment)
        for v in verdicts
        if v.comment
    ]
    return errors, comments


def _ranking(study: Study, preferences: Sequence[Preference]) -> rs.Ranking:
    """Bradley–Terry over the preferences on real pairs (gold pairs left out)."""
    labels = {a.id: a.label for a in study.arms}
    score = {Choice.A: 1.0, Choice.B: 0.0, Choice.TIE: 0.5}
    comparisons = [
        rs.Comparison(labels[p.arm_a], labels[p.arm_b], score[p.choice])
        for p in preferences
        if not p.gold
    ]
    return rs.bradley_terry(comparisons, [a.label for a in study.arms])


def _gold(verdicts: Sequence[Verdict]) -> list[rs.GoldVerdict]:
    """Verdicts on gold items with the score of the dimension their seeded error harms."""
    out = []
    for v in verdicts:
        if v.gold_kind is None:
            continue
        dimension = GOLD_KINDS.get(GoldKind(v.gold_kind))
        score = v.scores.get(dimension) if dimension else None
        out.append(rs.GoldVerdict(v.reviewer, score, len(v.hard_errors)))
    return out


def _num(value: float | None, digits: int = 3) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def summary_rows(report: StudyReport, lang: str = "zh") -> list[list[str]]:
    """The results as one long table (section, arm, dimension, n, value, CI, p)."""
    means, paired, hard = text("means", lang), text("paired", lang), text("hard", lang)
    rows: list[list[str]] = []
    for arm in report.arms:
        for dim in REPORT_DIMENSIONS:
            m = report.means[arm][dim]
            rows.append([means, arm, text(dim, lang), str(m.n), *_ci(m), ""])
    for p in report.paired:
        diff_label = text("diff", lang).format(a=p.a, b=p.b)
        cells = [paired, diff_label, text(p.dimension, lang), str(p.diff.n), *_ci(p.diff)]
        rows.append([*cells, _num(p.test.p_value, 4)])
    for h in report.hard_errors:
        rows.append(
            [hard, h.arm, text("hard_total", lang), str(h.drafts), str(h.total), "", "", ""]
        )
        rows.append(
            [hard, h.arm, text("hard_rate", lang), str(h.drafts), _num(h.per_draft), "", "", ""]
        )
    n_reviewers = str(len(report.reviewers))
    for dim, alpha in report.agreement.items():
        rows.append(
            [text("agreement", lang), "", text(dim, lang), n_reviewers, _num(alpha), "", "", ""]
        )
    return rows + ranking_rows(report, lang) + catch_rows(report, lang)


def ranking_rows(report: StudyReport, lang: str) -> list[list[str]]:
    """Bradley–Terry rows, best first: per arm its log-strength with the 95% interval (with the
    prior of one virtual tie a pair when the maximum does not exist), then its share of wins,
    each with the number of comparisons."""
    ranking = report.ranking
    if ranking is None:
        return []
    section = text("ranking", lang)
    what = text("strength_prior" if ranking.prior else "strength", lang)
    rows = []
    for s in ranking.arms:
        n = str(s.comparisons)
        rows.append([section, s.arm, what, n, _num(s.strength), _num(s.low), _num(s.high), ""])
        rows.append([section, s.arm, text("win_rate", lang), n, _num(ranking.win_rate(s)),
                     "", "", ""])  # fmt: skip
    return rows


def ranking_table(report: StudyReport, lang: str) -> tuple[list[str], list[list[str]]]:
    """The Results page's ranking: arm, comparisons, wins, share of wins, log-strength and its
    95% interval, best first (header, rows)."""
    ranking = report.ranking
    keys = ("arm", "comparisons", "wins", "win_rate", "log_strength", "ci_low", "ci_high")
    if ranking is None:
        return [text(k, lang) for k in keys], []
    rows = [
        [s.arm, str(s.comparisons), _num(s.wins, 1), _percent(ranking.win_rate(s)),
         _num(s.strength, 2), _num(s.low, 2), _num(s.high, 2)]
        for s in ranking.arms
    ]  # fmt: skip
    return [text(k, lang) for k in keys], rows


def _percent(value: float | None) -> str:
    return "" if value is None else f"{value:.0%}"


def catch_rows(report: StudyReport, lang: str) -> list[list[str]]:
    """Per reviewer: gold items judged, the share of seeded errors caught, flagged or not."""
    section = text("gold", lang)
    return [
        [
            section,
            c.reviewer,
            text("catch_flagged" if c.flagged else "catch_rate", lang),
            str(c.seeded),
            _num(c.rate),
            "",
            "",
            "",
        ]
        for c in report.catch
    ]


def _ci(m: rs.MeanCI) -> list[str]:
    return [_num(m.mean), _num(m.low), _num(m.high)]


def summary_header(lang: str = "zh") -> list[str]:
    keys = ("section", "arm", "dimension", "n", "mean", "ci_low", "ci_high", "p")
    return [text(k, lang) for k in keys]


def csv_cell(value: object) -> str:
    """A cell as text a spreadsheet shows and never runs: one starting with = + - @ tab or CR
    gets a leading quote (OWASP's advice against CSV injection), a number stays a number."""
    cell = str(value)
    if cell.startswith(FORMULA_START) and not NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def _csv(rows: Sequence[Sequence[object]]) -> str:
    out = io.StringIO()
    csv.writer(out).writerows([csv_cell(v) for v in row] for row in rows)
    return out.getvalue()


def report_csv(report: StudyReport, lang: str = "zh") -> str:
    """The summary table as CSV (UTF-8 text; write it with a BOM for Excel if needed)."""
    return _csv([summary_header(lang), *summary_rows(report, lang)])


def verdicts_csv(report: StudyReport, lang: str = "zh") -> str:
    """One row per draft verdict (unblinded), for analysis elsewhere."""
    keys = ("reviewer", "case", "arm", *DIMENSIONS, OVERALL, "hard_total")
    rows: list[list[object]] = [[text(k, lang) for k in keys]]
    for d in sorted(report.drafts, key=lambda d: (d.reviewer, int(d.case), d.arm)):
        scores = [_num(d.scores[k], 2) for k in (*DIMENSIONS, OVERALL)]
        rows.append([d.reviewer, d.case, d.arm, *scores, d.hard_errors])
    return _csv(rows)


def report_docx(report: StudyReport, lang: str = "zh") -> bytes:
    """A plain DOCX: title, summary, the results table, hard errors and comments listed."""
    from docx import Document

    doc = Document()
    doc.add_heading(f"{text('title', lang)}: {report.name}", level=1)
    doc.add_paragraph(
        f"{text('doc_type', lang)}: {report.doc_type_title.text(lang)} · "
        + " / ".join(f"{a} ({e})" for a, e in zip(report.arms, report.endpoints, strict=True))
    )
    doc.add_paragraph(summary_line(report, lang))
    for line in [*caution_lines(report, lang), *quality_lines(report, lang)]:
        doc.add_paragraph(line)
    if report.unblinded_at is not None:
        doc.add_paragraph(early_unblinding_line(report, lang))
    header, rows = summary_header(lang), summary_rows(report, lang)
    table = doc.add_table(rows=1 + len(rows), cols=len(header))
    table.style = "Table Grid"
    for r, values in enumerate([header, *rows]):
        for c, value in enumerate(values):
            table.cell(r, c).text = value
    for key, remarks in (("errors_list", report.errors_listed), ("comments", report.comments)):
        if remarks:
            doc.add_heading(text(key, lang), level=2)
            for m in remarks:
                line = f"[{m.arm} · {text('case', lang)} {m.case} · {m.reviewer}] {m.text}"
                doc.add_paragraph(line, style="List Bullet")
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def summary_line(report: StudyReport, lang: str) -> str:
    """How many cases, reviewers and verdicts the report covers."""
    return text("summary", lang).format(
        cases=report.n_cases,
        reviewers=len(report.reviewers),
        done=report.verdicts_in,
        total=report.verdicts_expected,
    )


def caution_lines(report: StudyReport, lang: str) -> list[str]:
    """Warnings to read before the numbers: too few pairs to conclude, CIs beyond the scale."""
    lines: list[str] = []
    pairs = min((p.diff.n for p in report.paired), default=0)
    if pairs < MIN_PAIRS:
        lines.append(text("too_small", lang).format(n=pairs, min=MIN_PAIRS))
    means = [m for per_dim in report.means.values() for m in per_dim.values()]
    if any(_beyond_scale(m) for m in means):
        lines.append(text("beyond_scale", lang))
    return lines


def quality_lines(report: StudyReport, lang: str) -> list[str]:
    """Reviewers below the minimum gold catch rate, and a ranking that cannot be estimated."""
    lines = [
        text("catch_low", lang).format(reviewer=c.reviewer, caught=c.caught, seeded=c.seeded)
        for c in report.catch
        if c.flagged
    ]
    if report.ranking is not None and not report.ranking.estimable and report.preferences:
        lines.append(text("ranking_unbounded", lang))
    return lines


def _beyond_scale(m: rs.MeanCI) -> bool:
    """A mean's interval reaching outside the 0–10 score range."""
    return (m.low is not None and m.low < SCALE[0]) or (m.high is not None and m.high > SCALE[1])


def early_unblinding_line(report: StudyReport, lang: str) -> str:
    """Who unblinded the study before every verdict was in, and when (UTC)."""
    when = f"{report.unblinded_at:%Y-%m-%d %H:%M} UTC" if report.unblinded_at else "—"
    return text("early", lang).format(who=report.unblinded_by, when=when)
