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
