"""Showing a draft with its findings: highlighted text, the findings list, the numbers.

Shared by the Draft and History pages and the revisions view. All user/model text is HTML-escaped; only the
<mark> wrappers we add are markup.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Iterable, Sequence

import streamlit as st

from app.domain import Citation, Finding, GenerationStats
from app.pages.plain_text import plain
from app.pages.ui_state import context, lang, tr
from app.validation.lookup import ArticleView, citation_view, suggested_view

SEVERITY_ICON = {
    "error": ":red[:material/error:]",
    "warning": ":orange[:material/warning:]",
    "info": ":blue[:material/info:]",
}
_STYLE = (
    "<style>.lx-draft{white-space:pre-wrap;font-family:inherit;line-height:1.7;"
    "border:1px solid #ddd;border-radius:6px;padding:0.8em;max-height:32em;overflow:auto}"
    ".lx-draft mark.lx-error{background:#ffc9c9}.lx-draft mark.lx-warning{background:#ffe8a3}"
    ".lx-draft mark.lx-info{background:#d0ebff}</style>"
)


def _visible(findings: Iterable[Finding], length: int) -> list[Finding]:
    """Findings with a usable span, in order, dropping any that overlap an earlier one."""
    kept: list[Finding] = []
    pos = 0
    for f in sorted(findings, key=lambda f: (f.start, -f.end)):
        if f.start >= pos and f.start < f.end <= length:
            kept.append(f)
            pos = f.end
    return kept


def highlight_html(text: str, findings: Iterable[Finding], ui_lang: str = "zh") -> str:
    """The draft as HTML: everything escaped, finding spans wrapped in <mark> with a tooltip."""
    parts: list[str] = []
    pos = 0
    for f in _visible(findings, len(text)):
        parts.append(html.escape(text[pos : f.start]))
        title = html.escape(f.bilingual.text(ui_lang), quote=True)
        severity = f.severity if f.severity in SEVERITY_ICON else "info"
        marked = html.escape(text[f.start : f.end])
        parts.append(f'<mark class="lx-{severity}" title="{title}">{marked}</mark>')
        pos = f.end
    parts.append(html.escape(text[pos:]))
    return f'{_STYLE}<div class="lx-draft">{"".join(parts)}</div>'


def show_text(
    text: str, findings: Sequence[Finding], target: st.delta_generator.DeltaGenerator | None = None
) -> None:
    """Draw the highlighted draft into `target` (a placeholder) or the page."""
    (target or st).html(highlight_html(text, findings, lang()))


def text_and_findings(
    text: str,
    findings: Sequence[Finding],
    *,
    citations: Sequence[Citation] = (),
    on: dt.date | None = None,
    heading: str | None = None,
) -> None:
    """A draft beside its findings: the highlighted text (under `heading`, if any) on the
    left, the findings panel (with `citations` as of `on`) on the right."""
    left, right = st.columns([3, 2])
    with left:
        if heading is not None:
            st.markdown(f"**{plain(heading)}**")
        show_text(text, findings)
    with right:
        show_findings(findings, citations=citations, on=on)


def show_findings(
    findings: Sequence[Finding],
    target: st.delta_generator.DeltaGenerator | None = None,
    citations: Sequence[Citation] = (),
    on: dt.date | None = None,
) -> None:
    """The findings panel: severity, message in the UI language, suggestion; a citation
    finding opens to the cited article and the suggested one; then every citation's article,
    in the version in force on `on` (the document's date; default today), found in the
    catalogue the draft is checked with."""
    day = on or dt.date.today()
    statutes = context().knowledge.checking_catalogue()
    box = (target or st).container()
    if not findings:
        box.success(tr("findings.none"))
    else:
        box.markdown(f"**{tr('findings.title', n=len(findings))}**")
    for f in sorted(findings, key=lambda f: f.start):
        icon = SEVERITY_ICON.get(f.severity, SEVERITY_ICON["info"])
        # the message quotes the draft (a citation as written: 《…》), the suggestion too
        line = f"{icon} **{tr('severity.' + f.severity)}** — {plain(f.bilingual.text(lang()))}"
        if f.suggestion:
            line += f"  \n↳ {tr('findings.suggestion')}: {plain(f.suggestion)}"
        box.markdown(line)
        suggested = suggested_view(f.code, f.suggestion, day, catalogue=statutes)
        if suggested is not None:
            cited = next((c for c in citations if c.start <= f.start < c.end), None)
            _article(box, citation_view(cited, day) if cited else None, tr("citations.cited"))
            _article(box, suggested, tr("citations.suggested"))
    show_citations(citations, box, day)


def show_citations(
    citations: Sequence[Citation],
    target: st.delta_generator.DeltaGenerator | None = None,
    on: dt.date | None = None,
) -> None:
    """Each resolved citation, once, opening to its article's text, version and source (the
    version in force on `on`; default today)."""
    day = on or dt.date.today()
    views: dict[tuple[str, int], ArticleView] = {}
    for citation in citations:
        found = citation_view(citation, day)
        if found is not None:
            views.setdefault((found.statute, found.article.number), found)
    if not views:
        return
    box = (target or st).container()
    box.markdown(f"**{tr('citations.title', n=len(views))}**")
    for found in views.values():
        _article(box, found, "")


def _article(box: st.delta_generator.DeltaGenerator, found: ArticleView | None, label: str) -> None:
    if found is None:
        return
    heading = plain(found.heading_in(lang()))  # a firm's statutes file may name its own
    with box.expander(f"{label}：{heading}" if label else heading):
        st.text(found.text)
        st.caption(f"{tr('citations.source')}：{plain(found.shown_source)}")


def _fmt(value: float | None, pattern: str) -> str:
    return "—" if value is None else pattern.format(value)


def show_stats(
    stats: GenerationStats, target: st.delta_generator.DeltaGenerator | None = None
) -> None:
    """TTFT, tokens, tok/s and (where the server reports it) the draft acceptance rate."""
    cols = (target or st).columns(4)
    cols[0].metric(tr("stats.ttft"), _fmt(stats.ttft_s, "{:.2f} s"))
    tokens = str(stats.completion_tokens)
    cols[1].metric(
        tr("stats.tokens"),
        f"≥ {tokens}" if stats.tokens_estimated else tokens,
        help=tr("token_stats.estimated") if stats.tokens_estimated else tr("token_stats.counted"),
    )
    cols[2].metric(
        tr("stats.tok_s"), _fmt(stats.tokens_per_s, "{:.1f}"), help=tr("token_stats.rate")
    )
    cols[3].metric(tr("stats.acceptance"), _fmt(stats.acceptance_rate, "{:.0%}"))
