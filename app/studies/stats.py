"""Statistics for blind review studies (pure functions over plain numbers).

Means with t-based confidence intervals, the Wilcoxon signed-rank test on paired
scores (exact conditional distribution, so tied integer scores are handled
correctly), Krippendorff's alpha with the interval metric, missing ratings
allowed, a Bradley–Terry ranking of pairwise preferences, and reviewers' catch
rates on gold items (planning a study's size is app.studies.power). Ranks and distributions
come from scipy; the tests compare every number against scipy, the `krippendorff` package or
a closed form. Alpha is computed here (a few lines of numpy) rather than by that package: it is
GPL-3.0-or-later, so it stays a test-only dependency of this Apache-2.0 project.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm, rankdata
from scipy.stats import t as student_t


@dataclass(frozen=True)
class MeanCI:
    """A sample mean with its t-based confidence interval (None when n < 2)."""

    n: int
    mean: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class SignedRank:
    """Wilcoxon signed-rank test on paired differences (zeros dropped, as Wilcoxon did)."""

    n: int  # non-zero differences used
    w_plus: float  # sum of ranks of positive differences
    p_value: float | None  # two-sided; None when there are no pairs at all


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> MeanCI:
    """Mean and the Student-t interval mean ± t(1-α/2, n-1)·s/√n."""
    x = np.asarray(values, dtype=float)
    n = int(x.size)
    if n == 0:
        return MeanCI(0, None, None, None)
    mean = float(x.mean())
    if n < 2:
        return MeanCI(n, mean, None, None)
    sem = float(x.std(ddof=1)) / math.sqrt(n)
    half = float(student_t.ppf(0.5 + confidence / 2, n - 1)) * sem
    return MeanCI(n, mean, mean - half, mean + half)


def signed_rank_null(doubled_ranks: Sequence[int]) -> np.ndarray:
    """Exact null distribution of 2·W+ when each rank's sign is a fair coin.

    Ranks are doubled so that tied (half-integer) ranks stay integers; a simple
    dynamic programme over sums replaces enumerating all 2**n sign patterns.
    """
    total = int(sum(doubled_ranks))
    dist = np.zeros(total + 1)
    dist[0] = 1.0
    for r in doubled_ranks:
        shifted = np.zeros_like(dist)
        shifted[r:] = dist[: dist.size - r]
        dist = (dist + shifted) / 2
    return dist


def wilcoxon_signed_rank(differences: Sequence[float]) -> SignedRank:
    """Two-sided Wilcoxon signed-rank test of paired differences against zero.

    The p-value comes from the exact conditional distribution given the observed
    (possibly tied) ranks, which is what scipy's permutation method computes.
    """
    d = np.asarray(differences, dtype=float)
    if d.size == 0:
        return SignedRank(0, 0.0, None)
    d = d[d != 0]
    if d.size == 0:
        return SignedRank(0, 0.0, 1.0)
    ranks = rankdata(np.abs(d))  # ties share the average of their positions
    w_plus = float(ranks[d > 0].sum())
    doubled = [round(2 * r) for r in ranks]  # NumPy's round of a float gives an int
    dist = signed_rank_null(doubled)
    observed = round(2 * w_plus)
    lower = float(dist[: observed + 1].sum())
    upper = float(dist[observed:].sum())
    return SignedRank(int(d.size), w_plus, min(1.0, 2 * min(lower, upper)))


def krippendorff_alpha_interval(ratings: np.ndarray | Sequence[Sequence[float]]) -> float | None:
    """Krippendorff's alpha (interval metric) for a raters × units matrix, NaN = missing.

    alpha = 1 − D_o / D_e over the pairable values (units with at least two
    ratings). None when it is undefined (fewer than two pairable values, or no
    variation at all).
    """
    data = np.asarray(ratings, dtype=float)
    if data.ndim != 2:
        raise ValueError("ratings must be a 2-D raters × units matrix")
    observed_sum = 0.0
    pairable: list[np.ndarray] = []
    for unit in data.T:
        values = unit[~np.isnan(unit)]
        m = values.size
        if m < 2:
            continue
        diffs = values[:, None] - values[None, :]
        observed_sum += float((diffs**2).sum()) / (m - 1)
        pairable.append(values)
    if not pairable:
        return None
    allv = np.concatenate(pairable)
    n = allv.size
    centred = allv - allv.mean()
    # sum over ordered pairs (i != j) of (v_i - v_j)^2 == 2 n Σ (v - mean)^2
    expected_sum = 2 * n * float((centred**2).sum())
    if n < 2 or expected_sum == 0:
        return None
    d_o = observed_sum / n
    d_e = expected_sum / (n * (n - 1))
    return 1 - d_o / d_e


@dataclass(frozen=True)
class ScoredDraft:
    """One reviewer's latest verdict on one draft, reduced to what statistics need."""

    reviewer: str
    case: str
    arm: str
    scores: Mapping[str, float]
    hard_errors: int


