"""Choosing the draft length per step so that speculation pays on a compute-bound CPU.

On a CPU one target pass over n tokens costs far more than a single-token pass (measured
about 1.5x at n=2, 1.75x at n=4, 2.3x at n=8, 2.9x at n=16 for SmolLM2-135M with flash
attention, on an idle machine), so a wasted
draft is expensive. For each step we estimate the per-token acceptance probability `a` of
the proposal (by how long its anchoring match is, learnt online across requests) and pick
the k that maximises expected tokens per unit cost, (1 - a^(k+1)) / (1 - a) / cost(k+1);
k = 0 (no draft) whenever nothing beats plain decoding. A request whose drafts stop paying
is switched to plain decoding for a cool-down that doubles each time.
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable

# relative cost of one target pass over n tokens (n = k drafts + 1); calibrated at start-up
DEFAULT_COST = {1: 1.0, 2: 1.5, 4: 1.75, 8: 2.3, 16: 2.9}
BUCKETS = (0, 4, 8, 16, 32)  # match-length bucket lower bounds
PRIOR = (0.55, 0.7, 0.85, 0.92, 0.95)  # prior acceptance per bucket
PRIOR_WEIGHT = 8.0
DECAY = 0.995
RECOVER = 0.02  # per skipped proposal
MIN_GAIN = 1.05  # expected speed-up a draft must promise


def interpolate(cost: dict[int, float], n: int) -> float:
    keys = sorted(cost)
    if n in cost:
        return cost[n]
    if n > keys[-1]:
        a, b = keys[-2], keys[-1]
        return cost[b] + (cost[b] - cost[a]) / (b - a) * (n - b)
    lo = max(k for k in keys if k < n)
    hi = min(k for k in keys if k > n)
    return cost[lo] + (cost[hi] - cost[lo]) * (n - lo) / (hi - lo)


def calibrate(
    decode_n: Callable[[int], None], sizes: tuple[int, ...] = (2, 4, 8, 16), pairs: int = 7
) -> dict[int, float]:
    """Relative cost of a pass over n tokens: median of paired (n-token / 1-token) timings.

    Pairs run back to back so a busy, shared CPU slows both alike; the result is clamped to
    a band around DEFAULT_COST so one noisy start-up cannot switch drafting off for good.
    """
    cost = {1: 1.0}
    for n in sizes:
        ratios = []
        for _ in range(pairs):
            t0 = time.perf_counter()
            decode_n(1)
            t1 = time.perf_counter()
            decode_n(n)
            t2 = time.perf_counter()
            ratios.append((t2 - t1) / max(t1 - t0, 1e-6))
        ref = interpolate(DEFAULT_COST, n)
        cost[n] = min(max(statistics.median(ratios), ref / 1.5, 1.0), ref * 1.5)
    for a, b in itertools.pairwise(sorted(cost)):  # monotone despite timing noise
        cost[b] = max(cost[b], cost[a])
    return cost


def bucket(match_len: int) -> int:
    return max(i for i, lo in enumerate(BUCKETS) if match_len >= lo)


class AcceptanceModel:
    """Server-wide acceptance estimates per match-length bucket (decayed Beta counts)."""

    def __init__(self) -> None:
        self.acc = [p * PRIOR_WEIGHT for p in PRIOR]
        self.tot = [PRIOR_WEIGHT] * len(PRIOR)

    def estimate(self, match_len: int) -> float:
        b = bucket(match_len)
        return self.acc[b] / self.tot[b]

    def record(self, match_len: int, drafted: int, accepted: int) -> None:
        """Per-token outcome: accepted tokens succeeded, the first rejection (if any) failed."""
        b = bucket(match_len)
        trials = accepted + (1 if accepted < drafted else 0)
        self.acc[b] = self.acc[b] * DECAY + accepted
        self.tot[b] = self.tot[b] * DECAY + trials

    def skipped(self, match_len: int) -> None:
        """A proposal was not drafted: drift back toward the prior, so drafting is re-tried."""
        b = bucket(match_len)
        self.acc[b] = self.acc[b] * (1 - RECOVER) + PRIOR[b] * PRIOR_WEIGHT * RECOVER
        self.tot[b] = self.tot[b] * (1 - RECOVER) + PRIOR_WEIGHT * RECOVER


def expected_tokens(a: float, k: int) -> float:
    """Tokens one pass yields when each of k drafts is accepted with probability a (+1 bonus)."""
    return float(k + 1) if a >= 1.0 else (1.0 - a ** (k + 1)) / (1.0 - a)


def best_k(a: float, k_max: int, cost: dict[int, float], extra_cost_per_draft: float = 0.0) -> int:
    """The k in 0..k_max with the highest expected tokens per unit cost (0: do not draft)."""
    best, best_value = 0, 1.0
    for k in range(1, k_max + 1):
        value = expected_tokens(a, k) / (interpolate(cost, k + 1) + extra_cost_per_draft * k)
        if value > best_value:
            best, best_value = k, value
    return best if best_value > MIN_GAIN else 0


class RequestGovernor:
    """Per request: switch drafting off for a while when realised gain falls below plain."""

    def __init__(self, cost: dict[int, float], window: int = 6) -> None:
        self.cost = cost
        self.window = window
        self.tokens = 0.0
        self.spent = 0.0
        self.steps = 0
        self.cooldown = 0
        self.penalty = 16

    def allowed(self) -> bool:
        if self.cooldown > 0:
            self.cooldown -= 1
            return False
        return True

    def record(self, k: int, produced: int, extra_cost: float = 0.0) -> None:
        self.tokens += produced
        self.spent += interpolate(self.cost, k + 1) + extra_cost
        self.steps += 1
        if self.steps >= self.window:
            if self.tokens / self.spent < 1.0:
                self.cooldown = self.penalty
                self.penalty *= 2
            self.tokens = self.spent = 0.0
            self.steps = 0
