"""Prediction tasks from benchmark rows: the one question type CRUXEval and LiveCodeBench
problems become (program, reference literal, call, input; LCB's import block apart)."""

from __future__ import annotations

import pytest

from execlens.tasks import (
    ProblemError,
    Task,
    TaskError,
    input_is_call,
    prediction_code,
    prediction_task,
    prediction_task_from_record,
    with_prelude,
)

ROW = {
    "id": "sample_7",
    "code": "def f(a, b):\n    return a + b",
    "input": "'x', 'y'",
    "output": "'xy'",
}


def test_a_cruxeval_row_is_a_task_with_its_call_and_argument_list() -> None:
    task = prediction_task_from_record(ROW, source="cruxeval")
    assert isinstance(task, Task)
    assert (task.kind, task.id, task.program, task.reference) == (
        "output",
        "sample_7",
        ROW["code"],
        "'xy'",
    )
    assert (task.call, task.input, task.entry, task.source) == (
        "f('x', 'y')",
        "'x', 'y'",
        "f",
        "cruxeval",
    )
    assert prediction_task_from_record(ROW, kind="input").kind == "input"
    with pytest.raises(TaskError, match="'output' or 'input'"):
        prediction_task_from_record(ROW, kind="path")


@pytest.mark.parametrize(
    ("row", "named"),
    [
        ({k: v for k, v in ROW.items() if k != "input"}, "lacks the field 'input'"),
        ({k: v for k, v in ROW.items() if k != "id"}, "lacks the field 'id'"),
        ({**ROW, "output": 3}, "field 'output' must be a string, got int"),
    ],
)
def test_a_malformed_row_names_its_field(row: dict, named: str) -> None:
    with pytest.raises(ProblemError, match=named) as caught:
        prediction_task_from_record(row)
    assert isinstance(caught.value, TaskError)


def test_a_full_call_input_and_a_prelude() -> None:
    row = {
        "question_id": "q1",
        "function_name": "double",
        "code": "def double(n):\n    return 2 * n",
        "input": "double(n = 3)",
        "output": "6",
    }
    assert input_is_call(row) and not input_is_call(ROW)
    task = prediction_task_from_record(row, id_key="question_id", call=True)
    assert (task.id, task.call, task.entry) == ("q1", "double(n = 3)", "double")
    assert task.program == row["code"] and prediction_code(task) == row["code"]

    prelude = "import math\n"
    framed = with_prelude(task, prelude)
    assert framed.program == f"{prelude}\n{row['code']}"
    assert framed.meta == {"prelude": prelude}
    assert prediction_code(framed) == row["code"]
    assert with_prelude(framed, prelude) is framed  # already framed: unchanged
    assert with_prelude(framed, "") == task  # and back
    built = prediction_task(
        id="q1",
        code=row["code"],
        input=row["input"],
        output="6",
        function="double",
        call=row["input"],
        prelude=prelude,
    )
    assert built.program == framed.program and prediction_code(built) == row["code"]