@dataclass(frozen=True)
class PairedDifference:
    """Arm `a` minus arm `b` scores on the same case by the same reviewer."""

    dimension: str
    diff: MeanCI
    test: SignedRank
    a: str = ""
    b: str = ""


@dataclass(frozen=True)
class HardErrorSummary:
    arm: str
    drafts: int  # verdicts counted
    total: int
    per_draft: float | None


def per_arm_means(
    drafts: Sequence[ScoredDraft], arms: Sequence[str], dimensions: Sequence[str]
) -> dict[str, dict[str, MeanCI]]:
    """{arm: {dimension: MeanCI}} over every verdict of that arm."""
    return {
        arm: {
            dim: mean_ci([d.scores[dim] for d in drafts if d.arm == arm and dim in d.scores])
            for dim in dimensions
        }
        for arm in arms
    }


def paired_differences(
    drafts: Sequence[ScoredDraft], arms: tuple[str, str], dimensions: Sequence[str]
) -> list[PairedDifference]:
    """Pair the two arms per (reviewer, case); report mean difference and Wilcoxon p."""
    by_key: dict[tuple[str, str, str], ScoredDraft] = {
        (d.reviewer, d.case, d.arm): d for d in drafts
    }
    pairs = [
        (by_key[(r, c, arms[0])], by_key[(r, c, arms[1])])
        for (r, c, a) in sorted(by_key)
        if a == arms[0] and (r, c, arms[1]) in by_key
    ]
    result = []
    for dim in dimensions:
        diffs = [
            a.scores[dim] - b.scores[dim] for a, b in pairs if dim in a.scores and dim in b.scores
        ]
        result.append(PairedDifference(dim, mean_ci(diffs), wilcoxon_signed_rank(diffs), *arms))
    return result


def hard_errors(drafts: Sequence[ScoredDraft], arms: Sequence[str]) -> list[HardErrorSummary]:
    """Total hard errors per arm and the rate per reviewed draft."""
    out = []
    for arm in arms:
        counts = [d.hard_errors for d in drafts if d.arm == arm]
        total = int(sum(counts))
        out.append(
            HardErrorSummary(arm, len(counts), total, total / len(counts) if counts else None)
        )
    return out


def agreement(drafts: Sequence[ScoredDraft], dimensions: Sequence[str]) -> dict[str, float | None]:
    """Krippendorff's alpha (interval) per dimension; units are drafts, raters are reviewers."""
    reviewers = sorted({d.reviewer for d in drafts})
    units = sorted({(d.case, d.arm) for d in drafts})
    r_index = {r: i for i, r in enumerate(reviewers)}
    u_index = {u: i for i, u in enumerate(units)}
    out: dict[str, float | None] = {}
    for dim in dimensions:
        matrix = np.full((len(reviewers), len(units)), np.nan)
        for d in drafts:
            if dim in d.scores:
                matrix[r_index[d.reviewer], u_index[(d.case, d.arm)]] = d.scores[dim]
        out[dim] = krippendorff_alpha_interval(matrix) if units else None
    return out


# ---- pairwise preferences: Bradley–Terry -----------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """One preference between two arms: `score` is 1 when `a` was preferred, 0 when `b` was,
    0.5 for a tie."""

    a: str
    b: str
    score: float


@dataclass(frozen=True)
class Strength:
    """An arm's Bradley–Terry log-strength (centred: the arms' strengths sum to 0) with its
    Wald interval from the Fisher information; None when it cannot be estimated."""

    arm: str
    comparisons: int
    wins: float  # ties count half a win for each side
    strength: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class Ranking:
    """Arms best first. `estimable` is False when some arm won (or lost) every comparison it
    took part in against the rest (Ford's condition fails: the maximum-likelihood strengths
    are unbounded); the strengths are then estimated with a weak prior, one virtual tie between
    every two arms (`prior` True: shrunk towards equal, finite, ordered as the wins are), and
    with no comparison at all the arms carry no strength."""

    arms: tuple[Strength, ...]
    estimable: bool
    prior: bool = False

    def win_rate(self, arm: Strength) -> float | None:
        """The arm's share of wins in its comparisons (ties half), None when it had none."""
        return arm.wins / arm.comparisons if arm.comparisons else None


def _win_matrix(comparisons: Sequence[Comparison], arms: Sequence[str]) -> np.ndarray:
    index = {a: i for i, a in enumerate(arms)}
    wins = np.zeros((len(arms), len(arms)))
    for c in comparisons:
        i, j = index[c.a], index[c.b]
        wins[i, j] += c.score
        wins[j, i] += 1 - c.score
    return wins


