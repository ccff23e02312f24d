"""How many pairs a paired design needs (pure): the power of the paired t-test from the
noncentral t distribution, and the Wilcoxon signed-rank test's need derived from it."""

from __future__ import annotations

import math

from scipy.stats import nct
from scipy.stats import t as student_t

# The report tests paired scores with Wilcoxon's signed-rank test, whose asymptotic relative
# efficiency against the paired t-test is 3/π for normal differences (Lehmann): it needs
# about π/3 times the t-test's pairs.
WILCOXON_ARE = 3 / math.pi


def paired_t_power(n: int, difference: float, sd: float, alpha: float = 0.05) -> float:
    """Power of the two-sided paired t-test with n pairs (noncentral t)."""
    if n < 2:
        return 0.0
    df = n - 1
    crit = float(student_t.ppf(1 - alpha / 2, df))
    shift = difference / sd * math.sqrt(n)
    return float(1 - nct.cdf(crit, df, shift) + nct.cdf(-crit, df, shift))


def paired_t_pairs(difference: float, sd: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """The smallest number of pairs for which the paired t-test reaches `power`."""
    if difference <= 0 or sd <= 0:
        raise ValueError("difference and sd must be positive")
    n = 2
    while paired_t_power(n, difference, sd, alpha) < power:
        n += 1
    return n


def wilcoxon_pairs(
    difference: float, sd: float, alpha: float = 0.05, power: float = 0.8, minimum: int = 6
) -> int:
    """Pairs the report's Wilcoxon test needs: the t-test's pairs over 3/π, rounded up, and
    never fewer than `minimum` (below 6 pairs the exact test cannot reach p < 0.05)."""
    needed = paired_t_pairs(difference, sd, alpha, power) / WILCOXON_ARE
    return max(minimum, math.ceil(needed - 1e-9))
