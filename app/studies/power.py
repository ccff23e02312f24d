"""Planning a study before generating (pure): how many cases a paired design needs to detect
a given difference in scores with 80% power at α = 0.05. The power of the paired t-test comes
from the noncentral t distribution, and the Wilcoxon signed-rank test's need is derived from it.

The spread is the SD of paired differences (one reviewer's score of one arm minus the other
arm's on the same case): the design's default (Settings.study_plan_sd) until at least
MIN_OBSERVED pairs are in, then the observed spread of the overall score. A reviewer sees each
case once, as one of the P pairs of arms, so one case gives reviewers / P pairs of any given
two arms; cases needed = pairs needed × P / reviewers, rounded up. Like the report's Wilcoxon
test, it treats each reviewer's pair as independent.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from scipy.stats import nct
from scipy.stats import t as student_t

from app.domain import Bilingual
from app.i18n import both
from app.studies.design import arm_pairs
from app.studies.domain import ReviewError

MIN_OBSERVED = 5  # paired differences before the observed spread replaces the default
SdSource = Literal["default", "observed"]

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


@dataclass(frozen=True)
class CasePlan:
    difference: float  # on the 0–10 score scale
    sd: float
    sd_source: SdSource
    pairs_needed: int  # paired differences of two given arms
    cases_needed: int
    power: float = 0.8
    alpha: float = 0.05

    def message(self) -> Bilingual:
        """The plan as the page and `lexspec study plan` say it (cases, pairs, difference, SD
        and where the SD came from)."""
        return both(
            "studies.plan_result",
            cases=self.cases_needed,
            pairs=self.pairs_needed,
            difference=f"{self.difference:g}",
            sd=f"{self.sd:.2f}",
            source=both(f"studies.plan_sd_{self.sd_source}"),
        )


def spread(observed: Sequence[float], default_sd: float) -> tuple[float, SdSource]:
    """The SD to plan with: observed once there are enough differences (and they vary)."""
    if len(observed) >= MIN_OBSERVED:
        sd = statistics.stdev(observed)
        if sd > 0:
            return sd, "observed"
    return default_sd, "default"


def plan_cases(
    difference: float,
    *,
    n_arms: int,
    n_reviewers: int,
    default_sd: float,
    observed: Sequence[float] = (),
) -> CasePlan:
    """Cases needed to detect `difference` between two arms (80% power, α = 0.05)."""
    if not 0 < difference <= 10:
        raise ReviewError(
            "要检测的分差须大于 0 且不超过 10",
            "The difference must be above 0 and at most 10 points",
        )
    if not 2 <= n_arms <= 6 or n_reviewers < 1:
        raise ReviewError(
            "需要 2–6 个对照组和至少一位评审人", "Plan with 2 to 6 arms and at least one reviewer"
        )
    sd, source = spread(observed, default_sd)
    pairs = wilcoxon_pairs(difference, sd)
    per_case = max(1, n_reviewers) / len(arm_pairs(max(2, n_arms)))
    return CasePlan(difference, sd, source, pairs, math.ceil(pairs / per_case - 1e-9))
