"""Results page (admin): per arm and dimension mean ± 95% CI, paired differences with the
Wilcoxon p, hard errors, Krippendorff's alpha, a chart, and below it the Bradley–Terry
ranking of a preference design; gold catch rates per reviewer (flagged below the threshold);
CSV and DOCX downloads. Locked until every verdict is in (or an admin unblinded early)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import altair as alt
import pandas as pd
import streamlit as st

from app.domain import Role, describe
from app.pages.plain_text import plain
from app.pages.ui_state import context, lang, require_user, tr

if TYPE_CHECKING:
    from app.studies.report import StudyReport


def results_chart(report: StudyReport, ui_lang: str) -> alt.LayerChart | None:
    """Mean per arm and dimension with its 95% CI; the axis widens to show every interval whole.
    None when no mean is in yet."""
    from app.studies.report import REPORT_DIMENSIONS, SCALE, text

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
        return None
    data = pd.DataFrame(rows)
    domain = [min(SCALE[0], float(data["low"].min())), max(SCALE[1], float(data["high"].max()))]
    base = alt.Chart(data).encode(
        # every dimension named under its bars: long labels are tilted, never dropped as
        # overlapping (Vega's default hides every other label that does not fit)
        x=alt.X(
            "dimension:N",
            title=tr("results_chart.axis_dimension"),
            axis=alt.Axis(labelAngle=-30, labelOverlap=False, labelLimit=240),
        ),
        xOffset="arm:N",
        color=alt.Color("arm:N", title=tr("results_chart.axis_arm")),
    )
    y = alt.Y(
        "mean:Q",
        scale=alt.Scale(domain=domain, nice=False),
        title=tr("results_chart.axis_score"),
        axis=alt.Axis(format=".1f"),
    )
    tooltip = ["arm:N", "dimension:N", alt.Tooltip("mean:Q", format=".2f"),
               alt.Tooltip("low:Q", format=".2f"), alt.Tooltip("high:Q", format=".2f")]  # fmt: skip
    bars = base.mark_bar().encode(y=y, tooltip=tooltip)
    # The interval is drawn black, as the axis title says: the arm's colour must not reach it.
    whiskers = (
        alt.Chart(data)
        .mark_rule(color="black", strokeWidth=2)
        .encode(x="dimension:N", xOffset="arm:N", y="low:Q", y2="high:Q")
    )
    scale_edges = alt.Chart(pd.DataFrame({"edge": list(SCALE)})).mark_rule(strokeDash=[4, 4])
    chart: alt.LayerChart = bars + whiskers + scale_edges.encode(y="edge:Q")
    return chart


def _report(report: StudyReport) -> None:
    from app.studies.report import (
        caution_lines,
        early_unblinding_line,
        quality_lines,
        ranking_table,
        report_csv,
        report_docx,
        summary_header,
        summary_line,
        summary_rows,
    )

    ui_lang = lang()
    st.caption(plain(summary_line(report, ui_lang)))
    for line in [*caution_lines(report, ui_lang), *quality_lines(report, ui_lang)]:
        st.warning(plain(line))  # reviewers' names
    if report.unblinded_at is not None:
        st.warning(plain(early_unblinding_line(report, ui_lang)))
    table = pd.DataFrame(summary_rows(report, ui_lang), columns=summary_header(ui_lang))
    st.dataframe(table, hide_index=True, width="stretch")
    chart = results_chart(report, ui_lang)
    header, ranking = ranking_table(report, ui_lang)
    if chart is not None:
        st.markdown(f"**{tr('results.chart')}**")
        st.altair_chart(chart, width="stretch")
    if ranking:  # full width: every column (strength, interval, win rate) in view at once
        st.markdown(f"**{tr('results.ranking')}**")
        st.dataframe(pd.DataFrame(ranking, columns=header), hide_index=True, width="stretch")
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
    from app.studies import service as studies
    from app.studies.domain import ResultsLocked

    user = require_user(Role.ADMIN)
    st.title(tr("results.title"))
    try:
        with context().session() as session:
            everything = studies.list_studies(session=session, actor=user)
    except Exception as exc:  # noqa: BLE001 - a page shows the failure, never a traceback
        st.error(tr("results.load_failed", detail=describe(exc).text(lang())))
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
        with context().session() as session:
            report = studies.results(
                study_id, settings=context().settings, session=session, actor=user
            )
    except ResultsLocked:
        st.info(tr("results.locked"))
        return
    except Exception as exc:  # noqa: BLE001 - a page shows the failure, never a traceback
        st.error(tr("results.load_failed", detail=describe(exc).text(lang())))
        return
    _report(report)
