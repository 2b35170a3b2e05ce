"""From repeated bad/fixed samples of one metric to a ratio, its spread and a verdict."""
from __future__ import annotations

import statistics
from dataclasses import dataclass

CONFIRMED = "CONFIRMED"
NOT_REPRODUCED = "NOT REPRODUCED"
INCONCLUSIVE = "INCONCLUSIVE"

CLEAR_RATIO = 1.5         # a cost this large or larger, repeatably, is "clear"
NO_EFFECT_RATIO = 1.2     # below this the median difference is no real difference
SEPARATION = 0.9          # share of (bad, fixed) sample pairs in which bad costs more
MIN_PAIRS = 3             # fewer cannot separate anything


@dataclass(frozen=True)
class Comparison:
    bad: float               # medians
    fixed: float
    ratio: float             # median bad / median fixed, after the floor
    spread: tuple[float, float]   # interquartile range of the per-pair ratios
    separation: float        # P(bad sample > fixed sample) over all pairs, ties count half
    verdict: str


def _bounds(values: list[float], fraction: float) -> tuple[float, float]:
    """The values at `fraction` and `1 - fraction` of the sorted list, by nearest rank: no
    interpolation, so an infinite ratio (a fixed run that measured 0) stays a value, not NaN."""
    ordered = sorted(values)
    last = len(ordered) - 1
    return ordered[round(fraction * last)], ordered[round((1 - fraction) * last)]


def _separation(bad: list[float], fixed: list[float]) -> float:
    wins = sum(1.0 if b > f else 0.5 if b == f else 0.0 for b in bad for f in fixed)
    return wins / (len(bad) * len(fixed))


def compare(bad: list[float], fixed: list[float], floor: float = 0.0) -> Comparison:
    """bad[i] and fixed[i] come from the same round.  `floor` is added to both sides of every ratio
    so that tiny counts (1 fault against 0) do not read as huge ratios; 0 suits times."""
    if not bad or len(bad) != len(fixed):
        raise ValueError("compare needs the same, non-zero number of bad and fixed samples")
    mb, mf = statistics.median(bad), statistics.median(fixed)

    def ratio(b: float, f: float) -> float:
        b, f = b + floor, f + floor
        if f <= 0:
            return 1.0 if b <= 0 else float("inf")
        return b / f

    r = ratio(mb, mf)
    pair_ratios = sorted(ratio(b, f) for b, f in zip(bad, fixed))
    spread = _bounds(pair_ratios, 0.25)
    deciles = _bounds(pair_ratios, 0.10)
    separation = _separation(bad, fixed)
    if len(bad) >= MIN_PAIRS and r >= CLEAR_RATIO and separation >= SEPARATION:
        verdict = CONFIRMED
    elif r < NO_EFFECT_RATIO and 1 / CLEAR_RATIO < deciles[0] and deciles[1] < CLEAR_RATIO:
        # the median shows no cost and nine rounds in ten came nowhere near one: noise cannot hide it
        verdict = NOT_REPRODUCED
    else:
        verdict = INCONCLUSIVE
    return Comparison(mb, mf, r, spread, separation, verdict)


def combine(primary: list[str]) -> str:
    """A case's verdict from its primary metrics: any clear cost confirms; all absent refutes."""
    if CONFIRMED in primary:
        return CONFIRMED
    if primary and all(v == NOT_REPRODUCED for v in primary):
        return NOT_REPRODUCED
    return INCONCLUSIVE


def rule_verdict(cases: list[tuple[str, str]]) -> str:
    """(verdict, expect) per case -> the rule's verdict.  A case that expects no difference
    ("none") agrees when it is NOT REPRODUCED: that is the claim it demonstrates."""
    expected = {"cost": CONFIRMED, "none": NOT_REPRODUCED}
    if all(verdict == expected[expect] for verdict, expect in cases):
        return CONFIRMED
    if any(verdict == NOT_REPRODUCED for verdict, expect in cases if expect == "cost"):
        return NOT_REPRODUCED
    return INCONCLUSIVE
