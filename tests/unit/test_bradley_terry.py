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


def test_dominance_is_not_estimable_and_ranks_by_share_of_wins() -> None:
    """An arm that won every comparison has an unbounded strength (Ford's condition fails)."""
    games = _games("best", "mid", 4, 0) + _games("best", "low", 4, 0) + _games("mid", "low", 3, 1)
    ranking = bradley_terry(games, ["low", "mid", "best"])
    assert not ranking.estimable
    assert [s.arm for s in ranking.arms] == ["best", "mid", "low"]
    assert all(s.strength is None and s.low is None for s in ranking.arms)
    assert [s.wins for s in ranking.arms] == [8, 3, 1]


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
    assert not ranking.estimable
    assert {s.arm for s in ranking.arms} == {"a", "b", "c"}
    assert all(s.comparisons == 0 for s in ranking.arms)
