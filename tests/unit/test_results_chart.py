"""The results chart draws each mean's 95% interval in black, as its axis title says (the arm's
colour used to reach the interval rules, which then rendered blue)."""

from __future__ import annotations

from app.i18n import t
from app.pages.results import results_chart
from tests.unit.test_study_caution import report


def test_interval_rules_are_black_and_not_coloured_by_arm() -> None:
    chart = results_chart(report(6, [5, 6, 5, 6, 5, 6], [4, 5, 4, 5, 4, 5]), "zh")
    assert chart is not None
    bars, whiskers, _edges = chart.to_dict()["layer"]
    assert bars["mark"]["type"] == "bar" and "color" in bars["encoding"]
    assert whiskers["mark"] == {"type": "rule", "color": "black", "strokeWidth": 2}
    assert "color" not in whiskers["encoding"]
    assert whiskers["encoding"]["y2"]["field"] == "high"
    assert "黑线" in t("results_chart.axis_score", "zh")


def test_no_chart_before_any_mean() -> None:
    empty = report(0, [], [])
    assert results_chart(empty, "en") is None


def test_every_dimension_is_labelled_under_its_bars() -> None:
    """Vega hides x labels that overlap by default (half the dimensions lost their names)."""
    chart = results_chart(report(6, [5, 6, 5, 6, 5, 6], [4, 5, 4, 5, 4, 5]), "zh")
    assert chart is not None
    axis = chart.to_dict()["layer"][0]["encoding"]["x"]["axis"]
    assert axis["labelOverlap"] is False and axis["labelAngle"] != 0


def test_per_position_acceptance_has_titled_axes() -> None:
    from app.pages.acceptance_chart import per_position_chart

    spec = per_position_chart([0.9, 0.7, 0.4], "en").to_dict()
    x, y = spec["encoding"]["x"], spec["encoding"]["y"]
    assert x["title"] == t("monitor_chart.axis_position", "en") and x["title"].startswith("Draft")
    assert y["title"] == t("monitor_chart.axis_acceptance", "en")
    assert y["axis"]["format"] == "%" and y["scale"]["domain"] == [0, 1]
    positions = [row["position"] for row in next(iter(spec["datasets"].values()))]
    assert positions == [1, 2, 3]  # 1-based, as the axis title says
    assert t("monitor_chart.axis_position", "zh").startswith("草稿位置")


def test_per_position_acceptance_leaves_its_bars_room() -> None:
    """A vertical axis title longer than the plot's height left no room for the bars (the
    Monitor page drew an empty chart): the plot has its own height, the title a limit below it,
    and both languages' titles are words (the caption above the chart explains them)."""
    from app.pages.acceptance_chart import per_position_chart

    for lang in ("zh", "en"):
        spec = per_position_chart([0.9, 0.7, 0.4], lang).to_dict()
        assert spec["encoding"]["y"]["axis"]["titleLimit"] < spec["height"]
        assert len(spec["encoding"]["y"]["title"]) <= 8
        assert spec["encoding"]["y"]["title"] in t("monitor.per_position", lang)