def _strongly_connected(wins: np.ndarray) -> bool:
    """Every arm reaches every other through "won at least once against" edges (Ford 1957)."""
    n = wins.shape[0]
    for matrix in (wins, wins.T):
        seen, todo = {0}, [0]
        while todo:
            i = todo.pop()
            for j in np.nonzero(matrix[i] > 0)[0]:
                if int(j) not in seen:
                    seen.add(int(j))
                    todo.append(int(j))
        if len(seen) < n:
            return False
    return True


def _mm_strengths(total_wins: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Hunter's MM iteration p_i ← W_i / Σ_j n_ij / (p_i + p_j), geometric mean fixed at 1."""
    p = np.ones(total_wins.size)
    for _ in range(10_000):
        new = total_wins / (games / (p[:, None] + p[None, :])).sum(axis=1)
        new /= math.exp(float(np.log(new).mean()))
        converged = float(np.max(np.abs(new - p))) < 1e-12
        p = new
        if converged:
            break
    return p


def bradley_terry(
    comparisons: Sequence[Comparison], arms: Sequence[str], confidence: float = 0.95
) -> Ranking:
    """Bradley–Terry strengths of `arms` from pairwise preferences, best first.

    Ties count as half a win for each arm (not Davidson's tie model). The maximum-likelihood
    strengths come from Hunter's (2004) MM iteration; the interval is θ ± z·se with se from
    the pseudo-inverse of the Fisher information (the strengths are centred to sum to 0). When
    Ford's condition fails (an arm won or lost everything) the maximum does not exist: the
    strengths are then fitted with one virtual tie added between every two arms (`prior`).
    """
    wins = _win_matrix(comparisons, arms)
    total_wins = wins.sum(axis=1)
    counted = [round(p) for p in (wins + wins.T).sum(axis=1)]
    estimable = len(arms) >= 2 and _strongly_connected(wins)
    if not estimable and (len(arms) < 2 or not comparisons):
        return Ranking(
            tuple(Strength(a, counted[i], float(total_wins[i]), None, None, None)
                  for i, a in enumerate(arms)),
            False,
        )  # fmt: skip
    fitted = wins if estimable else wins + 0.5 * (1 - np.eye(len(arms)))  # one virtual tie a pair
    theta, se = _fit(fitted, fitted + fitted.T)
    z = float(norm.ppf(0.5 + confidence / 2))
    order = sorted(range(len(arms)), key=lambda i: (-theta[i], -total_wins[i]))
    return Ranking(
        tuple(
            Strength(
                arms[i],
                counted[i],
                float(total_wins[i]),
                float(theta[i]),
                float(theta[i] - z * se[i]),
                float(theta[i] + z * se[i]),
            )
            for i in order
        ),
        estimable,
        prior=not estimable,
    )


def _fit(wins: np.ndarray, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Log-strengths (centred) and their standard errors from the Fisher information."""
    p = _mm_strengths(wins.sum(axis=1), games)
    theta = np.log(p)
    q = p[:, None] / (p[:, None] + p[None, :])
    v = games * q * q.T
    information = np.diag(v.sum(axis=1)) - v
    se = np.sqrt(np.clip(np.diag(np.linalg.pinv(information)), 0, None))
    return theta, se


# ---- gold items: did the reviewer catch the seeded error? -----------------------------------


@dataclass(frozen=True)
class GoldVerdict:
    """A reviewer's verdict on a gold item, reduced: the score of the dimension the seeded
    error harms (None when no dimension covers it) and the hard errors they reported."""

    reviewer: str
    score: float | None
    hard_errors: int


@dataclass(frozen=True)
class CatchRate:
    reviewer: str
    seeded: int
    caught: int
    rate: float
    flagged: bool  # below the firm's minimum catch rate


def caught(v: GoldVerdict, score_at_most: float) -> bool:
    """A seeded error is caught when the reviewer reports at least one hard error on the draft
    or scores the harmed dimension at or below `score_at_most`."""
    return v.hard_errors > 0 or (v.score is not None and v.score <= score_at_most)


def catch_rates(
    verdicts: Sequence[GoldVerdict], score_at_most: float, min_rate: float
) -> list[CatchRate]:
    """Per reviewer (by name): gold items judged, seeded errors caught, rate, flagged."""
    out = []
    for reviewer in sorted({v.reviewer for v in verdicts}):
        mine = [v for v in verdicts if v.reviewer == reviewer]
        hits = sum(caught(v, score_at_most) for v in mine)
        rate = hits / len(mine)
        out.append(CatchRate(reviewer, len(mine), hits, rate, rate < min_rate))
    return out
