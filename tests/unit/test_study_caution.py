"""Results say when they cannot support a conclusion: fewer than 6 pairs (the exact Wilcoxon
test cannot reach p < 0.05), or a mean's interval reaching beyond the 0–10 scale."""

from __future__ import annotations

import pytest

from app.domain import Bilingual
from app.studies import stats as rs
from app.studies.report import MIN_PAIRS, REPORT_DIMENSIONS, StudyReport, caution_lines


def report(pairs: int, scores_a: list[float], scores_b: list[float]) -> StudyReport:
    """A report whose every dimension has the given scores per arm and `pairs` pairs."""
    a, b = rs.mean_ci(scores_a), rs.mean_ci(scores_b)
    diff = rs.mean_ci([x - y for x, y in zip(scores_a, scores_b, strict=True)])
    paired = tuple(
        rs.PairedDifference(d, rs.MeanCI(pairs, diff.mean, diff.low, diff.high),
                            rs.SignedRank(pairs, 0.0, None))
        for d in REPORT_DIMENSIONS
    )  # fmt: skip
    return StudyReport(
        study_id=1, name="s", doc_type="t", doc_type_title=Bilingual("类型", "Type"), arms=("A", "B"), endpoints=("e", "e"), n_cases=pairs,
        reviewers=("r",), verdicts_in=2 * pairs, verdicts_expected=2 * pairs, unblinded_by=None,
        unblinded_at=None, means={"A": dict.fromkeys(REPORT_DIMENSIONS, a),
                                  "B": dict.fromkeys(REPORT_DIMENSIONS, b)},
        paired=paired, hard_errors=(), agreement={}, drafts=(), errors_listed=(), comments=(),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("scores_a", "scores_b", "too_small", "beyond"),
    [
        ([1, 9], [9, 1], True, True),  # n = 2: CI −45…55 on a 0–10 scale, say both
        ([5, 5.2], [5, 5.2], True, False),  # tight but still only 2 pairs
        ([5, 6, 5, 6, 5, 6], [4, 5, 4, 5, 4, 5], False, False),  # 6 pairs, inside the scale
        ([0, 10, 0, 10, 0, 10], [5] * 6, False, True),  # enough pairs, a mean's CI off-scale
    ],
)
def test_caution_lines(
    scores_a: list[float], scores_b: list[float], too_small: bool, beyond: bool
) -> None:
    lines = caution_lines(report(len(scores_a), scores_a, scores_b), "en")
    assert any("too small to conclude" in line for line in lines) is too_small
    assert any("beyond the 0–10 score range" in line for line in lines) is beyond
    zh = caution_lines(report(len(scores_a), scores_a, scores_b), "zh")
    assert len(zh) == len(lines)


def test_the_threshold_is_where_wilcoxon_can_first_reach_five_percent() -> None:
    # the smallest exact two-sided p with n pairs is 2 / 2^n
    assert 2 / 2 ** (MIN_PAIRS - 1) > 0.05 >= 2 / 2**MIN_PAIRS
