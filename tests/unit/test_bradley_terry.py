"""Bradley–Terry ranking of pairwise preferences: known answers (closed forms for two arms,
symmetric designs, ties as half wins, dominance) and the likelihood equations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from app.studies.stats import Comparison, bradley_terry

Z = float(norm.ppf(0.975))


def _games(a: str, b: str, a_wins: int, b_wins: int, ties: int = 0) -> list[Comparison]:
    return (
        [Comparison(a, b, 1.0)] * a_wins
        + [Comparison(a, b, 0.0)] * b_wins
        + [Comparison(b, a, 0.5)] * ties
    )


@pytest.mark.parametrize(
    ("a_wins", "b_wins", "ties"),
    [(3, 1, 0), (7, 3, 0), (2, 0, 2), (5, 5, 0), (1, 1, 6), (10, 2, 3)],
)
def test_two_arms_match_the_closed_form(a_wins: int, b_wins: int, ties: int) -> None:
    """θa − θb = log(wa / wb) with ties half a win each; se(θa − θb)² = n / (wa·wb)."""
    ranking = bradley_terry(_games("a", "b", a_wins, b_wins, ties), ["a", "b"])
    assert ranking.estimable
    by_arm = {s.arm: s for s in ranking.arms}
    wa, wb, n = a_wins + ties / 2, b_wins + ties / 2, a_wins + b_wins + ties
    diff = math.log(wa / wb)
    a, b = by_arm["a"], by_arm["b"]
    assert a.strength is not None and b.strength is not None
    assert a.strength - b.strength == pytest.approx(diff, abs=1e-9)
    assert a.strength + b.strength == pytest.approx(0, abs=1e-9)  # centred
    assert (a.wins, a.comparisons) == (wa, n)
    half_width = Z * math.sqrt(n / (wa * wb)) / 2  # se of θa is half the difference's
    assert a.low == pytest.approx(a.strength - half_width)
    assert a.high == pytest.approx(a.strength + half_width)
    assert [s.arm for s in ranking.arms] == (["a", "b"] if wa >= wb else ["b", "a"])


def test_symmetric_cycle_gives_equal_strengths() -> None:
    games = _games("a", "b", 2, 0) + _games("b", "c", 2, 0) + _games("c", "a", 2, 0)
    ranking = bradley_terry(games, ["a", "b", "c"])
    assert ranking.estimable
    for s in ranking.arms:
        assert s.strength == pytest.approx(0, abs=1e-9)
        assert s.low is not None and s.high is not None and s.low < 0 < s.high
        assert s.comparisons == 4 and s.wins == 2


def test_all_ties_give_equal_strengths() -> None:
    games = _games("x", "y", 0, 0, 4) + _games("y", "z", 0, 0, 4) + _games("x", "z", 0, 0, 4)
    ranking = bradley_terry(games, ["x", "y", "z"])
    assert ranking.estimable
    assert all(s.strength == pytest.approx(0, abs=1e-9) for s in ranking.arms)


def test_dominance_is_not_estimable_and_is_fitted_with_one_virtual_tie_a_pair() -> None:
    """An arm that won every comparison has an unbounded strength (Ford's condition fails): the
    strengths are fitted with one virtual tie between every two arms, finite and ordered."""
    games = _games("best", "mid", 4, 0) + _games("best", "low", 4, 0) + _games("mid", "low", 3, 1)
    arms = ["low", "mid", "best"]
    ranking = bradley_terry(games, arms)
    assert not ranking.estimable and ranking.prior
    assert [s.arm for s in ranking.arms] == ["best", "mid", "low"]
    assert [s.wins for s in ranking.arms] == [8, 3, 1]  # the real wins, not the virtual ties
    assert [s.comparisons for s in ranking.arms] == [8, 8, 8]
    assert [ranking.win_rate(s) for s in ranking.arms] == [1.0, 3 / 8, 1 / 8]
    strengths = [s.strength for s in ranking.arms]
    assert all(v is not None for v in strengths)
    assert strengths[0] > strengths[1] > strengths[2]  # type: ignore[operator]
    assert sum(strengths) == pytest.approx(0, abs=1e-9)  # type: ignore[arg-type]
    for s in ranking.arms:
        assert s.low is not None and s.high is not None and s.low < s.strength < s.high  # type: ignore[operator]
    # the fit is the maximum of the likelihood with the virtual ties added
    prior = games + [Comparison(a, b, 0.5) for i, a in enumerate(arms) for b in arms[i + 1 :]]
    expected = bradley_terry(prior, arms)
    assert expected.estimable and not expected.prior
    by_arm = {s.arm: s.strength for s in expected.arms}
    for s in ranking.arms:
        assert s.strength == pytest.approx(by_arm[s.arm], abs=1e-9)


def test_one_tie_is_enough_to_make_a_dominant_arm_estimable() -> None:
    ranking = bradley_terry(_games("a", "b", 4, 0, 1), ["a", "b"])
    assert ranking.estimable and ranking.arms[0].arm == "a"


def test_three_arms_satisfy_the_likelihood_equations() -> None:
    """At the maximum, each arm's expected wins equal its observed wins."""
    games = _games("a", "b", 6, 2, 1) + _games("b", "c", 5, 3) + _games("a", "c", 7, 1, 2)
    arms = ["a", "b", "c"]
    ranking = bradley_terry(games, arms)
    theta = {s.arm: s.strength for s in ranking.arms}
    assert [s.arm for s in ranking.arms] == ["a", "b", "c"]
    for arm in arms:
        expected = observed = 0.0
        for g in games:
            if arm in (g.a, g.b):
                other = g.b if g.a == arm else g.a
                expected += 1 / (1 + np.exp(theta[other] - theta[arm]))
                observed += g.score if g.a == arm else 1 - g.score
        assert expected == pytest.approx(observed, abs=1e-8)


def test_no_comparisons_at_all() -> None:
    ranking = bradley_terry([], ["a", "b", "c"])
    assert not ranking.estimable and not ranking.prior
    assert all(s.strength is None and ranking.win_rate(s) is None for s in ranking.arms)
    assert {s.arm for s in ranking.arms} == {"a", "b", "c"}
    assert all(s.comparisons == 0 for s in ranking.arms)
