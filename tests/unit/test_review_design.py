"""Study designs: pairs of arms dealt evenly over reviewers and cases, A/B slots balanced per
pair, the two-arm plan unchanged (stored seeds of older studies reproduce their queues), and
gold places distinct and balanced between slots."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from app.studies.design import arm_pairs, gold_places, plan_queue


def _original_two_arm_plan(case_ids: list[int], seed: int) -> list[tuple[int, int, bool]]:
    """The plan before studies had more than two arms, as it was written."""
    rng = random.Random(seed)
    order = list(case_ids)
    rng.shuffle(order)
    n = len(order)
    flags = [True] * (n // 2) + [False] * (n // 2)
    if n % 2:
        flags.append(rng.random() < 0.5)
    rng.shuffle(flags)
    return [(c, i + 1, f) for i, (c, f) in enumerate(zip(order, flags, strict=True))]


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_two_arm_plan_is_the_original_plan(n: int) -> None:
    cases = list(range(10, 10 + n))
    for seed in range(30):
        got = [(p.case_id, p.position, p.arm0_is_a) for p in plan_queue(cases, seed)]
        assert got == _original_two_arm_plan(cases, seed)
        assert all({p.arm_a, p.arm_b} == {0, 1} for p in plan_queue(cases, seed))


@pytest.mark.parametrize(
    ("n_arms", "n_cases", "n_reviewers"),
    [(3, 6, 3), (3, 5, 2), (4, 12, 3), (5, 7, 4), (6, 15, 3), (6, 4, 5)],
)
def test_every_pair_of_arms_is_shown_about_equally_often(
    n_arms: int, n_cases: int, n_reviewers: int
) -> None:
    cases = list(range(n_cases))
    pairs = arm_pairs(n_arms)
    overall: Counter[tuple[int, int]] = Counter()
    for r in range(n_reviewers):
        plan = plan_queue(cases, 1000 + r, n_arms=n_arms, reviewer_index=r)
        assert sorted(p.case_id for p in plan) == cases  # each case once per reviewer
        mine = Counter(tuple(sorted((p.arm_a, p.arm_b))) for p in plan)
        assert max(mine.values()) - min(mine.get(q, 0) for q in pairs) <= 1
        for pair in pairs:  # the A/B slot of each pair balanced within this reviewer
            a_first = sum(p.arm_a == pair[0] for p in plan if {p.arm_a, p.arm_b} == set(pair))
            assert a_first in (mine[pair] // 2, (mine[pair] + 1) // 2)
        overall.update(mine)
    assert max(overall.values()) - min(overall.get(q, 0) for q in pairs) <= 1


def test_three_arms_three_reviewers_known_counts() -> None:
    # 3 reviewers × 6 cases = 18 pairs over 3 pairs of arms: exactly 6 each, 3 each way
    slots: Counter[tuple[int, int]] = Counter()
    for r in range(3):
        plan = plan_queue(range(6), 7 * r, n_arms=3, reviewer_index=r)
        slots.update((p.arm_a, p.arm_b) for p in plan)
    assert slots == {(a, b): 3 for a in range(3) for b in range(3) if a != b}


def test_plan_is_deterministic_per_seed_and_reviewer() -> None:
    a = plan_queue(range(9), 5, n_arms=4, reviewer_index=2)
    assert a == plan_queue(range(9), 5, n_arms=4, reviewer_index=2)
    assert a != plan_queue(range(9), 5, n_arms=4, reviewer_index=1)


@pytest.mark.parametrize(("places", "per_reviewer"), [(6, 2), (5, 1), (10, 4), (3, 0)])
def test_gold_places_are_distinct_and_alternate_slots(places: int, per_reviewer: int) -> None:
    for seed in range(40):
        gold = gold_places(places, per_reviewer, seed)
        positions = [p for p, _ in gold]
        assert len(gold) == per_reviewer and len(set(positions)) == per_reviewer
        assert all(1 <= p <= places for p in positions)
        slots = Counter(s for _, s in gold)
        assert abs(slots["A"] - slots["B"]) <= 1
        assert gold == gold_places(places, per_reviewer, seed)
