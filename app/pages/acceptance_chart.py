"""The Monitor page's per-position acceptance chart: the share of drafted tokens the target
accepted at each draft position (the page's caption says so), with both axes titled (position 1
is the first token the drafter proposes in a step; acceptance can only fall along the positions)."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from app.i18n import t

# The plot's height. A vertical axis title longer than it leaves the bars no room at all (the
# Monitor page drew an empty chart under a 21-character title at 200 px): the title is a word
# (the caption above the chart says the rest) and never longer than the plot (TITLE_LIMIT).
PLOT_HEIGHT = 200
TITLE_LIMIT = PLOT_HEIGHT - 20


def per_position_chart(rates: Sequence[float], ui_lang: str) -> alt.Chart:
    """Bars of acceptance (0–100%) per 1-based draft position, axes titled in `ui_lang`."""
    data = pd.DataFrame(
        {"position": list(range(1, len(rates) + 1)), "rate": [float(r) for r in rates]}
    )
    chart: alt.Chart = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X(
                "position:O",
                title=t("monitor_chart.axis_position", ui_lang),
                axis=alt.Axis(labelAngle=0),
            ),
            y=alt.Y(
                "rate:Q",
                title=t("monitor_chart.axis_acceptance", ui_lang),
                scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%", titleLimit=TITLE_LIMIT),
            ),
            tooltip=[
                alt.Tooltip("position:O", title=t("monitor_chart.axis_position", ui_lang)),
                alt.Tooltip(
                    "rate:Q", format=".1%", title=t("monitor_chart.axis_acceptance", ui_lang)
                ),
            ],
        )
        .properties(height=PLOT_HEIGHT)
    )
    return chart
