"""Review statistics checked against scipy and the `krippendorff` package on known data."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from scipy import stats

from app.studies.stats import (
    ScoredDraft,
    agreement,
    hard_errors,
    krippendorff_alpha_interval,
    mean_ci,
    paired_differences,
    per_arm_means,
    wilcoxon_signed_rank,
)

NAN = float("nan")


@pytest.mark.parametrize(
    "values",
    [[8, 7, 9, 6, 8], [7.5, 8.25], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 3, 3], [5, 5, 5, 6]],
)
def test_mean_ci_matches_scipy_t_interval(values: list[float]) -> None:
    got = mean_ci(values)
    x = np.asarray(values, dtype=float)
    low, high = stats.t.interval(0.95, x.size - 1, loc=x.mean(), scale=stats.sem(x))
    assert got.n == x.size
    assert got.mean == pytest.approx(x.mean())
    assert got.low == pytest.approx(low)
    assert got.high == pytest.approx(high)


def test_mean_ci_small_samples() -> None:
    assert mean_ci([]).mean is None
    one = mean_ci([4.0])
    assert (one.n, one.mean, one.low, one.high) == (1, 4.0, None, None)
    constant = mean_ci([3, 3, 3])
    assert constant.low == constant.high == 3.0


@pytest.mark.parametrize(
    "diffs",
    [
        [1.5, -0.2, 2.1, 0.7, 3.3, -1.1, 0.9, 1.4, 2.6, -0.4],  # no ties: exact
        [0.3, 0.8, 1.1, 1.7, 2.2, 2.9, 3.4],  # all positive
        [
            -4.1,
            0.6,
            -2.5,
            1.9,
            -3.3,
            0.2,
            -0.7,
            -5.4,
            2.8,
            -1.2,
            3.6,
            -6.5,
            4.4,
            -7.3,
            0.9,
            5.1,
            -8.2,
            6.6,
            -9.7,
            7.7,
            -10.4,
            8.8,
            -11.9,
            9.3,
            -12.6,
        ],  # n = 25, no ties
    ],
)
def test_wilcoxon_without_ties_matches_scipy_exact(diffs: list[float]) -> None:
    got = wilcoxon_signed_rank(diffs)
    ref = stats.wilcoxon(diffs, method="exact")
    assert got.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    assert min(got.w_plus, got.n * (got.n + 1) / 2 - got.w_plus) == pytest.approx(ref.statistic)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            [8, 7, 9, 6, 8, 7, 9, 8, 5, 7],
            [7, 7, 8, 6, 6, 5, 9, 7, 6, 6],
        ),  # integer scores: ties, zeros
        ([9, 9, 8, 8, 7, 10, 6, 8], [7, 8, 6, 9, 5, 7, 6, 6]),
        ([3, 5, 5, 6, 2, 8, 8, 4, 7, 9, 1, 6], [4, 4, 3, 6, 4, 5, 6, 7, 3, 6, 3, 2]),
    ],
)
def test_wilcoxon_with_ties_and_zeros_matches_scipy_permutation(a: list[int], b: list[int]) -> None:
    diffs = np.subtract(a, b)
    got = wilcoxon_signed_rank(diffs.tolist())
    # n <= 13 with ties: scipy's default is an exhaustive (hence exact) permutation test
    ref = stats.wilcoxon(a, b)
    assert got.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    assert got.n == int(np.count_nonzero(diffs))


@pytest.mark.parametrize("seed", [1, 4])
def test_wilcoxon_large_tied_sample_close_to_normal_approximation(seed: int) -> None:
    # n = 120 with heavy ties: scipy falls back to the normal approximation, which
    # should agree with the exact conditional p-value to well under 1 % here
    diffs = np.random.default_rng(seed).integers(-3, 4, size=120).astype(float)
    got = wilcoxon_signed_rank(diffs.tolist())
    ref = stats.wilcoxon(diffs, method="asymptotic", correction=True)
    assert got.p_value is not None
    assert got.p_value == pytest.approx(ref.pvalue, rel=0.01)


def test_wilcoxon_degenerate_inputs() -> None:
    assert wilcoxon_signed_rank([]).p_value is None
    all_zero = wilcoxon_signed_rank([0, 0, 0])
    assert (all_zero.n, all_zero.p_value) == (0, 1.0)
    single = wilcoxon_signed_rank([2.0])
    assert single.p_value == 1.0  # one positive pair: P(W+ >= 1) = 1/2, doubled


KRIPP_CASES = [
    # Krippendorff's own example (interval data, missing values), 4 coders × 12 units
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ],
    # three reviewers, 0-10 scores, complete
    [[8, 7, 9, 6, 8, 5], [7, 7, 8, 6, 9, 4], [8, 6, 9, 7, 8, 5]],
    # poor agreement with a missing rating
    [[1, 9, 5, 2, NAN], [8, 2, 5, 7, 3], [4, 4, NAN, 9, 6]],
]


@pytest.mark.parametrize("data", KRIPP_CASES)
def test_krippendorff_alpha_matches_package(data: list[list[float]]) -> None:
    got = krippendorff_alpha_interval(data)
    ref = krippendorff.alpha(reliability_data=np.array(data), level_of_measurement="interval")
    assert got == pytest.approx(ref, rel=1e-9)


def test_krippendorff_known_value_and_degenerate() -> None:
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability": interval alpha = 0.849
    assert krippendorff_alpha_interval(KRIPP_CASES[0]) == pytest.approx(0.849, abs=5e-4)
    assert krippendorff_alpha_interval([[1, NAN], [NAN, 2]]) is None  # nothing pairable
    assert krippendorff_alpha_interval([[3, 3], [3, 3]]) is None  # no variation
    perfect = krippendorff_alpha_interval([[1, 5, 9], [1, 5, 9]])
    assert perfect == pytest.approx(1.0)
    with pytest.raises(ValueError):
        krippendorff_alpha_interval([1, 2, 3])  # type: ignore[list-item]


def _drafts() -> list[ScoredDraft]:
    scores = {
        ("r1", "c1"): ((8, 7, 9, 0), (7, 7, 8, 1)),
        ("r1", "c2"): ((9, 8, 8, 0), (6, 7, 7, 2)),
        ("r2", "c1"): ((7, 8, 9, 1), (7, 6, 8, 0)),
        ("r2", "c2"): ((8, 9, 7, 0), (5, 8, 6, 1)),
        ("r3", "c1"): ((9, 7, 8, 0), (8, 7, 7, 0)),
    }
    out = []
    for (reviewer, case), (spec, plain) in scores.items():
        for arm, (cit, struct, term, errs) in (("spec", spec), ("plain", plain)):
            dims = {"citation": cit, "structure": struct, "terminology": term}
            out.append(ScoredDraft(reviewer, case, arm, dims, errs))
    # r3 scored only the spec draft of c2: it has no pair and must not enter the paired test
    out.append(
        ScoredDraft("r3", "c2", "spec", {"citation": 6, "structure": 6, "terminology": 6}, 3)
    )
    return out


DIMS = ("citation", "structure", "terminology")


def test_report_pieces_on_known_data() -> None:
    drafts = _drafts()
    means = per_arm_means(drafts, ("spec", "plain"), DIMS)
    assert means["spec"]["citation"].n == 6
    assert means["spec"]["citation"].mean == pytest.approx((8 + 9 + 7 + 8 + 9 + 6) / 6)
    assert means["plain"]["citation"].mean == pytest.approx((7 + 6 + 7 + 5 + 8) / 5)

    paired = {p.dimension: p for p in paired_differences(drafts, ("spec", "plain"), DIMS)}
    cit = paired["citation"]
    expected = [8 - 7, 9 - 6, 7 - 7, 8 - 5, 9 - 8]
    assert cit.diff.n == 5
    assert cit.diff.mean == pytest.approx(np.mean(expected))
    assert cit.test.p_value == pytest.approx(stats.wilcoxon(expected).pvalue)

    errs = {h.arm: h for h in hard_errors(drafts, ("spec", "plain"))}
    assert (errs["spec"].total, errs["spec"].drafts) == (4, 6)
    assert errs["spec"].per_draft == pytest.approx(4 / 6)
    assert (errs["plain"].total, errs["plain"].per_draft) == (4, pytest.approx(4 / 5))


def test_agreement_builds_the_reliability_matrix_with_missing_cells() -> None:
    drafts = _drafts()
    alpha = agreement(drafts, DIMS)
    # units sorted (case, arm): (c1,plain) (c1,spec) (c2,plain) (c2,spec); raters r1 r2 r3
    cit = [[7, 8, 6, 9], [7, 7, 5, 8], [8, 9, NAN, 6]]
    ref = krippendorff.alpha(reliability_data=np.array(cit), level_of_measurement="interval")
    assert alpha["citation"] == pytest.approx(ref)
    term = [[8, 9, 7, 8], [8, 9, 6, 7], [7, 8, NAN, 6]]
    ref_term = krippendorff.alpha(reliability_data=np.array(term), level_of_measurement="interval")
    assert alpha["terminology"] == pytest.approx(ref_term)
    assert agreement([], DIMS) == dict.fromkeys(DIMS)
