"""Study designs and the blinding plan (pure): which pair of arms a reviewer sees for each
case, in which order, which arm is shown as A, and where gold items sit.

A study has 2–6 arms. Every case is drafted by every arm; each reviewer sees each case once,
as one pair of arms. Pairs are dealt round-robin over the study's (reviewer, queue place)
cells, so across the study every pair of arms is shown about equally often (counts differ by
at most one), and within one reviewer's queue too; for each pair the A/B slot is a shuffled
balanced list, so each arm of the pair is A in ⌊m/2⌋ or ⌈m/2⌉ of that reviewer's m showings.
With two arms this is exactly the original plan (same seed → same queue), so stored seeds of
older studies reproduce their queues.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from audit.vocabulary import GoldKind, Slot, StudyDesign

MIN_ARMS, MAX_ARMS = 2, 6
# seeded errors of gold items, and the score dimension each one harms (None: no dimension
# covers it, so only a reported hard error catches it)
GOLD_KINDS: dict[GoldKind, str | None] = {
    GoldKind.WRONG_ARTICLE: "citation",
    GoldKind.MISSING_SECTION: "structure",
    GoldKind.WRONG_COUNT: None,
}


def typed_design(value: str) -> StudyDesign:
    """A stored design as its typed value (anything unknown reads as the original design)."""
    return next((d for d in StudyDesign if d == value), StudyDesign.SCORES)


def asks_scores(design: str) -> bool:
    return design in (StudyDesign.SCORES, StudyDesign.BOTH)


def asks_preference(design: str) -> bool:
    return design in (StudyDesign.PREFERENCE, StudyDesign.BOTH)


@dataclass(frozen=True)
class PlannedPair:
    """One entry of a reviewer's queue: which case, where, and which arms are shown as A / B
    (arms by their 0-based position in the study)."""

    case_id: int
    position: int
    arm_a: int
    arm_b: int

    @property
    def arm0_is_a(self) -> bool:
        """Two-arm studies: is the first arm shown as A?"""
        return self.arm_a == 0


def arm_pairs(n_arms: int) -> list[tuple[int, int]]:
    """Every unordered pair of arm positions, in a fixed order."""
    return list(combinations(range(n_arms), 2))


def plan_queue(
    case_ids: Sequence[int], seed: int, *, n_arms: int = 2, reviewer_index: int = 0
) -> list[PlannedPair]:
    """A reviewer's own shuffled case order, the pair of arms per case and balanced A/B slots.

    Queue place i of reviewer r gets pair (r·n + i) mod P, so pairs are dealt round-robin over
    the whole study. For each pair, this reviewer's A/B flags are a shuffled list with exactly
    half True (the odd one out decided by the same seeded generator). Deterministic given the
    seed and the reviewer's index, which are stored.
    """
    rng = random.Random(seed)
    order = list(case_ids)
    rng.shuffle(order)
    n = len(order)
    pairs = arm_pairs(n_arms)
    dealt = [pairs[(reviewer_index * n + i) % len(pairs)] for i in range(n)]
    flags_for: dict[tuple[int, int], Iterator[bool]] = {}
    for pair in pairs:
        m = dealt.count(pair)
        flags = [True] * (m // 2) + [False] * (m // 2)
        if m % 2:
            flags.append(rng.random() < 0.5)
        rng.shuffle(flags)
        flags_for[pair] = iter(flags)
    out = []
    for i, (case_id, (first, second)) in enumerate(zip(order, dealt, strict=True)):
        first_is_a = next(flags_for[(first, second)])
        a, b = (first, second) if first_is_a else (second, first)
        out.append(PlannedPair(case_id, i + 1, a, b))
    return out


def gold_places(n_places: int, per_reviewer: int, seed: int) -> list[tuple[int, Slot]]:
    """Where a reviewer's gold items go: (queue position, slot), distinct positions, seeded.

    Slots alternate between A and B in a seeded order, so a gold item is as often A as B."""
    if per_reviewer <= 0 or n_places == 0:
        return []
    rng = random.Random(seed ^ 0x60D)
    positions = rng.sample(range(1, n_places + 1), min(per_reviewer, n_places))
    first = rng.choice([Slot.A, Slot.B])  # the same draw as the original rng.choice("AB")
    other = Slot.B if first == Slot.A else Slot.A
    return [(p, first if i % 2 == 0 else other) for i, p in enumerate(positions)]
