"""From repeated bad/fixed samples of one metric to a ratio, its confidence interval and a verdict.

The ratio is the Hodges-Lehmann estimate on a log scale: the median of every bad_i / fixed_j.  Its
95 % interval comes from the exact null distribution of the Mann-Whitney statistic (the interval of
ratios that a two-sided rank test would not reject), so it needs no normality and no resampling,
it is the same for the same samples, and the estimate lies inside it by construction.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import lru_cache

CONFIRMED = "CONFIRMED"
WORSE = "WORSE"                  # the fix costs more than the pattern
NOT_REPRODUCED = "NOT REPRODUCED"
INCONCLUSIVE = "INCONCLUSIVE"

CONFIDENCE = 0.95
NO_EFFECT = 1.10    # ratios within 1/1.10-1.10 are no effect: drift of a shared machine, not a cost
CLEAR = 1.25        # an interval inside 1/1.25-1.25 rules out any cost worth the name
MIN_PAIRS = 5       # with fewer pairs a 95 % interval cannot exclude much


@dataclass(frozen=True)
class Comparison:
    bad: float                    # medians of the raw samples
    fixed: float
    ratio: float                  # Hodges-Lehmann: median of (bad_i + floor) / (fixed_j + floor)
    interval: tuple[float, float]  # its 95 % confidence interval; inf where unbounded
    separation: float             # P(a bad run costs more than a fixed one), ties count half
    n: int                        # pairs
    floor: float                  # added to both sides of every ratio (0 for times)
    verdict: str


@lru_cache(maxsize=256)
def _critical(n: int, m: int, alpha: float) -> int:
    """The largest c with P(U <= c) <= alpha / 2 under no effect (U: the Mann-Whitney count of
    bad > fixed among n * m pairs, all orders equally likely); -1 when even U = 0 is likelier."""
    # counts[u] = arrangements of i bad and j fixed samples with statistic u, built up column by column
    table = [[[1] for _ in range(m + 1)] for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            size = i * j + 1
            left, down = table[i - 1][j], table[i][j - 1]     # the largest is bad / fixed
            counts = [0] * size
            for u, c in enumerate(down):
                counts[u] += c
            for u, c in enumerate(left):
                counts[u + j] += c
            table[i][j] = counts
    total, cumulative, critical = math.comb(n + m, n), 0, -1
    for u, c in enumerate(table[n][m]):
        cumulative += c
        if cumulative / total > alpha / 2:
            break
        critical = u
    return critical


def _ratio(b: float, f: float) -> float:
    if f <= 0:
        return 1.0 if b <= 0 else math.inf
    return b / f


def separation(bad: list[float], fixed: list[float]) -> float:
    wins = sum(1.0 if b > f else 0.5 if b == f else 0.0 for b in bad for f in fixed)
    return wins / (len(bad) * len(fixed))


def judge(interval: tuple[float, float], n: int) -> str:
    low, high = interval
    if n < MIN_PAIRS:
        return INCONCLUSIVE
    if low > NO_EFFECT:
        return CONFIRMED
    if high < 1 / NO_EFFECT:
        return WORSE
    if 1 / CLEAR < low and high < CLEAR:
        return NOT_REPRODUCED
    return INCONCLUSIVE


def compare(bad: list[float], fixed: list[float], floor: float = 0.0) -> Comparison:
    """bad[i] and fixed[i] come from the same round.  `floor` is added to both sides of every ratio
    so that tiny counts (3 faults against 0) do not read as huge ratios; 0 suits wall times."""
    if not bad or len(bad) != len(fixed):
        raise ValueError("compare needs the same, non-zero number of bad and fixed samples")
    n = len(bad)
    ratios = sorted(_ratio(b + floor, f + floor) for b in bad for f in fixed)
    c = _critical(n, n, 1 - CONFIDENCE)
    interval = (ratios[c], ratios[-1 - c]) if c >= 0 else (0.0, math.inf)
    return Comparison(statistics.median(bad), statistics.median(fixed), statistics.median(ratios),
                      interval, separation(bad, fixed), n, floor, judge(interval, n))


def combine(primary: list[str]) -> str:
    """A case's verdict from its primary metrics: a clear cost confirms unless another primary
    says the fix costs more; all showing no cost refutes."""
    if CONFIRMED in primary:
        return INCONCLUSIVE if WORSE in primary else CONFIRMED
    if WORSE in primary:
        return WORSE
    if primary and all(v == NOT_REPRODUCED for v in primary):
        return NOT_REPRODUCED
    return INCONCLUSIVE


def rule_verdict(cases: list[tuple[str, str]]) -> str:
    """(verdict, expect) per case -> the rule's verdict.  A case that expects no difference
    ("none") agrees when it is NOT REPRODUCED: that is the claim it demonstrates."""
    expected = {"cost": CONFIRMED, "none": NOT_REPRODUCED}
    if all(verdict == expected[expect] for verdict, expect in cases):
        return CONFIRMED
    costs = [verdict for verdict, expect in cases if expect == "cost"]
    if WORSE in costs and CONFIRMED not in costs:
        return WORSE
    if NOT_REPRODUCED in costs:
        return NOT_REPRODUCED
    return INCONCLUSIVE
