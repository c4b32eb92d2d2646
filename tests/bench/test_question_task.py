"""Benchmark rows for ``execlens export``: each benchmark folder reads its own rows (the
optional ``question_task`` hook), so a row is read by exactly one benchmark."""

from __future__ import annotations

from execlens.bench import benchmark_names, get_benchmark
from execlens.rewards import tasks_from_prediction
from execlens.tasks import prediction_code

CRUX_ROW = {"id": "sample_0", "code": "def f(x):\n    return x * 2", "input": "3", "output": "6"}
LCB_ROW = {
    "question_id": "2831",
    "id": "sample_2",
    "function_name": "halve",
    "code": "def halve(n: int) -> int:\n    return n // 2",
    "input": "halve(n = 4)",
    "output": "2",
}


def _readers() -> dict[str, object]:
    return {
        name: hook
        for name in benchmark_names()
        if (hook := getattr(get_benchmark(name), "question_task", None)) is not None
    }


def test_each_row_is_read_by_its_own_benchmark() -> None:
    readers = _readers()
    assert {"cruxeval", "lcb-exec"} <= set(readers)
    for row, owner, source, call in [
        (CRUX_ROW, "cruxeval", "cruxeval", "f(3)"),
        (LCB_ROW, "lcb-exec", "lcb_exec", "halve(n = 4)"),
    ]:
        read = {name: hook(row) for name, hook in readers.items()}  # type: ignore[operator]
        assert [name for name, task in read.items() if task is not None] == [owner]
        task = read[owner]
        assert (task.source, task.call, prediction_code(task)) == (source, call, row["code"])
    assert all(
        hook({"refcode": "x", "ios": []}) is None  # type: ignore[operator]
        for hook in readers.values()
    )


def test_reward_tasks_of_a_row_hide_the_call_of_input_prediction() -> None:
    task = get_benchmark("lcb-exec").question_task(LCB_ROW)  # type: ignore[attr-defined]
    output, given = tasks_from_prediction(task)
    assert (output.id, output.kind, output.call, output.function) == (
        "lcb_exec/sample_2/output",
        "output",
        "halve(n = 4)",
        "halve",
    )
    assert (given.id, given.kind, given.call, given.meta["input"]) == (
        "lcb_exec/sample_2/input",
        "input",
        None,
        "halve(n = 4)",
    )
    assert given.program == task.program != prediction_code(given)  # the prelude runs


def test_an_exported_lcb_input_task_runs_with_the_import_block_but_shows_the_code() -> None:
    """LiveCodeBench's code leans on its import block (``Counter`` here): the reward task must
    run with it -- or every right answer fails with NameError -- yet its prompt shows the
    row's code, as LiveCodeBench's prompt does."""
    from execlens.judge import judge_task
    from execlens.rewards import render_messages

    row = {
        **LCB_ROW,
        "function_name": "total",
        "input": "total(nums = [1, 2])",
        "output": "3",
        "code": "def total(nums: List[int]) -> int:\n    return sum(Counter(nums))",
    }
    task = get_benchmark("lcb-exec").question_task(row)  # type: ignore[attr-defined]
    output, given = tasks_from_prediction(task)
    assert judge_task(given, "total(nums=[2, 1])").passed
    assert not judge_task(given, "total(nums=[2, 2])").passed
    for asked in (output, given):
        shown = render_messages(asked)[1]["content"]
        assert row["code"] in shown and "import" not in shown
