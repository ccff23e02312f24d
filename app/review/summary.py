"""The short summary of a review, as Markdown (the page's download, `lexspec review --out`)."""

from __future__ import annotations

from app.domain import Finding
from app.i18n import t
from app.review.service import Review

EXCERPT = 40  # characters of the paragraph shown around a finding


def excerpt(review: Review, finding: Finding) -> str:
    """The finding's words in their paragraph, marked 【…】, shortened around them."""
    passage = review.passage(finding)
    if passage is None:
        return ""
    text, start, end = passage.text, passage.start, passage.end
    lo, hi = max(0, start - EXCERPT // 2), min(len(text), end + EXCERPT // 2)
    head = "…" if lo else ""
    tail = "…" if hi < len(text) else ""
    return f"{head}{text[lo:start]}【{text[start:end]}】{text[end:hi]}{tail}".replace("\n", " ")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _rows(review: Review, findings: tuple[Finding, ...], lang: str) -> list[str]:
    head = t("docreview.summary.columns", lang)
    rows = [head, "|---|---|---|---|---|"]
    for f in findings:
        passage = review.passage(f)
        where = (
            t(f"docreview.place.{passage.place}", lang, n=passage.paragraph + 1) if passage else ""
        )
        hint = f" → {f.suggestion}" if f.suggestion else ""
        rows.append(
            f"| {t(f'severity.{f.severity}', lang)} | `{f.code}` | {_cell(where)} "
            f"| {_cell(excerpt(review, f))} | {_cell(f.bilingual.text(lang) + hint)} |"
        )
    return rows


def summary_markdown(review: Review, lang: str = "zh") -> str:
    """Title, file and hash, the date used and where it came from, the counts, the findings
    table, and the citations outdated since (when any)."""
    counts = review.counts()
    used = review.date
    lines = [
        f"# {t('docreview.summary.title', lang, name=review.name)}",
        "",
        t("docreview.summary.file", lang, name=review.name, sha=review.sha256, size=review.size),
        t(f"docreview.date.{used.source}", lang, date=used.date.isoformat(), cue=used.cue),
        t("docreview.summary.counts", lang, **counts),
        "",
    ]
    if review.findings:
        lines += _rows(review, review.findings, lang)
    else:
        lines.append(t("docreview.summary.none", lang))
    if review.outdated:
        lines += [
            "",
            f"## {t('docreview.outdated_title', lang, today=review.today.isoformat())}",
            "",
        ]
        lines += _rows(review, review.outdated, lang)
    lines += ["", t("docreview.summary.disclaimer", lang)]
    return "\n".join(lines) + "\n"
