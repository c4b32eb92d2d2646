"""The core's strict scorer on tasks whose truth is not in hand: ``tasks.NoTruth`` scores
``reference_error:no_truth``, a ``tasks.TruthRun`` is built in the scoring plan (the real
engine), and a benchmark's answer reader runs before the kind's judge."""

from __future__ import annotations

from execlens.engine import Engine
from execlens.judge import TaskScorer, Verdict, VerdictStatus, score_sample
from execlens.tasks import NoTruth, Task, TruthRun

PROGRAM = "def f(n):\n    total = 0\n    for i in range(n):\n        total += i\n    return total\n"


def _labels(scorer: TaskScorer, task: Task, answers: list[str], engine: Engine) -> list[str]:
    return [v.label for v in score_sample(scorer, task, answers, engine).verdicts]


def test_a_task_with_no_truth_is_a_reference_error_whatever_the_answer() -> None:
    task = Task("output", PROGRAM, NoTruth("the program cannot run"), call="f(3)", id="t")
    score = score_sample(TaskScorer(), task, ["3", "garbage("])
    assert [v.label for v in score.verdicts] == ["reference_error:no_truth"] * 2
    assert score.verdicts[0].detail == "the program cannot run"


def test_an_output_truth_is_run_in_the_plan_and_compared_type_strictly(engine: Engine) -> None:
    task = Task("output", PROGRAM, TruthRun(seeds=(0, 1)), call="f(4)", id="t")
    plan = TaskScorer().plan(task, ["6"])
    assert len(plan.jobs) == 2  # one run per hash seed, before any answer is judged
    assert _labels(TaskScorer(), task, ["6", "6.0", "7", "f("], engine) == [
        "passed",
        "wrong:type_mismatch",
        "wrong:value",
        "unparseable:syntax",
    ]


def test_runs_that_fail_or_disagree_leave_no_truth(engine: Engine) -> None:
    failing = Task("output", "def f():\n    return 1 // 0\n", TruthRun(), call="f()", id="a")
    [verdict] = score_sample(TaskScorer(), failing, ["1"], engine).verdicts
    assert verdict.label == "reference_error:no_truth"
    assert verdict.detail.startswith("the program fails here") and "ZeroDivision" in verdict.detail
    # str hashes change with the hash seed: the two runs disagree
    seeded = Task(
        "output", "def f():\n    return hash('abc')\n", TruthRun(seeds=(0, 1)), call="f()", id="b"
    )
    [verdict] = score_sample(TaskScorer(), seeded, ["1"], engine).verdicts
    assert verdict.label == "reference_error:no_truth"
    assert verdict.detail == "nondeterministic: two runs (hash seeds 0 and 1) disagree"


def test_a_trace_truth_is_traced_in_the_plan(engine: Engine) -> None:
    task = Task("trace", PROGRAM, TruthRun(), call="f(2)", id="t")
    labels = _labels(TaskScorer(), task, ["[2, 3, 4, 3, 4, 3, 5]", "[2, 3, 5]"], engine)
    assert labels[0] == "passed" and labels[1].startswith("wrong:")


def test_the_answer_reader_runs_before_the_kinds_judge(engine: Engine) -> None:
    def read(answer: str) -> str | Verdict:
        if not answer.startswith("="):
            return Verdict.failing(VerdictStatus.UNPARSEABLE, "no_marker", "no '='")
        return answer[1:]

    task = Task("output", PROGRAM, TruthRun(), call="f(3)", id="t")
    assert _labels(TaskScorer(read=read), task, ["=3", "3", "=4"], engine) == [
        "passed",
        "unparseable:no_marker",
        "wrong:value",
    ]
