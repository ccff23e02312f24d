"""Choosing the draft length per step so that speculation pays on a compute-bound CPU.

On a CPU one target pass over n tokens costs far more than a single-token pass, and how much
more depends on the machine and on the context length: every extra row pays for the weight
matmuls (llama.cpp has no batched kernel for Q4_1, so rows cost almost linearly), for a row of
logits (the output head is a fifth of SmolLM2-135M), and for its attention over the whole
context (the CPU flash-attention kernel handles each row on its own). Measured here: a 17-row
pass costs about 4 single-token passes on one 2-core machine and about 10 on another.
`PassCost` therefore learns the seconds of a pass from timed passes: seed points measured at
start-up, then the engine's own passes on real traffic.

For each step we estimate S(j), the chance that the first j drafted tokens of the proposal are
all accepted (by how long its anchoring match is, and whether it follows a corrected token;
learnt online across requests), and pick the k that maximises expected tokens per unit cost,
(1 + S(1) + ... + S(k)) / cost(k+1, L); k = 0 (no draft) whenever nothing beats plain decoding.
A request whose drafts stop paying is switched to plain decoding for a cool-down that doubles
each time.
"""

from __future__ import annotations

import statistics
import time
from collections import deque
from collections.abc import Callable, Iterable

import numpy as np

# (rows, context length, milliseconds) of target passes measured on a 2-core machine where a
# 17-row pass costs about 10 single-token passes: a cautious prior until calibration or traffic
# says otherwise (a cheaper machine drafts more as soon as its own passes are timed).
DEFAULT_SEED: tuple[tuple[int, int, float], ...] = (
    (1, 256, 7.9), (2, 256, 14.5), (4, 256, 21.2), (8, 256, 36.1), (17, 256, 75.1),
    (1, 1024, 11.7), (2, 1024, 19.2), (4, 1024, 31.3), (8, 1024, 56.0), (17, 1024, 108.2),
)  # fmt: skip
BUCKETS = (0, 4, 8, 16, 32)  # match-length bucket lower bounds
PRIOR = (0.55, 0.7, 0.85, 0.92, 0.95)  # prior acceptance per bucket
PRIOR_WEIGHT = 8.0
DECAY = 0.995
RECOVER = 0.02  # per skipped proposal
MIN_GAIN = 1.05  # expected speed-up a draft must promise
MAX_DRAFT = 32  # longest survival curve asked for (verify batches stay below 32 rows anyway)
# Passes of plain decoding a request gets when its drafts stop paying, doubled each time: long
# enough to move past the passage that defeated the drafter, short enough to try again soon.
FIRST_COOLDOWN = 16
# The seed points' weight halves after this many passes observed on real traffic (and keeps
# fading): soon the machine's own timings outweigh the start-up calibration or DEFAULT_SEED.
SEED_FADE = 16
OUTLIER = (
    10.0  # a pass this many times slower than the fit (a stall, a swapped-out process) is ignored
)
# Every EXPLORE_EVERY-th proposal the cost model turns down is verified anyway, EXPLORE_SIZES
# tokens in turn: a little exploration, so multi-row passes keep being timed on live traffic
# and a fit that priced them from a busy start heals within a few hundred tokens.
EXPLORE_EVERY = 24
EXPLORE_SIZES = (2, 4, 8)


def features(n: int | np.ndarray, context: int | np.ndarray) -> np.ndarray:
    """1, L, m, m*L, sqrt(m) for m = n - 1 extra rows and L in thousands of tokens: the fixed
    cost, attention of one row, each extra row's matmuls and logits, its attention, and the
    sub-linear start of batching. n and context may be arrays (one row of features each)."""
    m = np.asarray(n, dtype=float) - 1
    x = np.broadcast_to(np.asarray(context, dtype=float) / 1000, m.shape)
    return np.stack([np.ones_like(m), x, m, m * x, np.sqrt(m)], axis=-1)


