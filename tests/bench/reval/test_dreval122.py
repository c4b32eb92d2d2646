"""DREval/122: variables holding a ``numpy.matrix``, scored as REval's own evaluator does.

Replaying ~9,900 responses through REval's ``evaluation.py`` and through execlens found
every disagreement of official verdicts on this problem: REval's interpreter evaluates
``ysum[0, i]`` on a matrix to a ``numpy.float64`` (we read it as Nil), and its value check
falls back to ``np.allclose`` for any ``np.ndarray``, a matrix included (we accepted only
the exact class).  One test per case; plus issue 9 item 12, the strict answer
``0; numpy.matrix`` that made scoring raise.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from execlens.bench.reval import (
    RevalTruth,
    build_reval_truth,
    load_reval,
    reval_pairs,
    reval_questions,
    score_reval,
)
from execlens.engine import Engine
from execlens.judge import VerdictStatus

# Question k of each pair (DREval_tasks.jsonl): 1 = `ysum` after line 35 (a 1x5 matrix),
# 2 = `ysum[0, i]` after line 37 (its entries, numpy.float64).  Pair 1 = fleiss_kappa.
YSUM, YSUM_ITEM = "DREval/122/1/1", "DREval/122/1/2"
# The values REval's tracer records for `ysum` after line 35 (the column sums of the
# 10x5 ratings) and the first entries `ysum[0, i]` takes after line 37.
YSUM_VALUE = "[[20.0, 28.0, 39.0, 21.0, 32.0]]"


@pytest.fixture(scope="module")
def problems(data_dir: Path) -> list:
    path = data_dir / "reval"
    if not (path / "DREval_data.jsonl").is_file():
        pytest.skip(f"REval data not found in {path}")
    return [p for p in load_reval(path).records if p.task_id == "DREval/122"]


@pytest.fixture(scope="module")
def truths(problems: list, engine: Engine) -> dict[str, RevalTruth]:
    return build_reval_truth(problems, engine)


def _verdict(
    problems: list, truths: dict, engine: Engine, item: str, answer: str, mode: str
) -> object:
    scores = score_reval(
        problems, {"state": {item: [answer]}}, "direct", engine, modes=(mode,), truth=truths
    )
    return scores.verdicts[mode]["state"][item][0]


def test_matrix_subscript_reads_numpy_float64(reval_reference: None, truths: dict) -> None:
    truth = truths["official"].questions[YSUM_ITEM]
    assert truth.covered and not truth.nil  # was Nil: the interpreter refused the matrix
    assert {e["__type__"] for e in truth.state} == {"float64"}
    values = [e["__value__"] for e in truth.state]
    assert 28.0 in values and 39.0 in values  # ysum[0, i] before it is squared and scaled


def test_matrix_entry_answered_as_numpy_float64_passes(
    reval_reference: None, problems: list, truths: dict, engine: Engine
) -> None:
    assert _verdict(problems, truths, engine, YSUM_ITEM, "28.0; numpy.float64", "official").passed
    # REval's type check: a builtin float is not the numpy.float64 the matrix holds.
    wrong = _verdict(problems, truths, engine, YSUM_ITEM, "28.0; float", "official")
    assert (wrong.status, wrong.reason) == (VerdictStatus.WRONG, "type")


def test_matrix_value_compared_with_allclose(
    reval_reference: None, problems: list, truths: dict, engine: Engine
) -> None:
    truth = truths["official"].questions[YSUM]
    assert [e["__type__"] for e in truth.state] == ["matrix"]
    assert _verdict(
        problems, truths, engine, YSUM, f"{YSUM_VALUE}; numpy.matrix", "official"
    ).passed
    # allclose, not ==: a difference far below its tolerance still matches...
    close = YSUM_VALUE.replace("28.0", "28.000000001")
    assert _verdict(problems, truths, engine, YSUM, f"{close}; numpy.matrix", "official").passed
    # ...a real one does not, and an ndarray is not the matrix's type.
    far = YSUM_VALUE.replace("28.0", "29.0")
    assert (
        _verdict(problems, truths, engine, YSUM, f"{far}; numpy.matrix", "official").reason
        == "value"
    )
    assert (
        _verdict(problems, truths, engine, YSUM, f"{YSUM_VALUE}; numpy.ndarray", "official").reason
        == "type"
    )


def test_strict_matrix_answer_is_a_verdict_not_a_crash(
    reval_reference: None, problems: list, truths: dict, engine: Engine
) -> None:
    # Issue 9 item 12: this answer raised "can only convert an array of size 1 to a Python
    # scalar" and ended the whole run.
    wrong = _verdict(problems, truths, engine, YSUM, "0; numpy.matrix", "strict")
    assert (wrong.status, wrong.reason) == (VerdictStatus.WRONG, "value")
    right = _verdict(
        problems, truths, engine, YSUM, f"np.matrix({YSUM_VALUE}); numpy.matrix", "strict"
    )
    assert right.passed, right


def test_every_question_of_the_problem_scores(
    reval_reference: None, problems: list, truths: dict, engine: Engine
) -> None:
    questions = reval_questions(problems)
    answers = {
        task: {q.sample_id: ["0; numpy.matrix"] for q in questions}
        for task in ("coverage", "state", "path")
    }
    answers["output"] = {f"{p.sample_id}/output": ["0"] for p in reval_pairs(problems)}
    scores = score_reval(problems, answers, "direct", engine, truth=truths)
    for mode in scores.modes:
        statuses = {
            v[0].status for by_item in scores.verdicts[mode].values() for v in by_item.values()
        }
        assert VerdictStatus.SCORING_ERROR not in statuses
        assert scores.metrics[mode]["questions"] == len(questions)
