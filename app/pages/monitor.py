"""Monitor page (admin): scrape each endpoint's /metrics every few seconds, chart a rolling
history of acceptance, throughput, latency and KV-cache use, and show the advice that fires."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pandas as pd
import streamlit as st

from app.ui_state import lang, require_user, settings, tr

HISTORY = "monitor.history"
LAST = "monitor.last"
KEEP = 120  # points of history per endpoint
SERIES = {
    "acceptance": ("acceptance_rate", "mean_acceptance_length"),
    "throughput": ("gen_tok_s",),
    "latency": ("ttft_p50", "ttft_p95", "itl_p50", "itl_p95"),
    "load": ("kv_cache_usage", "running", "waiting"),
}


def _sample(name: str) -> tuple[Any, Any]:
    """Scrape one endpoint: rates since the previous scrape, and totals since server start."""
    from app.serving.metrics_parse import derive, scrape

    endpoint = settings().all_endpoints()[name]
    snap = scrape(endpoint, name=name)
    previous = st.session_state.setdefault(LAST, {}).get(name)
    if snap.ok:
        st.session_state[LAST][name] = snap
    return derive(previous, snap), derive(None, snap)


def _remember(name: str, derived: Any, tick: datetime) -> pd.DataFrame:
    rows: list[dict[str, Any]] = st.session_state.setdefault(HISTORY, {}).setdefault(name, [])
    if derived.error is None:
        row = {"t": tick}
        for columns in SERIES.values():
            row.update({c: getattr(derived, c) for c in columns})
        rows.append(row)
        del rows[:-KEEP]
    return pd.DataFrame(rows).set_index("t") if rows else pd.DataFrame()


def _advice(derived: Any) -> None:
    from app.serving.metrics_parse import advice

    fired = advice(derived, num_speculative_tokens=settings().num_speculative_tokens)
    for item in fired:
        st.warning(item.message(lang()))
    if not fired:
        st.caption(tr("monitor.no_advice"))


def _endpoint_panel(name: str, tick: datetime) -> None:
    derived, total = _sample(name)
    st.subheader(name)
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
        st.bar_chart(pd.Series(total.per_position, name=tr("monitor.per_position")), height=180)
    if len(frame) > 1:
        charts = st.columns(2)
        for i, (group, columns) in enumerate(SERIES.items()):
            with charts[i % 2]:
                st.caption(tr(f"monitor.chart.{group}"))
                st.line_chart(frame[list(columns)].astype(float), height=180)
    _advice(derived)


@st.fragment(run_every=5)
def _live() -> None:
    tick = datetime.now().replace(microsecond=0)
    for name in settings().all_endpoints():
        _endpoint_panel(name, tick)


def render() -> None:
    require_user("admin")
    st.title(tr("monitor.title"))
    st.caption(tr("monitor.intro"))
    _live()