class PassCost:
    """Seconds of a target pass over n rows at context length L, fitted to timed passes.

    `seed` points (start-up calibration, or DEFAULT_SEED) stay in the least-squares fit for
    good, with a weight that fades as the last `window` passes observed on real traffic join
    them; the fit is refreshed every `refit_every` observations. Calling it gives the relative cost
    seconds(n, L) / seconds(1, L), clamped to [1, n].
    """

    def __init__(
        self,
        seed: Iterable[tuple[int, int, float]] | None = None,
        *,
        window: int = 512,
        refit_every: int = 32,
    ) -> None:
        points = (
            list(seed) if seed is not None else [(n, c, ms / 1000) for n, c, ms in DEFAULT_SEED]
        )
        if not points:
            raise ValueError("PassCost needs at least one seed point")
        self.seed = points
        self.recent: deque[tuple[int, int, float]] = deque(maxlen=window)
        self.refit_every = refit_every
        self.observed = 0  # passes of real traffic kept so far (calibration.Keeper reads it)
        self._pending = 0
        self.theta = np.zeros(5)
        self.refit()

    def refit(self) -> None:
        n, c, y = np.array(self.seed + list(self.recent), dtype=float).T
        x = features(n, c)
        # relative error matters, not absolute: weight each point by 1/seconds; the seed fades
        # as traffic comes in (it keeps the shape where traffic has no passes of some size)
        fade = np.array(
            [1.0 / (1.0 + len(self.recent) / SEED_FADE)] * len(self.seed) + [1.0] * len(self.recent)
        )
        w = fade / np.maximum(y, 1e-6)
        self.theta = np.linalg.lstsq(x * w[:, None], y * w, rcond=None)[0]
        self._pending = 0

    def seconds(self, n: int, context: int = 0) -> float:
        return float(features(n, context) @ self.theta)

    def observe(self, n: int, context: int, seconds: float) -> None:
        """Add one timed pass of real traffic. A pass far slower than the fit (a stall) is
        dropped; a far faster one is kept: it is the machine freed from a load it was
        calibrated under, exactly what the fit must learn."""
        predicted = self.seconds(n, context)
        if predicted > 0 and seconds > predicted * OUTLIER:
            return
        self.recent.append((n, context, seconds))
        self.observed += 1
        self._pending += 1
        if self._pending >= self.refit_every:
            self.refit()

    def relative(self, n: np.ndarray, context: int = 0) -> np.ndarray:
        """seconds(n, L) / seconds(1, L) for an array of row counts, clamped to [1, n]."""
        n = np.asarray(n, dtype=float)
        one = self.seconds(1, context)
        if one <= 0:  # a degenerate fit far outside the data: assume no batching gain
            return n
        return np.clip(features(n, context) @ self.theta / one, 1.0, n)

    def __call__(self, n: int, context: int = 0) -> float:
        return float(self.relative(np.asarray(n), context))

    def table(self, context: int, sizes: Iterable[int] = (2, 4, 8, 17)) -> dict[int, float]:
        """Relative costs at one context length, for logs and benchmarks."""
        return {n: round(self(n, context), 2) for n in sizes}


class Explorer:
    """When to verify a draft the cost model turned down (see EXPLORE_EVERY), and how long.

    Without it a server whose fit says drafting never pays times single-row passes only, so
    the fit never learns that multi-row passes got cheaper (calibrated while the machine was
    busy, it would draft 0 tokens for good). Exploring costs a few rows now and then and
    changes no output: a verified draft yields exactly the target's tokens."""

    def __init__(self, every: int = EXPLORE_EVERY, sizes: tuple[int, ...] = EXPLORE_SIZES) -> None:
        self.every = every
        self.sizes = sizes
        self._declined = 0
        self._turn = 0

    def size(self) -> int:
        """0 (do not draft), or how many tokens of a declined proposal to verify anyway."""
        self._declined += 1
        if self._declined < self.every:
            return 0
        self._declined = 0
        self._turn += 1
        return self.sizes[(self._turn - 1) % len(self.sizes)]


def time_passes(
    decode_n: Callable[[int], None], sizes: Iterable[int], reps: int = 5
) -> list[tuple[int, float]]:
    """Median seconds of decode_n(n) for each n, the sizes interleaved so a busy CPU hits all."""
    sizes = list(sizes)
    times: dict[int, list[float]] = {n: [] for n in sizes}
    for _ in range(reps):
        for n in sizes:
            t0 = time.perf_counter()
            decode_n(n)
            times[n].append(time.perf_counter() - t0)
    return [(n, statistics.median(ts)) for n, ts in times.items()]


