"""REval metrics: IC weights, coverage counts, constant-answer baselines."""

from __future__ import annotations

import itertools

import pytest

from execlens.bench.reval import QuestionTruth
from execlens.bench.reval._metrics import (
    ConfusionCounts,
    baselines,
    ic_weight,
    incremental_consistency,
)
from execlens.values import encode

WEIGHTS = {
    (True, True, True, True): 1.0,
    (True, True, True, False): 0.5,
    (True, True, False, False): 0.25,
    (True, False, False, False): 0.125,
}


@pytest.mark.parametrize("row", list(itertools.product([True, False], repeat=4)))
def test_ic_weights_follow_reval(row: tuple[bool, bool, bool, bool]) -> None:
    # Every combination outside the four chains scores 0 (e.g. C∧S∧¬P∧O).
    assert ic_weight(*row) == WEIGHTS.get(row, 0.0)


def test_ic_is_a_percentage_of_the_questions() -> None:
    rows = [
        (True, True, True, True),
        (True, True, True, False),
        (False, True, True, True),
        (True, False, False, False),
    ]
    assert incremental_consistency(rows) == pytest.approx(100 * (1 + 0.5 + 0 + 0.125) / 4)
    assert incremental_consistency([]) is None


def test_confusion_counts_treat_non_answers_as_wrong() -> None:
    counts = ConfusionCounts()
    for answer, executed in [
        (True, True),
        (True, False),
        (False, True),
        (False, False),
        (None, True),
        (None, False),
    ]:
        counts.add(answer, executed)
    metrics = counts.metrics()
    assert metrics["n"] == 6 and metrics["unanswered"] == 2
    assert metrics["accuracy"] == pytest.approx(100 * 2 / 6)
    assert metrics["precision"] == pytest.approx(50.0)
    assert metrics["recall"] == pytest.approx(100 / 3)  # the unanswered executed line is missed
    assert metrics["f1"] == pytest.approx(2 * 50 * (100 / 3) / (50 + 100 / 3))


def test_baselines_from_truth() -> None:
    truths = [
        QuestionTruth(False, (-1,)),
        QuestionTruth(True, (-1,), (encode(1),)),
        QuestionTruth(True, (3,)),
        QuestionTruth(True, (4,), (encode(2),)),
    ]
    result = baselines(truths)
    constant = result["no_nil_minus1"]
    assert constant["coverage"]["accuracy"] == 25.0
    assert constant["coverage"]["precision"] is None  # NO never predicts a positive
    assert constant["state"] == 50.0 and constant["path"] == 50.0
    # question 0: C∧S∧P -> 0.5 with a failing output, 1 with a perfect one; the rest 0
    assert constant["ic"] == pytest.approx(100 * 0.5 / 4)
    assert constant["ic_perfect_output"] == pytest.approx(100 * 1 / 4)
    yes = result["always_yes"]["coverage"]
    assert yes["accuracy"] == 75.0 and yes["recall"] == 100.0 and yes["precision"] == 75.0
