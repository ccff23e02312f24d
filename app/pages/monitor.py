"""Monitor page (admin): scrape each endpoint's /metrics every few seconds, chart a rolling
history of acceptance, throughput, latency and KV-cache use, and show the advice that fires."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import altair as alt
import pandas as pd
import streamlit as st

from app.domain import Role, describe
from app.pages.acceptance_chart import per_position_chart
from app.pages.plain_text import plain
from app.pages.ui_state import context, lang, require_user, tr

if TYPE_CHECKING:
    from app.llm.metrics_parse import DerivedMetrics

HISTORY = "monitor.history"
LAST = "monitor.last"
KEEP = 120  # points of history per endpoint
# chart group → (columns, y-axis number format, fixed y domain or None); one unit per chart
SERIES: dict[str, tuple[tuple[str, ...], str, tuple[float, float] | None]] = {
    "acceptance": (("acceptance_rate",), ".0%", (0.0, 1.0)),
    "mean_len": (("mean_acceptance_length",), ".1f", None),
    "throughput": (("gen_tok_s",), ",.0f", None),
    "latency": (("ttft_p50", "ttft_p95", "itl_p50", "itl_p95"), ",.3~f", None),
    "kv": (("kv_cache_usage",), ".0%", (0.0, 1.0)),
    "requests": (("running", "waiting"), "d", None),
}
WHOLE_NUMBER_FORMATS = ("d", ",.0f")


def _sample(name: str) -> tuple[DerivedMetrics, DerivedMetrics]:
    """Scrape one endpoint: rates since the previous scrape, and totals since server start."""
    from app.llm.metrics_parse import derive, scrape

    endpoint = context().settings.all_endpoints()[name]
    snap = scrape(endpoint, name=name)
    previous = st.session_state.setdefault(LAST, {}).get(name)
    if snap.ok:
        st.session_state[LAST][name] = snap
    return derive(previous, snap), derive(None, snap)


def _remember(name: str, derived: DerivedMetrics, tick: datetime) -> pd.DataFrame:
    rows: list[dict[str, object]] = st.session_state.setdefault(HISTORY, {}).setdefault(name, [])
    if derived.error is None:
        row: dict[str, object] = {"t": tick}
        for columns, _, _ in SERIES.values():
            row.update({c: getattr(derived, c) for c in columns})
        rows.append(row)
        del rows[:-KEEP]
    return pd.DataFrame(rows).set_index("t") if rows else pd.DataFrame()


def _advice(derived: DerivedMetrics) -> None:
    from app.llm.metrics_parse import advice

    fired = advice(derived, num_speculative_tokens=context().settings.num_speculative_tokens)
    for item in fired:
        st.warning(plain(item.message(lang())))
    if not fired:
        st.caption(tr("monitor.no_advice"))


def _endpoint_panel(name: str, tick: datetime) -> None:
    derived, total = _sample(name)
    st.subheader(plain(name))
    if derived.error is not None:
        st.error(tr("monitor.scrape_failed", detail=derived.error))
        return
    frame = _remember(name, derived, tick)
    cols = st.columns(4)
    rate = total.acceptance_rate
    cols[0].metric(tr("monitor.acceptance_rate"), "—" if rate is None else f"{rate:.0%}")
    mal = total.mean_acceptance_length
    cols[1].metric(tr("monitor.mean_len"), "—" if mal is None else f"{mal:.2f}")
    tps = derived.gen_tok_s
    cols[2].metric(tr("monitor.tok_s"), "—" if tps is None else f"{tps:.1f}")
    kv = derived.kv_cache_usage
    cols[3].metric(tr("monitor.kv_cache"), "—" if kv is None else f"{kv:.0%}")
    running, waiting = derived.running, derived.waiting
    st.caption(
        tr("monitor.since_start", n=int(total.requests), running=running or 0, waiting=waiting or 0)
    )
    if total.per_position:
        st.caption(tr("monitor.per_position"))
        st.altair_chart(per_position_chart(total.per_position, lang()))
    if len(frame) > 1:
        charts = st.columns(2)
        for i, group in enumerate(SERIES):
            with charts[i % 2]:
                st.caption(tr(f"monitor_chart.{group}"))
                st.altair_chart(_line_chart(frame, group), width="stretch", height=240)
    _advice(derived)


def _line_chart(frame: pd.DataFrame, group: str) -> alt.LayerChart | alt.Chart:
    """One chart, one unit: labelled axes, readable numbers, and a y range that never
    collapses to a single value (all-zero series used to print ticks like "0.000000")."""
    columns, number_format, fixed = SERIES[group]
    data = frame[list(columns)].astype(float).reset_index().melt("t", var_name="series")
    data["series"] = data["series"].map(lambda c: tr(f"monitor_chart.series.{c}"))
    top = float(data["value"].max()) if data["value"].notna().any() else 0.0
    domain = fixed or (0.0, top * 1.1 if top > 0 else 1.0)
    axis = (  # a format without decimals needs whole-number ticks, or 0.2, 0.4… all print "0"
        alt.Axis(format=number_format, tickMinStep=1)
        if number_format in WHOLE_NUMBER_FORMATS
        else alt.Axis(format=number_format)
    )
    chart: alt.LayerChart | alt.Chart = (
        alt.Chart(data)
        .mark_line(point=True)
        .encode(
            x=alt.X("t:T", title=tr("monitor_chart.time"), axis=alt.Axis(format="%H:%M:%S")),
            y=alt.Y(
                "value:Q",
                title=tr(f"monitor_chart.unit.{group}"),
                scale=alt.Scale(domain=domain),
                axis=axis,
            ),
            color=alt.Color("series:N", title=None, legend=alt.Legend(orient="top")),
        )
    )
    return chart


@st.fragment(run_every=5)
def _live() -> None:
    tick = datetime.now().replace(microsecond=0)
    for name in context().settings.all_endpoints():
        _endpoint_panel(name, tick)


def _audit_spool() -> None:
    """Records waiting in the audit spool, and spool lines moved to its quarantine."""
    from app.database import spool_status

    status = spool_status(context().settings)
    if status.problem is not None:  # not a file of its own (a link): neither read nor emptied
        st.error(status.problem.text(lang()))
    if status.pending:
        st.warning(tr("monitor.spool_pending", n=status.pending, path=status.spool_path))
    if status.quarantined:
        st.error(tr("monitor.spool_quarantined", n=status.quarantined, path=status.quarantine_path))


def _writing_quality() -> None:
    """How each endpoint writes and why (its model's kept measurement, one being taken, or
    none yet), and a button to measure it now, with progress. The line above the button is
    redrawn after measuring, so it never goes on saying "not measured"."""
    from app.drafting.writing_mode import decide, decision_line, measure_details
    from app.drafting.writing_quality import measure_endpoint

    for name in context().settings.all_endpoints():
        decision = decide(name, context().settings)
        banner = st.empty()
        banner.caption(plain(f"{name}: {decision_line(decision, lang())}"))
        found = decision.measure
        label = "writing_quality.remeasure_button" if found else "writing_quality.measure_button"
        if not st.button(tr(label), key=f"monitor.measure.{name}"):
            continue
        with st.status(tr("writing_quality.measuring", endpoint=name)) as status:
            bar = st.progress(0.0)

            def step(
                done: int, total: int, type_id: str, bar: st.delta_generator.DeltaGenerator = bar
            ) -> None:
                bar.progress(
                    done / max(total, 1),
                    tr("writing_quality.progress", done=done, total=total, type=type_id),
                )

            try:
                found = measure_endpoint(
                    name, settings=context().settings, progress=step, again=True
                )
            except Exception as exc:  # noqa: BLE001 - a failure is shown, never a traceback
                status.update(state="error")
                st.error(tr("writing_quality.failed", detail=describe(exc).text(lang())))
                continue
            status.update(state="complete")
        banner.caption(plain(f"{name}: {decision_line(decide(name, context().settings), lang())}"))
        st.success(plain(measure_details(found, lang())))


def render() -> None:
    require_user(Role.ADMIN)
    st.title(tr("monitor.title"))
    st.caption(tr("monitor.intro"))
    _audit_spool()
    _writing_quality()
    _live()
