"""pass@k: the unbiased estimator, its corner cases, and the official averaging."""

from __future__ import annotations

import math

import pytest

from execlens.bench.metrics import mean_pass_at_k, pass_at_k, sample_accuracy


def _by_combinations(n: int, c: int, k: int) -> float:
    # The estimator's definition: 1 - C(n - c, k) / C(n, k).
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


@pytest.mark.parametrize("n", range(1, 13))
def test_matches_the_combinatorial_definition(n: int) -> None:
    for c in range(n + 1):
        for k in range(1, n + 1):
            expected = 1.0 if n - c < k else _by_combinations(n, c, k)
            assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12), (n, c, k)


def test_corner_cases_follow_the_official_scripts() -> None:
    assert pass_at_k(10, 0, 1) == 0.0
    assert pass_at_k(10, 10, 1) == 1.0
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    # n - c < k: 1.0 even with no correct generation at all when n < k (a quirk that
    # matters for LiveCodeBench's one-element lists).
    assert pass_at_k(1, 0, 5) == 1.0
    assert pass_at_k(3, 1, 5) == 1.0
    assert pass_at_k(0, 0, 1) == 1.0


def test_bad_arguments_are_named_errors() -> None:
    for n, c, k in ((5, 6, 1), (-1, 0, 1), (5, 1, 0)):
        with pytest.raises(ValueError, match="pass_at_k"):
            pass_at_k(n, c, k)


def test_mean_is_the_official_average_in_percent() -> None:
    # CRUXEval's shrinking denominator: [skip, skip, correct, wrong, wrong] is recorded
    # as [True, False, False], so pass@1 = 1/3.
    assert mean_pass_at_k([[True, False, False]], 1) == pytest.approx(100 / 3)
    lists = [[True] * 10, [False] * 10, [True, False] * 5]
    assert mean_pass_at_k(lists, 1) == sum([1.0, 0.0, 0.5]) / 3 * 100
    assert mean_pass_at_k(lists, 5) == (1.0 + 0.0 + pass_at_k(10, 5, 5)) / 3 * 100
    with pytest.raises(ValueError):
        mean_pass_at_k([], 1)


def test_sample_accuracy() -> None:
    assert sample_accuracy([True, False, False, True]) == 0.5
    assert sample_accuracy([]) == 0.0


def test_mean_adds_left_to_right_on_every_python() -> None:
    # Ten samples with pass@1 = 0.6 (3 of 5 correct): added left to right, as the
    # official scorers' sum() did up to Python 3.11, the mean is 59.999999999999986;
    # 3.12's compensated sum() would report 60.0.
    verdicts = [[True] * 3 + [False] * 2] * 10
    value = pass_at_k(5, 3, 1)
    assert math.fsum([value] * 10) / 10 * 100 == 60.0
    assert mean_pass_at_k(verdicts, 1) == 59.999999999999986
