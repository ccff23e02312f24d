"""Choosing the draft length per step so that speculation pays on a compute-bound CPU.

On a CPU one target pass over n tokens costs far more than a single-token pass, and more so
the longer the context: llama.cpp's CPU flash-attention kernel handles every row of a batch on
its own, so attention costs rows x context while the weight matmuls are shared. Measured for
SmolLM2-135M (2 threads, idle machine): a 17-row pass costs about 3.9 single-token passes at
150 tokens of context and 5.3-5.9 at 550-750. `PassCost` holds cost tables calibrated at
start-up at two context lengths and interpolates between them. For each step we estimate the
per-token acceptance probability `a` of the proposal (by how long its anchoring match is, and
whether it follows a corrected token; learnt online across requests) and pick the k that
maximises expected tokens per unit cost, (1 - a^(k+1)) / (1 - a) / cost(k+1, L); k = 0
(no draft) whenever nothing beats plain decoding. A request whose drafts stop paying is
switched to plain decoding for a cool-down that doubles each time.
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

# relative cost of one target pass over n tokens (n = k drafts + 1); calibrated at start-up
DEFAULT_COST = {1: 1.0, 2: 1.5, 4: 1.75, 8: 2.3, 16: 2.9}  # at ~150 tokens of context
DEFAULT_COST_FAR = {1: 1.0, 2: 1.5, 4: 2.0, 8: 2.8, 16: 4.4}  # at ~600 tokens of context
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


@dataclass(frozen=True)
class PassCost:
    """Relative cost of a target pass over n rows at context length L (1.0: one row at L).

    Two tables measured at context lengths `near` and `far`, linearly interpolated in L
    (extrapolated up to twice the gap beyond `far`).
    """

    near_table: dict[int, float] = field(default_factory=lambda: dict(DEFAULT_COST))
    far_table: dict[int, float] = field(default_factory=lambda: dict(DEFAULT_COST_FAR))
    near: int = 150
    far: int = 600

    def __call__(self, n: int, context: int = 0) -> float:
        w = min(max((context - self.near) / max(self.far - self.near, 1), 0.0), 3.0)
        lo, hi = interpolate(self.near_table, n), interpolate(self.far_table, n)
        return max(lo + (hi - lo) * w, 1.0)


def paired_ratio(decode_n: Callable[[int], None], n: int, pairs: int) -> float:
    """Median time of an n-row pass over a 1-row pass, timed back to back."""
    ratios = []
    for _ in range(pairs):
        t0 = time.perf_counter()
        decode_n(1)
        t1 = time.perf_counter()
        decode_n(n)
        t2 = time.perf_counter()
        ratios.append((t2 - t1) / max(t1 - t0, 1e-6))
    return statistics.median(ratios)


def calibrate(
    decode_n: Callable[[int], None],
    sizes: tuple[int, ...] = (2, 4, 8, 16),
    pairs: int = 7,
    default: dict[int, float] = DEFAULT_COST,
) -> dict[int, float]:
    """Relative cost of a pass over n tokens: median of paired (n-token / 1-token) timings.

    Pairs run back to back so a busy, shared CPU slows both alike; the result is clamped to
    a band around DEFAULT_COST so one noisy start-up cannot switch drafting off for good.
    """
    cost = {1: 1.0}
    for n in sizes:
        ref = interpolate(default, n)
        cost[n] = min(max(paired_ratio(decode_n, n, pairs), ref / 1.5, 1.0), ref * 1.5)
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


def best_k(
    a: float, k_max: int, cost: PassCost, extra_cost_per_draft: float = 0.0, context: int = 0
) -> int:
    """The k in 0..k_max with the highest expected tokens per unit cost (0: do not draft)."""
    best, best_value = 0, 1.0
    for k in range(1, k_max + 1):
        value = expected_tokens(a, k) / (cost(k + 1, context) + extra_cost_per_draft * k)
        if value > best_value:
            best, best_value = k, value
    return best if best_value > MIN_GAIN else 0


class RequestGovernor:
    """Per request: switch drafting off for a while when realised gain falls below plain."""

    def __init__(self, cost: PassCost, window: int = 6) -> None:
        self.cost = cost
        self.window = window
        self.tokens = 0.0
        self.spent = 0.0
        self.steps = 0
        self.cooldown = 0
        self.penalty = 16
        self.missed = False  # the last pass rejected a draft: a correction token came next

    def tag(self, source: str) -> str:
        """Acceptance is learnt separately for proposals that follow a corrected token."""
        return f"{source}+miss" if self.missed else source

    def allowed(self) -> bool:
        if self.cooldown > 0:
            self.cooldown -= 1
            return False
        return True

    def record(self, k: int, produced: int, extra_cost: float = 0.0, context: int = 0) -> None:
        self.tokens += produced
        self.spent += self.cost(k + 1, context) + extra_cost
        self.steps += 1
        if self.steps >= self.window:
            if self.tokens / self.spent < 1.0:
                self.cooldown = self.penalty
                self.penalty *= 2
            self.tokens = self.spent = 0.0
            self.steps = 0
