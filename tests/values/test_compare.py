"""Comparison modes: exact, python (CRUXEval's ==) and tolerant (CodeI/O's is_close)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from execlens.values import NIL, CompareMode, values_equal

CASES = [
    # (predicted, reference, exact, python, tolerant)
    (1, 1, True, True, True),
    (True, 1, False, True, True),
    (1.0, 1, False, True, True),
    ([1, 2], (1, 2), False, False, True),
    ({3, 1}, {1, 3}, True, True, True),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True, True, True),
    ("a", "b", False, False, False),
    (math.nan, math.nan, True, False, False),
    (math.inf, math.inf, True, True, False),
    (1.0005, 1.0, False, False, True),
    (1.002, 1.0, False, False, False),
    (2.9999, 3.0, False, False, False),  # same relative size, different integer part
    (-0.0, 0.0, True, True, True),
    (None, None, True, True, True),
    (NIL, NIL, True, True, True),
    (NIL, None, False, False, False),
    ({"k": [1.0001]}, {"k": [1.0]}, False, False, True),
    ({"k": [1]}, {"j": [1]}, False, False, False),
]


@pytest.mark.parametrize("predicted,reference,exact,python,tolerant", CASES)
def test_modes(
    predicted: object, reference: object, exact: bool, python: bool, tolerant: bool
) -> None:
    assert values_equal(predicted, reference, CompareMode.EXACT) is exact
    assert values_equal(predicted, reference, "python") is python
    assert values_equal(predicted, reference, "tolerant") is tolerant


def test_numpy_arrays() -> None:
    a = np.array([1, 2, 3])
    assert values_equal(a, np.array([1, 2, 3]), "exact")
    assert not values_equal(a, np.array([1, 2, 3], dtype=np.float64), "exact")
    assert values_equal(a, np.array([1.0, 2.0, 3.0]), "python")
    assert not values_equal(a, [1, 2, 3], "python")


def test_unknown_mode_is_rejected() -> None:
    with pytest.raises(ValueError):
        values_equal(1, 1, "approximately")
