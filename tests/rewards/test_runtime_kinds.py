"""Coverage, path, state and output-completion rewards on tasks built from real traces."""

from __future__ import annotations

import json

import pytest

from execlens.engine import Engine
from execlens.judge import VerdictStatus
from execlens.rewards import Task, TaskError, score, tasks_from_runtime
from execlens.tasks import RuntimeProgram, build_tasks

PROGRAM = (
    "def f(n):\n    total = 0\n    for i in range(n):\n        if i % 2:\n"
    "            total += i\n    return total\n"
)


@pytest.fixture(scope="module")
def tasks(engine: Engine) -> dict[tuple[str, int | None, str | None], Task]:
    built = build_tasks([RuntimeProgram("test", "p", 0, PROGRAM, call="f(4)")], engine=engine)
    out = {}
    for task in built:
        reward_task = tasks_from_runtime(task)
        out[(reward_task.kind, reward_task.line, reward_task.var)] = reward_task
    return out


def test_coverage(tasks: dict) -> None:
    task = tasks[("coverage", 5, "total")]
    assert score(task, "[ANSWER]YES[/ANSWER]").passed
    assert score(task, "[ANSWER]NO[/ANSWER]").status is VerdictStatus.WRONG
    assert score(task, "[ANSWER]maybe[/ANSWER]").status is VerdictStatus.UNPARSEABLE


def test_path(tasks: dict) -> None:
    task = tasks[("path", 5, "total")]
    assert score(task, "[ANSWER]3[/ANSWER]").passed
    assert score(task, "[ANSWER]for i in range(n):[/ANSWER]").passed  # the line's text
    assert not score(task, "[ANSWER]6[/ANSWER]").passed
    assert score(tasks[("path", 6, "total")], "-1").passed


def test_state(tasks: dict) -> None:
    task = tasks[("state", 5, "total")]
    assert score(task, "[ANSWER]4; int[/ANSWER]").passed
    assert score(task, "[ANSWER]1[/ANSWER]").passed
    assert not score(task, "[ANSWER]4; str[/ANSWER]").passed
    assert not score(task, "[ANSWER]Nil[/ANSWER]").passed
    assert score(task, "[ANSWER]4 or True[/ANSWER]").status is VerdictStatus.UNPARSEABLE


def test_runtime_output(tasks: dict) -> None:
    # One output kind: a runtime output reference (REval-style completion) is "output".
    task = next(t for key, t in tasks.items() if key[0] == "output")
    assert isinstance(task.reference, dict)
    assert score(task, "[ANSWER]assert f(4) == 4[/ANSWER]").passed
    # Ground truths exported before the kinds merged read back as the same task.
    legacy = json.loads(task.to_json())
    legacy["kind"] = "output_completion"
    assert Task.from_json(json.dumps(legacy)) == task
    assert score(task, "[ANSWER]4.0[/ANSWER]").reason == "type_mismatch"
    assert score(task, "[ANSWER][] or 4[/ANSWER]").status is VerdictStatus.UNPARSEABLE


def test_raising_run_is_answered_by_exception_name(engine: Engine) -> None:
    built = build_tasks(
        [RuntimeProgram("test", "p", 0, "def f(x):\n    return 1 / x\n", call="f(0)")],
        engine=engine,
        kinds=("output",),
    )
    task = tasks_from_runtime(built[0])
    assert score(task, "[ANSWER]ZeroDivisionError[/ANSWER]").passed
    assert not score(task, "[ANSWER]ValueError[/ANSWER]").passed


def test_driver_tasks_are_refused() -> None:
    from execlens.tasks import RuntimeTask

    driver = RuntimeTask(
        id="x",
        kind="output",
        source="reval",
        problem_id="p",
        input_index=0,
        program="class A: pass",
        call=None,
        reference=None,
        mode="exact",
        selection="reval",
        test="t",
    )
    with pytest.raises(TaskError, match="test class"):
        tasks_from_runtime(driver)
