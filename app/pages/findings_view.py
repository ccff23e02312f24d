"""Showing a draft with its findings: highlighted text, the findings list, the numbers.

Shared by the Draft and History pages. All user/model text is HTML-escaped; only the
<mark> wrappers we add are markup.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

import streamlit as st

from app.domain import Finding, GenerationStats
from app.i18n import pick
from app.ui_state import lang, tr

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
        title = html.escape(pick(ui_lang, f.message_zh, f.message_en), quote=True)
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


def show_findings(
    findings: Sequence[Finding], target: st.delta_generator.DeltaGenerator | None = None
) -> None:
    """The findings panel: severity, message in the UI language, suggestion."""
    box = (target or st).container()
    if not findings:
        box.success(tr("findings.none"))
        return
    box.markdown(f"**{tr('findings.title', n=len(findings))}**")
    for f in sorted(findings, key=lambda f: f.start):
        icon = SEVERITY_ICON.get(f.severity, SEVERITY_ICON["info"])
        line = f"{icon} **{tr('severity.' + f.severity)}** — {pick(lang(), f.message_zh, f.message_en)}"
        if f.suggestion:
            line += f"  \n↳ {tr('findings.suggestion')}: {f.suggestion}"
        box.markdown(line)


def _fmt(value: float | None, pattern: str) -> str:
    return "—" if value is None else pattern.format(value)


def show_stats(
    stats: GenerationStats, target: st.delta_generator.DeltaGenerator | None = None
) -> None:
    """TTFT, tokens, tok/s and (where the server reports it) the draft acceptance rate."""
    cols = (target or st).columns(4)
    cols[0].metric(tr("stats.ttft"), _fmt(stats.ttft_s, "{:.2f} s"))
    cols[1].metric(tr("stats.tokens"), str(stats.completion_tokens))
    cols[2].metric(tr("stats.tok_s"), _fmt(stats.tokens_per_s, "{:.1f}"))
    cols[3].metric(tr("stats.acceptance"), _fmt(stats.acceptance_rate, "{:.0%}"))