def bucket(match_len: int) -> int:
    return max(i for i, lo in enumerate(BUCKETS) if match_len >= lo)


class AcceptanceModel:
    """Server-wide estimates, per match-length bucket, of how far a draft gets.

    Two decayed Beta counts per bucket: whether a draft's first token is accepted, and whether
    each later token is, given the one before it was. Drafts are not independent coin flips: a
    loop or a copied paragraph is broken at its first token or accepted whole, so the first
    token carries most of the risk. Survival S(j), the chance that the first j drafted tokens
    are all accepted, is first * rest^(j-1); every verified draft, whatever its length, informs
    both rates, so drafts grow as long as they keep being accepted.
    """

    def __init__(self) -> None:
        self.first = [[p * PRIOR_WEIGHT, PRIOR_WEIGHT] for p in PRIOR]  # [accepted, trials]
        self.rest = [[p * PRIOR_WEIGHT, PRIOR_WEIGHT] for p in PRIOR]

    def rates(self, match_len: int) -> tuple[float, float]:
        """(first-token acceptance, later-token acceptance) for a match this long."""
        b = bucket(match_len)
        return self.first[b][0] / self.first[b][1], self.rest[b][0] / self.rest[b][1]

    def survival(self, match_len: int, k: int = MAX_DRAFT) -> np.ndarray:
        """S(1..k): the chance that the first j drafted tokens are all accepted."""
        first, rest = self.rates(match_len)
        return first * rest ** np.arange(k)

    def record(self, match_len: int, drafted: int, accepted: int) -> None:
        """One verified draft: tokens 1..accepted passed, the next one (if any) failed."""
        b = bucket(match_len)
        for counts in (self.first[b], self.rest[b]):
            counts[0] *= DECAY
            counts[1] *= DECAY
        self.first[b][0] += accepted >= 1
        self.first[b][1] += 1
        if accepted >= 1:  # later tokens were tried only if the first one passed
            self.rest[b][0] += accepted - 1
            self.rest[b][1] += min(accepted + 1, drafted) - 1

    def skipped(self, match_len: int) -> None:
        """A proposal was not drafted: drift back toward the prior, so drafting is re-tried."""
        b = bucket(match_len)
        for counts in (self.first[b], self.rest[b]):
            counts[0] = counts[0] * (1 - RECOVER) + PRIOR[b] * PRIOR_WEIGHT * RECOVER
            counts[1] = counts[1] * (1 - RECOVER) + PRIOR_WEIGHT * RECOVER


def geometric(a: float, k: int) -> np.ndarray:
    """Survival of k drafts whose tokens are each accepted with probability a, independently."""
    return a ** np.arange(1, k + 1)


def expected_tokens(survival: np.ndarray) -> np.ndarray:
    """Tokens one pass yields with k = 1, 2, ... drafts: the accepted ones (the running sum of
    survival) plus one."""
    return 1.0 + np.cumsum(survival)


def plan(
    survival: np.ndarray,
    k_max: int,
    cost: PassCost,
    extra_cost_per_draft: float = 0.0,
    context: int = 0,
) -> tuple[int, float]:
    """The k in 0..k_max with the highest expected tokens per unit cost, and that value
    (k = 0, value 1.0: do not draft, nothing promises MIN_GAIN over plain decoding)."""
    ks = np.arange(1, min(k_max, len(survival)) + 1)
    if not len(ks):
        return 0, 1.0
    passes = cost.relative(ks + 1, context) + extra_cost_per_draft * ks
    values = expected_tokens(survival[: len(ks)]) / passes
    best = int(np.argmax(values))  # the shortest draft among equally good ones
    return (best + 1, float(values[best])) if values[best] > MIN_GAIN else (0, 1.0)


class RequestGovernor:
    """Per request: switch drafting off for a while when realised gain falls below plain."""

    def __init__(self, cost: PassCost, window: int = 6) -> None:
        self.cost = cost
        self.window = window
        self.tokens = 0.0
        self.spent = 0.0
        self.steps = 0
        self.cooldown = 0
        self.penalty = FIRST_COOLDOWN
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
