"""The statistics behind verdicts, on synthetic samples."""
import random

import pytest

from mmaplint.analyzer.confirm.stats import (CONFIRMED, INCONCLUSIVE, NOT_REPRODUCED, combine, compare,
                                             rule_verdict)


def noisy(center, rel, n, seed):
    rng = random.Random(seed)
    return [center * (1 + rng.uniform(-rel, rel)) for _ in range(n)]


def test_tenfold_difference_is_confirmed():
    c = compare(noisy(10.0, 0.1, 6, 1), noisy(1.0, 0.1, 6, 2))
    assert c.verdict == CONFIRMED
    assert 8 < c.ratio < 12
    assert c.spread[0] <= c.ratio <= c.spread[1]


def test_identical_distributions_are_not_reproduced():
    samples = noisy(5.0, 0.05, 6, 3)
    assert compare(samples, list(samples)).verdict == NOT_REPRODUCED
    assert compare([86.0] * 5, [86.0] * 5, floor=10).verdict == NOT_REPRODUCED


def test_wide_overlapping_noise_is_inconclusive():
    for seed in range(0, 20, 2):
        c = compare(noisy(1.0, 0.9, 8, seed), noisy(1.0, 0.9, 8, seed + 1))
        assert c.verdict == INCONCLUSIVE, (seed, c)


def test_a_large_ratio_from_too_few_pairs_is_not_confirmed():
    assert compare([10.0, 11.0], [1.0, 1.1]).verdict != CONFIRMED


def test_floor_keeps_tiny_counts_from_reading_as_a_cost():
    assert compare([3.0, 5.0, 4.0], [0.0, 0.0, 0.0], floor=10).verdict != CONFIRMED
    assert compare([0.0] * 4, [0.0] * 4, floor=0).verdict == NOT_REPRODUCED


def test_mismatched_samples_are_refused():
    with pytest.raises(ValueError):
        compare([1.0, 2.0], [1.0])


def test_case_and_rule_verdicts():
    assert combine([CONFIRMED, NOT_REPRODUCED]) == CONFIRMED
    assert combine([NOT_REPRODUCED, NOT_REPRODUCED]) == NOT_REPRODUCED
    assert combine([INCONCLUSIVE, NOT_REPRODUCED]) == INCONCLUSIVE
    # a case expecting no difference agrees when there is none
    assert rule_verdict([(NOT_REPRODUCED, "none"), (CONFIRMED, "cost")]) == CONFIRMED
    assert rule_verdict([(NOT_REPRODUCED, "none"), (NOT_REPRODUCED, "cost")]) == NOT_REPRODUCED
    assert rule_verdict([(CONFIRMED, "none"), (CONFIRMED, "cost")]) == INCONCLUSIVE
