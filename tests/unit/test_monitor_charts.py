"""Monitor charts: one unit per chart, axis titles, readable tick formats, and a y range that
never collapses to one value (an all-zero series used to label its axis "0.000000")."""

from __future__ import annotations

from datetime import datetime, timedelta

import pandas as pd
import pytest

from app.pages.monitor import SERIES, WHOLE_NUMBER_FORMATS, _line_chart


def frame(**columns: list[float | None]) -> pd.DataFrame:
    start = datetime(2026, 1, 1, 9, 0, 0)
    n = len(next(iter(columns.values())))
    times = [start + timedelta(seconds=5 * i) for i in range(n)]
    return pd.DataFrame({"t": times, **columns}).set_index("t")


def y_of(chart: object) -> dict[str, object]:
    return chart.to_dict()["encoding"]["y"]  # type: ignore[attr-defined, no-any-return]


@pytest.mark.parametrize(
    ("group", "values", "domain"),
    [
        ("throughput", {"gen_tok_s": [0.0, 0.0, 0.0]}, [0.0, 1.0]),  # idle: no degenerate axis
        ("throughput", {"gen_tok_s": [10.0, 20.0, None]}, [0.0, 22.0]),
        ("requests", {"running": [0.0, 0.0], "waiting": [0.0, 0.0]}, [0.0, 1.0]),
        ("kv", {"kv_cache_usage": [0.0, 0.02]}, [0.0, 1.0]),  # a share: always 0–100%
        ("acceptance", {"acceptance_rate": [None, None]}, [0.0, 1.0]),
    ],
)
def test_the_y_range_never_collapses(
    group: str, values: dict[str, list[float | None]], domain: list[float]
) -> None:
    y = y_of(_line_chart(frame(**values), group))
    assert y["scale"]["domain"] == pytest.approx(domain)  # type: ignore[index]


def test_each_chart_names_its_unit_and_formats_its_numbers() -> None:
    for group, (columns, number_format, _) in SERIES.items():
        chart = _line_chart(frame(**{c: [1.0, 2.0] for c in columns}), group)
        y = y_of(chart)
        assert y["title"] and not str(y["title"]).startswith("monitor_chart"), group
        assert y["axis"]["format"] == number_format  # type: ignore[index]
        x = chart.to_dict()["encoding"]["x"]
        assert x["title"] and x["axis"]["format"] == "%H:%M:%S"


@pytest.mark.parametrize(
    "group", [g for g, spec in SERIES.items() if spec[1] in WHOLE_NUMBER_FORMATS]
)
def test_axes_without_decimals_tick_whole_numbers(group: str) -> None:
    """An idle throughput axis (0 to 1 tok/s) used to tick 0.2, 0.4… and print each as "0"."""
    columns = SERIES[group][0]
    y = y_of(_line_chart(frame(**{c: [0.0, 0.0] for c in columns}), group))
    assert y["axis"]["tickMinStep"] == 1  # type: ignore[index]
    assert "throughput" in [g for g, spec in SERIES.items() if spec[1] in WHOLE_NUMBER_FORMATS]
