"""REval's runs as read from ``DREval_data.jsonl``: record checks, runtime programs and
the problems ``execlens trace`` traces.

* :func:`check_reval_data` validates the data file record by record (named errors) and
  warns of duplicate task ids;
* :func:`programs_from_reval` gives every input as a ``RuntimeProgram`` (what ``execlens
  tasks build`` and the runtime benchmark read, through the benchmark's ``programs``
  hook), with ``DREval_tasks.jsonl``'s questions where that file sits beside it;
* :func:`reval_problems_to_trace` gives ``execlens trace`` the dataset model's problems
  after the same checks, refusing duplicate task ids (the exported rows are keyed by
  them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from execlens.tasks import (
    RuntimeProgram,
    SourceError,
    duplicate_ids,
    require_field,
    skip_reason,
    source_rows,
)

from ._classeval import classeval_test_classes
from ._data import RevalDataError, RevalProblem, load_reval_problems

__all__ = ["check_reval_data", "programs_from_reval", "recognises_reval", "reval_problems_to_trace"]

DATA_FILE = "DREval_data.jsonl"
TASKS_FILE = "DREval_tasks.jsonl"

# REval's ids are "DREval/12": the number after the slash is the problem's index.
_REVAL_ID = re.compile(r"^[^\s/][^/]*/\d+$")


def recognises_reval(path: Path, first: Mapping[str, Any]) -> bool:
    """Whether ``path`` is REval data: a directory holding ``DREval_data.jsonl``, a file
    named ``DREval_data*``, or records with ``task_id``, ``entry_point`` and ``inputs``
    (HumanEval-style records of a user's own)."""
    if path.is_dir():
        return (path / DATA_FILE).is_file()
    return path.name.startswith("DREval_data") or {"task_id", "entry_point", "inputs"} <= set(first)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and value.isidentifier()


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _check_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    for number, row in enumerate(rows, 1):
        require_field(path, number, row, "task_id", "a string like 'DREval/12'", _is_str)
        if not _REVAL_ID.match(row["task_id"]):
            raise SourceError(
                f"{path} record {number}: field 'task_id' must look like "
                f"'DREval/12' (a name, '/', a number), got {row['task_id']!r}"
            )
        require_field(path, number, row, "code", "the program's source text", _is_str)
        require_field(
            path, number, row, "entry_point", "the function or class name to call", _is_name
        )
        require_field(
            path,
            number,
            row,
            "inputs",
            "a list of input texts (strings), one per run",
            _is_str_list,
        )
        require_field(
            path,
            number,
            row,
            "outputs",
            "a list of output texts (strings)",
            _is_str_list,
            optional=True,
        )
        require_field(
            path, number, row, "test", "unittest source text or null", _is_str, optional=True
        )


def check_reval_data(path: str | Path) -> list[str]:
    """Validate ``DREval_data.jsonl`` (or its directory) record by record.

    Raises ``SourceError`` naming the record number, the field and what was expected;
    returns warnings (duplicate task ids) for the caller to show.
    """
    path = Path(path)
    if path.is_dir():
        path = path / DATA_FILE
    rows = source_rows(path)
    _check_rows(path, rows)
    return duplicate_ids(path, [row["task_id"] for row in rows])


def reval_problems_to_trace(data: str | Path) -> list[RevalProblem]:
    """The problems ``execlens trace`` traces, or a :class:`RevalDataError` naming the fix.

    ``DREval_data.jsonl`` is checked first (:func:`check_reval_data`'s named errors) and
    a task id occurring twice is refused: the exported rows are keyed by task id, so two
    problems would become one row.
    """
    path = Path(data)
    data_file = path / DATA_FILE if path.is_dir() else path
    if data_file.name == DATA_FILE and data_file.is_file():
        try:
            duplicates = check_reval_data(data_file)
        except SourceError as exc:
            raise RevalDataError(str(exc)) from None
        if duplicates:
            raise RevalDataError(duplicates[0])
    return load_reval_problems(path)


def programs_from_reval(path: str | Path, with_questions: bool = True) -> list[RuntimeProgram]:
    """Every DREval input; ``questions`` are DREval_tasks.jsonl's (line, var) pairs.

    HumanEval problems call ``entry_point`` with each input's argument tuple; ClassEval
    problems run, for input ``i``, the first ``test*`` method of the ``i``-th test class
    REval keeps (``_classeval.classeval_test_classes``).  Problems importing a module
    that is not installed get a ``skip_reason``.
    """
    root = Path(path)
    data = root / DATA_FILE if root.is_dir() else root
    directory = data.parent
    rows = source_rows(data)
    _check_rows(data, rows)  # named errors here, not tracebacks further down
    asked: dict[tuple[str, int], list[tuple[int, str]]] = {}
    output_preds: dict[tuple[str, int], str] = {}
    if with_questions and (directory / TASKS_FILE).is_file():
        for task_id, input_index, line, var, pred in _questions(directory / TASKS_FILE):
            asked.setdefault((task_id, input_index), []).append((line, var))
            output_preds[(task_id, input_index)] = pred
    out = []
    for number, row in enumerate(rows, 1):
        problem_id, code, test = row["task_id"], row["code"], row.get("test")
        outputs = row.get("outputs") or []
        reason = skip_reason(code, test)
        classes = _test_classes(data, number, test, row["entry_point"]) if test else []
        for index, text in enumerate(row["inputs"]):
            key = (problem_id, index)
            meta: list[tuple[str, Any]] = [("input", text)]
            expected = None if test else (outputs[index] if index < len(outputs) else None)
            if expected is not None:
                meta.append(("expected_output", expected))
            if key in output_preds:
                meta.append(("output_pred", output_preds[key]))
            if test:
                if index >= len(classes):
                    raise SourceError(
                        f"{data} record {number}: input {index} has no "
                        f"matching test class with a test method in 'test'"
                    )
                call, test_class, test_method = None, classes[index][0], classes[index][1]
            else:
                call, test_class, test_method = f"{row['entry_point']}{text.strip()}", None, None
            out.append(
                RuntimeProgram(
                    source="reval",
                    problem_id=problem_id,
                    input_index=index,
                    program=code,
                    call=call,
                    test=test if test_class else None,
                    test_class=test_class,
                    test_method=test_method,
                    questions=tuple(asked[key]) if key in asked else None,
                    skip_reason=reason,
                    meta=tuple(meta),
                )
            )
    return out


def _questions(path: Path) -> list[tuple[str, int, int, str, str]]:
    """(task id, input index, line, var, output_pred) of every DREval_tasks.jsonl question."""
    questions = []
    for number, row in enumerate(source_rows(path), 1):
        try:
            for pair in row["tasks"]:
                for task in pair["task"]:
                    questions.append(
                        (
                            str(row["task_id"]),
                            int(pair["input_idx"]),
                            int(task["lineno"]),
                            str(task["var"]),
                            str(pair.get("output_pred", "")),
                        )
                    )
        except (KeyError, TypeError, ValueError) as exc:
            raise SourceError(
                f"{path} record {number}: malformed question list ({exc!r}); "
                f"expected tasks: [{{input_idx, task: [{{lineno, var}}]}}]"
            ) from None
    return questions


def _test_classes(path: Path, number: int, test: str, entry_point: str) -> list[tuple[str, str]]:
    """(test class, its first ``test*`` method) of each input, REval's ClassEval rule."""
    try:
        classes = classeval_test_classes(test, entry_point)
    except SyntaxError as exc:
        raise SourceError(
            f"{path} record {number}: unittest source does not parse "
            f"({exc.msg}, line {exc.lineno}); fix the record's 'test' field"
        ) from None
    except ValueError as exc:
        raise SourceError(
            f"{path} record {number}: cannot read the test classes ({exc}); "
            f"fix the record's 'test' field"
        ) from None
    return [(cls.name, cls.first_test) for cls in classes]
