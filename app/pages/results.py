"""Results page (admin): per arm and dimension mean ± 95% CI, paired differences with the
Wilcoxon p, hard errors, Krippendorff's alpha, a chart, CSV and DOCX downloads. Locked
until every verdict is in (or an admin unblinded early)."""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from app.pages.draft_run import message_of
from app.ui_state import db_session, lang, require_user, tr


def _chart(report: Any, ui_lang: str) -> None:
    from app.study_report import REPORT_DIMENSIONS, text

    rows = [
        {
            "arm": arm,
            "dimension": text(dim, ui_lang),
            "mean": m.mean,
            "low": m.low if m.low is not None else m.mean,
            "high": m.high if m.high is not None else m.mean,
        }
        for arm in report.arms
        for dim in REPORT_DIMENSIONS
        if (m := report.means[arm][dim]).mean is not None
    ]
    if not rows:
        return
    data = pd.DataFrame(rows)
    base = alt.Chart(data).encode(
        x=alt.X("dimension:N", title=None), xOffset="arm:N", color=alt.Color("arm:N", title=None)
    )
    bars = base.mark_bar().encode(y=alt.Y("mean:Q", scale=alt.Scale(domain=[0, 10]), title=None))
    whiskers = base.mark_rule(color="black").encode(y="low:Q", y2="high:Q")
    st.markdown(f"**{tr('results.chart')}**")
    st.altair_chart(bars + whiskers, use_container_width=True)


def _report(report: Any) -> None:
    from app.study_report import (
        early_unblinding_line,
        report_csv,
        report_docx,
        summary_header,
        summary_line,
        summary_rows,
    )

    ui_lang = lang()
    st.caption(summary_line(report, ui_lang))
    if report.unblinded_at is not None:
        st.warning(early_unblinding_line(report, ui_lang))
    table = pd.DataFrame(summary_rows(report, ui_lang), columns=summary_header(ui_lang))
    st.dataframe(table, hide_index=True, use_container_width=True)
    _chart(report, ui_lang)
    cols = st.columns(2)
    stem = f"study-{report.study_id}"
    cols[0].download_button(
        tr("results.download_csv"),
        ("\ufeff" + report_csv(report, ui_lang)).encode("utf-8"),
        f"{stem}.csv",
        "text/csv",
    )
    mime = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    cols[1].download_button(
        tr("results.download_docx"), report_docx(report, ui_lang), f"{stem}.docx", mime
    )


def render() -> None:
    from app import studies
    from audit.review_domain import ResultsLocked

    user = require_user("admin")
    st.title(tr("results.title"))
    try:
        with db_session() as session:
            everything = studies.list_studies(user.name, session=session)
    except Exception as exc:
        st.error(tr("results.load_failed", detail=message_of(exc, lang())))
        return
    if not everything:
        st.info(tr("results.none"))
        return
    names = {s.id: s.name for s in everything}
    study_id = st.selectbox(
        tr("results.pick"),
        list(names),
        format_func=lambda i: f"#{i} {names[i]}",
        key="results.pick",
    )
    try:
        with db_session() as session:
            report = studies.results(user.name, study_id, session=session)
    except ResultsLocked:
        st.info(tr("results.locked"))
        return
    except Exception as exc:
        st.error(tr("results.load_failed", detail=message_of(exc, lang())))
        return
    _report(report)
