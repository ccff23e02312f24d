"""Planning a study: pairs and cases needed, against published known answers."""

from __future__ import annotations

import math

import pytest

from app.studies.power import (
    MIN_OBSERVED,
    paired_t_pairs,
    paired_t_power,
    plan_cases,
    spread,
    wilcoxon_pairs,
)


# Paired t-test, two-sided α = 0.05, power 0.80: the sample sizes G*Power and Cohen's tables
# give for effect sizes d = difference / SD.
@pytest.mark.parametrize(("d", "n"), [(0.2, 199), (0.5, 34), (0.8, 15), (1.0, 10)])
def test_paired_t_pairs_known_answers(d: float, n: int) -> None:
    assert paired_t_pairs(d, 1.0) == n
    assert paired_t_pairs(2 * d, 2.0) == n  # only the ratio matters
    assert paired_t_power(n, d, 1.0) >= 0.8 > paired_t_power(n - 1, d, 1.0)


@pytest.mark.parametrize(("d", "n"), [(0.2, 209), (0.5, 36), (0.8, 16), (1.0, 11), (3.0, 6)])
def test_wilcoxon_pairs_is_the_t_pairs_over_its_efficiency(d: float, n: int) -> None:
    assert wilcoxon_pairs(d, 1.0) == n
    assert n == max(6, math.ceil(paired_t_pairs(d, 1.0) * math.pi / 3))


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError):
        paired_t_pairs(0, 1)
    with pytest.raises(ValueError):
        plan_cases(0, n_arms=2, n_reviewers=3, default_sd=2)


@pytest.mark.parametrize(
    ("n_arms", "n_reviewers", "cases"),
    # difference 1 point, SD 2 (d = 0.5): 36 pairs; one case gives reviewers / P pairs
    [(2, 3, 12), (2, 1, 36), (3, 3, 36), (4, 3, 72), (2, 4, 9)],
)
def test_cases_needed_follow_the_design(n_arms: int, n_reviewers: int, cases: int) -> None:
    plan = plan_cases(1.0, n_arms=n_arms, n_reviewers=n_reviewers, default_sd=2.0)
    assert (plan.pairs_needed, plan.cases_needed, plan.sd_source) == (36, cases, "default")


def test_observed_spread_replaces_the_default_once_enough_pairs_are_in() -> None:
    few = [1.0, -1.0, 0.0, 2.0][: MIN_OBSERVED - 1]
    assert spread(few, 2.0) == (2.0, "default")
    same = [1.0] * MIN_OBSERVED  # no variation: the default stays
    assert spread(same, 2.0) == (2.0, "default")
    observed = [1.0, -1.0, 1.0, -1.0, 0.0, 0.0]
    sd, source = spread(observed, 2.0)
    assert source == "observed" and sd == pytest.approx(math.sqrt(4 / 5))
    plan = plan_cases(1.0, n_arms=2, n_reviewers=3, default_sd=2.0, observed=observed)
    assert plan.sd_source == "observed" and plan.pairs_needed < 36
