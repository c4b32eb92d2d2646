"""The generic judges (coverage, path, state, output, input) over real traced tasks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from execlens.bench.cruxeval import programs_from_cruxeval
from execlens.engine import Engine
from execlens.judge import (
    TASK_JUDGES,
    JudgePlan,
    TaskScorer,
    Verdict,
    VerdictStatus,
    guarded,
    judge_coverage,
    judge_input,
    judge_output,
    judge_path,
    judge_state,
    judge_task,
    plan_task,
    score_samples,
)
from execlens.tasks import RuntimeProgram, RuntimeTask, build_tasks
from execlens.trace import trace_engine
from execlens.values import encode

PROGRAM = """\
import numpy as np

def f(xs, k):
    total = 0
    for x in xs:
        if x > k:
            total += x
    m = np.matrix([[total, k]])
    first = m[0, 0]
    if total > 100:
        total = -1
    return total
"""


@pytest.fixture(scope="module")
def tracer() -> Iterator[Engine]:
    with trace_engine(workers=1) as engine:
        yield engine


@pytest.fixture(scope="module")
def tasks(tracer: Engine) -> dict[tuple[str, int | None, str | None], RuntimeTask]:
    program = RuntimeProgram(
        source="test",
        problem_id="p",
        input_index=0,
        program=PROGRAM,
        call="f([1, 5, 7], 4)",
        questions=((8, "m"), (9, "first")),
    )
    built = build_tasks([program], engine=tracer, mode="exact", selection="reval")
    built += build_tasks(
        [program], engine=tracer, mode="exact", selection="given", kinds=("state",)
    )
    return {(t.kind, t.line, t.var): t for t in built}


def _task(tasks: dict, kind: str, line: int | None = None, var: str | None = None) -> RuntimeTask:
    for (k, ln, v), task in tasks.items():
        if k == kind and (line is None or ln == line) and (var is None or v == var):
            return task
    raise KeyError((kind, line, var))


def test_coverage_answers(tasks: dict) -> None:
    covered = _task(tasks, "coverage", 7)
    skipped = _task(tasks, "coverage", 11)
    assert covered.reference is True and skipped.reference is False
    assert judge_task(covered, "YES").passed
    assert judge_task(covered, " yes. ").passed
    assert judge_task(skipped, "NO").passed
    wrong = judge_task(skipped, "YES")
    assert (wrong.status, wrong.reason) == (VerdictStatus.WRONG, "not_executed")
    # No default answer: an unclear one is unparseable, never read as NO.
    assert judge_task(skipped, "maybe").status is VerdictStatus.UNPARSEABLE
    assert judge_coverage(False, False).passed


def test_path_answers(tasks: dict) -> None:
    loop = _task(tasks, "path", 7)  # after `total += x`: back to the `for`
    assert loop.reference == [5]
    assert judge_task(loop, "5").passed
    assert judge_task(loop, 5).passed
    assert judge_task(loop, "for x in xs:").passed  # a line's text, as REval reads it
    assert judge_task(loop, "6").reason == "line"
    assert judge_task(loop, "somewhere").status is VerdictStatus.UNPARSEABLE
    assert judge_task(loop, True).status is VerdictStatus.UNPARSEABLE
    assert judge_path([-1], "-1").passed
    # Duplicate lines all count, as in REval.
    assert judge_path([3], "x = 1", code="x = 1\ny = 2\nx = 1").passed


def test_state_answers(tasks: dict) -> None:
    total = _task(tasks, "state", 7, "total")
    assert [e["__value__"] for e in total.reference] == [5, 12]
    assert judge_task(total, "12; int").passed
    assert judge_task(total, "5").passed  # a bare value, type-strict
    assert judge_task(total, "12.0").reason == "value"  # 12.0 is not 12
    assert judge_task(total, "12; float").reason == "type"
    assert judge_task(total, "Nil").reason == "nil"
    assert judge_task(total, "twelve; int").status is VerdictStatus.UNPARSEABLE
    assert judge_task(total, "__import__('os'); int").status is VerdictStatus.UNPARSEABLE
    nil = judge_state([{"__type__": "Nil"}], "Nil")
    assert nil.passed
    assert judge_state([], "0; int").reason == "expected_nil"
    assert judge_state([encode("a;b")], "'a;b'").passed  # a ';' inside a value


def test_matrix_state_is_judged_not_crashed(tasks: dict) -> None:
    # Issue 9 item 12: `0; numpy.matrix` for a matrix-valued variable raised
    # `ValueError: can only convert an array of size 1 to a Python scalar`.
    m = _task(tasks, "state", 8, "m")
    assert m.reference[0]["__type__"] == "matrix"
    verdict = judge_task(m, "0; numpy.matrix")
    assert (verdict.status, verdict.reason) == (VerdictStatus.WRONG, "value")
    assert judge_task(m, "np.matrix([[12, 4]]); numpy.matrix").passed
    assert judge_task(m, "np.array([[12, 4]]); numpy.ndarray").reason == "type"
    first = _task(tasks, "state", 9, "first")
    assert first.reference[0]["__type__"] == "int64"
    assert judge_task(first, "np.int64(12); numpy.int64").passed


def test_output_answers(tasks: dict) -> None:
    output = _task(tasks, "output")
    assert judge_task(output, "12").passed
    assert judge_task(output, "12.0").reason == "type_mismatch"
    assert judge_task(output, "f([1, 5, 7], 4)").status is VerdictStatus.UNPARSEABLE
    raised = {"status": "exception", "value": None, "exception": "ZeroDivisionError"}
    assert judge_output(raised, "ZeroDivisionError").passed
    assert judge_output(raised, "ValueError").reason == "exception"
    assert judge_output(raised, "1/0").status is VerdictStatus.UNPARSEABLE
    assert judge_output(encode((1, "a")), "(1, 'a')").passed


def test_input_prediction_is_re_executed(data_dir: Path, engine: Engine) -> None:
    programs = programs_from_cruxeval(data_dir / "cruxeval" / "cruxeval.jsonl")[:1]
    with trace_engine(workers=1) as tracer:
        output = build_tasks(programs, engine=tracer, kinds=("output",))[0]
    task = RuntimeTask(**{**output.to_dict(), "kind": "input"})
    right = judge_task(task, programs[0].call, engine=engine)
    assert right.passed, right
    assert judge_task(task, "f(" * 3, engine=engine).status is VerdictStatus.UNPARSEABLE
    assert judge_task(task, "g(1)", engine=engine).reason == "name"
    plain = judge_input("def f(x):\n    return x * 2", "f", encode(6), "f(3)", engine=engine)
    assert plain.passed
    assert (
        judge_input("def f(x):\n    return 1 // x", "f", encode(6), "f(0)", engine=engine).status
        is VerdictStatus.EXCEPTION
    )


def test_scorer_batches_through_the_executor(tasks: dict, engine: Engine) -> None:
    items = [(t, ["YES", "NO", "5", "12; int"]) for t in tasks.values() if t.kind != "output"]
    scorer = TaskScorer()
    results = {task.id: scores["strict"] for task, scores in score_samples([scorer], items, engine)}
    assert len(results) == len(items)
    assert all(len(score.verdicts) == 4 for score in results.values())
    coverage = [t for t, _ in items if t.kind == "coverage" and t.reference][0]
    assert results[coverage.id].scored[:2] == [True, False]


def test_a_judge_failure_is_a_named_verdict() -> None:
    def broken(*_: object) -> Verdict:
        raise ValueError("can only convert an array of size 1 to a Python scalar")

    plan = guarded(broken)
    assert isinstance(plan, JudgePlan) and not plan.jobs
    verdict = plan.verdict()
    assert (verdict.status, verdict.reason) == (VerdictStatus.SCORING_ERROR, "ValueError")
    assert "array of size 1" in verdict.detail
    assert VerdictStatus("scoring_error") is VerdictStatus.SCORING_ERROR
    odd = RuntimeTask(
        id="x",
        kind="state",
        source="t",
        problem_id="p",
        input_index=0,
        program="",
        call=None,
        reference=None,
        mode="exact",
        selection="given",
        line=1,
        var="v",
    )
    assert judge_task(odd, "1; int").status is VerdictStatus.SCORING_ERROR
    with pytest.raises(ValueError, match="kinds: coverage, path, state, output, input, trace"):
        plan_task(RuntimeTask(**{**odd.to_dict(), "kind": "bogus"}), "1")
    assert set(TASK_JUDGES) == {"coverage", "path", "state", "output", "input", "trace"}
