"""The statistics behind verdicts, on synthetic samples."""
import math
import random

import pytest

from mmaplint.analyzer.confirm.stats import (CONFIRMED, INCONCLUSIVE, NOT_REPRODUCED, WORSE, _critical,
                                             combine, compare, rule_verdict)


def noisy(center, rel, n, seed):
    rng = random.Random(seed)
    return [center * (1 + rng.uniform(-rel, rel)) for _ in range(n)]


def test_critical_values_are_the_mann_whitney_tables():
    # two-sided 5 %: the largest c with P(U <= c) <= 0.025 (published tables for n = m)
    assert [_critical(n, n, 0.05) for n in range(3, 11)] == [-1, 0, 2, 5, 8, 13, 17, 23]


def test_tenfold_difference_is_confirmed_with_its_interval():
    c = compare(noisy(10.0, 0.1, 6, 1), noisy(1.0, 0.1, 6, 2))
    assert c.verdict == CONFIRMED
    assert 8 < c.interval[0] <= c.ratio <= c.interval[1] < 12.5
    assert c.separation == 1.0 and c.n == 6


def test_the_headline_is_inside_its_interval_whatever_the_samples():
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(3, 15)
        bad = [rng.choice([0.0, rng.expovariate(1.0)]) for _ in range(n)]
        fixed = [rng.choice([0.0, rng.expovariate(0.5)]) for _ in range(n)]
        c = compare(bad, fixed, floor=rng.choice([0.0, 10.0]))
        assert c.interval[0] <= c.ratio <= c.interval[1], (bad, fixed, c)


def test_identical_distributions_are_not_reproduced():
    samples = noisy(5.0, 0.05, 6, 3)
    assert compare(samples, list(samples)).verdict == NOT_REPRODUCED
    assert compare([86.0] * 5, [86.0] * 5, floor=10).verdict == NOT_REPRODUCED


def test_a_fix_that_costs_more_is_worse_not_not_reproduced():
    c = compare(noisy(1.0, 0.05, 8, 4), noisy(2.0, 0.05, 8, 5))
    assert c.verdict == WORSE and c.interval[1] < 1


def test_wide_overlapping_noise_is_inconclusive():
    for seed in range(0, 20, 2):
        c = compare(noisy(1.0, 0.9, 8, seed), noisy(1.0, 0.9, 8, seed + 1))
        assert c.verdict == INCONCLUSIVE, (seed, c)


def test_a_small_but_certain_difference_needs_more_than_ten_percent():
    # 5 % apart with no overlap: real, but inside what drift on a shared machine can do
    c = compare([1.05, 1.051, 1.052, 1.053, 1.054, 1.055], [1.0, 1.001, 1.002, 1.003, 1.004, 1.005])
    assert c.interval[0] > 1 and c.verdict == NOT_REPRODUCED


def test_a_large_ratio_from_too_few_pairs_is_not_confirmed():
    assert compare([10.0, 11.0, 12.0], [1.0, 1.1, 1.2]).verdict == INCONCLUSIVE
    assert compare([10.0, 11.0, 12.0, 13.0], [1.0, 1.1, 1.2, 1.3]).verdict == INCONCLUSIVE


def test_an_infinite_ratio_is_infinite_not_unknown():
    c = compare([5.0, 6.0, 7.0, 8.0, 9.0], [0.0] * 5)
    assert math.isinf(c.ratio) and math.isinf(c.interval[0]) and c.verdict == CONFIRMED


def test_floor_keeps_tiny_counts_from_reading_as_a_cost():
    from mmaplint.analyzer.confirm.metrics import floor
    assert compare([3.0, 5.0, 4.0, 3.0, 4.0], [0.0] * 5, floor=floor("nvcsw")).verdict != CONFIRMED
    assert compare([300.0, 310.0, 290.0, 305.0, 295.0], [5.0] * 5, floor=floor("nvcsw")).verdict == CONFIRMED
    assert compare([0.0] * 5, [0.0] * 5, floor=0).verdict == NOT_REPRODUCED


def test_cpu_time_within_a_tick_is_no_cost():
    """A short run's system time reads 0 or about one tick, at random: an A/A check of MML008's
    reproducer once drew these, identical runs read as a 1.5x cost.  A real one still shows."""
    from mmaplint.analyzer.confirm.metrics import floor
    a = [0.0021, 0.0022, 0.0019, 0.0023, 0.0021, 0.0040]
    b = [0.0] * 6
    assert compare(a, b, floor=floor("sys_s")).verdict != CONFIRMED
    bad = [0.0903, 0.0882, 0.0825, 0.0895, 0.0904, 0.0854]     # MML008 at its default size here
    fixed = [0.0439, 0.0472, 0.0476, 0.0436, 0.048, 0.0507]
    assert compare(bad, fixed, floor=floor("sys_s")).verdict == CONFIRMED


def test_mismatched_samples_are_refused():
    with pytest.raises(ValueError):
        compare([1.0, 2.0], [1.0])


def test_case_and_rule_verdicts():
    assert combine([CONFIRMED, NOT_REPRODUCED]) == CONFIRMED
    assert combine([CONFIRMED, WORSE]) == INCONCLUSIVE
    assert combine([WORSE, NOT_REPRODUCED]) == WORSE
    assert combine([NOT_REPRODUCED, NOT_REPRODUCED]) == NOT_REPRODUCED
    assert combine([INCONCLUSIVE, NOT_REPRODUCED]) == INCONCLUSIVE
    # a case expecting no difference agrees when there is none
    assert rule_verdict([(NOT_REPRODUCED, "none"), (CONFIRMED, "cost")]) == CONFIRMED
    assert rule_verdict([(NOT_REPRODUCED, "none"), (NOT_REPRODUCED, "cost")]) == NOT_REPRODUCED
    assert rule_verdict([(NOT_REPRODUCED, "none"), (WORSE, "cost")]) == WORSE
    assert rule_verdict([(CONFIRMED, "none"), (CONFIRMED, "cost")]) == INCONCLUSIVE
