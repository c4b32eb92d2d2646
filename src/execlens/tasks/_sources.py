"""Programs plus inputs to ask runtime questions about, from the datasets we ship.

* REval (``DREval_data.jsonl``, with its questions from ``DREval_tasks.jsonl``);
* CRUXEval (``cruxeval.jsonl``: one ``def f`` and an argument-list text per sample);
* CodeI/O (``rawcode_1k_parsed.jsonl``: ``refcode`` with ``main_solution`` and kwargs
  inputs).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._classeval import classeval_test_classes
from ._requirements import skip_reason

__all__ = ["RuntimeProgram", "SourceError", "check_reval_data", "duplicate_ids",
           "load_programs", "programs_from_codeio", "programs_from_cruxeval",
           "programs_from_reval", "source_warnings"]

# REval's ids are "DREval/12": the number after the slash is the problem's index.
_REVAL_ID = re.compile(r"^[^\s/][^/]*/\d+$")


class SourceError(ValueError):
    """A source file is not one of the supported datasets, or is malformed."""


@dataclass(frozen=True)
class RuntimeProgram:
    """One program run: source, how it is called, and (REval) the questions asked of it."""

    source: str
    problem_id: str
    input_index: int
    program: str
    call: str | None = None
    test: str | None = None
    test_class: str | None = None
    test_method: str | None = None
    questions: tuple[tuple[int, str], ...] | None = None
    skip_reason: str | None = None
    meta: tuple[tuple[str, Any], ...] = ()


def _rows(path: Path) -> list[dict[str, Any]]:
    """Every record of a JSONL file; a record that is not a JSON object is an error."""
    rows = []
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise SourceError(f"{path} record {number}: not JSON ({exc.msg}); fix "
                                      f"or remove that line") from None
                except RecursionError:
                    raise SourceError(f"{path} record {number}: JSON nested too deeply to "
                                      f"read; fix or remove that line") from None
                if not isinstance(row, dict):
                    raise SourceError(f"{path} record {number}: expected a JSON object, got "
                                      f"{_kind(row)}; each line must be one record {{...}}")
                rows.append(row)
    except UnicodeDecodeError as exc:
        raise SourceError(f"{path}: not UTF-8 text (byte {exc.start}); convert it to "
                          f"UTF-8") from None
    except IsADirectoryError:
        raise SourceError(f"{path}: is a directory; name a JSONL file") from None
    except FileNotFoundError:
        raise SourceError(f"{path}: no such file") from None
    return rows


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "an integer", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _require(path: Path, number: int, row: dict[str, Any], field: str, expected: str,
             ok: Any, optional: bool = False) -> None:
    """Raise a ``SourceError`` naming record, field and expectation unless ``ok(value)``."""
    if field not in row or (optional and row[field] is None):
        if optional:
            return
        raise SourceError(f"{path} record {number}: missing field {field!r} ({expected})")
    if not ok(row[field]):
        raise SourceError(f"{path} record {number}: field {field!r} must be {expected}, got "
                          f"{_kind(row[field])}")


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and value.isidentifier()


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _check_reval_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    for number, row in enumerate(rows, 1):
        _require(path, number, row, "task_id", "a string like 'DREval/12'", _is_str)
        if not _REVAL_ID.match(row["task_id"]):
            raise SourceError(f"{path} record {number}: field 'task_id' must look like "
                              f"'DREval/12' (a name, '/', a number), got {row['task_id']!r}")
        _require(path, number, row, "code", "the program's source text", _is_str)
        _require(path, number, row, "entry_point", "the function or class name to call",
                 _is_name)
        _require(path, number, row, "inputs", "a list of input texts (strings), one per "
                 "run", _is_str_list)
        _require(path, number, row, "outputs", "a list of output texts (strings)",
                 _is_str_list, optional=True)
        _require(path, number, row, "test", "unittest source text or null", _is_str,
                 optional=True)


def check_reval_data(path: str | Path) -> list[str]:
    """Validate ``DREval_data.jsonl`` (or its directory) record by record.

    Raises :class:`SourceError` naming the record number, the field and what was
    expected; returns warnings (duplicate task ids) for the caller to show.
    """
    path = Path(path)
    if path.is_dir():
        path = path / "DREval_data.jsonl"
    rows = _rows(path)
    _check_reval_rows(path, rows)
    return duplicate_ids(path, [row["task_id"] for row in rows])


def duplicate_ids(path: str | Path, ids: list[str]) -> list[str]:
    """One warning naming the ids that occur more than once (none: no warning)."""
    repeated = sorted(ident for ident, count in Counter(ids).items() if count > 1)
    if not repeated:
        return []
    shown = ", ".join(repeated[:10]) + (f" and {len(repeated) - 10} more"
                                         if len(repeated) > 10 else "")
    return [f"{path}: duplicate ids {shown}; their tasks share ids (deduplicate the data)"]


def programs_from_reval(path: str | Path, with_questions: bool = True) -> list[RuntimeProgram]:
    """Every DREval input; ``questions`` are DREval_tasks.jsonl's (line, var) pairs.

    HumanEval problems call ``entry_point`` with each input's argument tuple; ClassEval
    problems run, for input ``i``, the first ``test*`` method of the ``i``-th test class
    REval keeps (:func:`classeval_test_classes`).  Problems importing a module that is
    not installed get a ``skip_reason``.
    """
    root = Path(path)
    data = root / "DREval_data.jsonl" if root.is_dir() else root
    directory = data.parent
    rows = _rows(data)
    _check_reval_rows(data, rows)  # named errors here, not tracebacks further down
    asked: dict[tuple[str, int], list[tuple[int, str]]] = {}
    output_preds: dict[tuple[str, int], str] = {}
    if with_questions and (directory / "DREval_tasks.jsonl").is_file():
        for task_id, input_index, line, var, pred in _reval_questions(
                directory / "DREval_tasks.jsonl"):
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
                    raise SourceError(f"{data} record {number}: input {index} has no "
                                      f"matching test class with a test method in 'test'")
                call, test_class, test_method = None, classes[index][0], classes[index][1]
            else:
                call, test_class, test_method = f"{row['entry_point']}{text.strip()}", None, None
            out.append(RuntimeProgram(
                source="reval", problem_id=problem_id, input_index=index, program=code,
                call=call, test=test if test_class else None, test_class=test_class,
                test_method=test_method,
                questions=tuple(asked[key]) if key in asked else None,
                skip_reason=reason, meta=tuple(meta)))
    return out


def _reval_questions(path: Path) -> list[tuple[str, int, int, str, str]]:
    """(task id, input index, line, var, output_pred) of every DREval_tasks.jsonl question."""
    questions = []
    for number, row in enumerate(_rows(path), 1):
        try:
            for pair in row["tasks"]:
                for task in pair["task"]:
                    questions.append((str(row["task_id"]), int(pair["input_idx"]),
                                      int(task["lineno"]), str(task["var"]),
                                      str(pair.get("output_pred", ""))))
        except (KeyError, TypeError, ValueError) as exc:
            raise SourceError(f"{path} record {number}: malformed question list ({exc!r}); "
                              f"expected tasks: [{{input_idx, task: [{{lineno, var}}]}}]"
                              ) from None
    return questions


def _test_classes(path: Path, number: int, test: str,
                  entry_point: str) -> list[tuple[str, str]]:
    """(test class, its first ``test*`` method) of each input, REval's ClassEval rule."""
    try:
        classes = classeval_test_classes(test, entry_point)
    except SyntaxError as exc:
        raise SourceError(f"{path} record {number}: unittest source does not parse "
                          f"({exc.msg}, line {exc.lineno}); fix the record's 'test' field"
                          ) from None
    except ValueError as exc:
        raise SourceError(f"{path} record {number}: cannot read the test classes ({exc}); "
                          f"fix the record's 'test' field") from None
    return [(cls.name, cls.first_test) for cls in classes]


def programs_from_cruxeval(path: str | Path) -> list[RuntimeProgram]:
    """CRUXEval samples: ``f(<input>)`` on each sample's code."""
    path = Path(path)
    out = []
    for number, row in enumerate(_rows(path), 1):
        _require(path, number, row, "id", "a string such as 'sample_0'",
                 lambda v: isinstance(v, str) or (isinstance(v, int)
                                                  and not isinstance(v, bool)))
        _require(path, number, row, "code", "the program's source text", _is_str)
        _require(path, number, row, "input", "the argument list as text, e.g. '[1, 2], 3'",
                 _is_str)
        _require(path, number, row, "output", "the output as text", _is_str, optional=True)
        out.append(RuntimeProgram(source="cruxeval", problem_id=str(row["id"]),
                                  input_index=0, program=row["code"],
                                  call=f"f({row['input']})",
                                  meta=(("expected_output", row.get("output")),)))
    return out


def programs_from_codeio(path: str | Path) -> list[RuntimeProgram]:
    """CodeI/O parsed samples: ``main_solution(**input)`` for each I/O pair."""
    path = Path(path)
    out = []
    for number, row in enumerate(_rows(path)):
        record = number + 1
        _require(path, record, row, "refcode", "the program's source text", _is_str)
        _require(path, record, row, "funcname", "the function's name", _is_name,
                 optional=True)
        _require(path, record, row, "ios", "a list of {\"input\": {...}} pairs",
                 lambda v: isinstance(v, list) and all(isinstance(p, dict) and "input" in p
                                                       for p in v))
        _require(path, record, row, "meta", "an object", lambda v: isinstance(v, dict),
                 optional=True)
        code, name, ios = row["refcode"], row.get("funcname") or "main_solution", row["ios"]
        problem_id = f"codeio/{(row.get('meta') or {}).get('msgidx', number)}"
        for index, pair in enumerate(ios):
            kwargs = pair["input"]
            if not isinstance(kwargs, dict):
                continue
            # JSON values are Python literals once dumped with repr-compatible forms.
            call = f"{name}(**{_literal(kwargs)})"
            out.append(RuntimeProgram(source="codeio", problem_id=problem_id,
                                      input_index=index, program=code, call=call))
    return out


def _literal(value: Any) -> str:
    """Python source for a JSON value (``true`` → ``True``, ``null`` → ``None``)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return repr(value)


def load_programs(path: str | Path) -> list[RuntimeProgram]:
    """Load programs from any supported dataset file (or an REval directory).

    Every record is validated: a malformed one is a :class:`SourceError` naming the
    record number, the field and what was expected.
    """
    path = Path(path)
    if path.is_dir():
        if (path / "DREval_data.jsonl").is_file():
            return programs_from_reval(path)
        raise SourceError(f"{path}: no DREval_data.jsonl in this directory")
    if not path.is_file():
        raise SourceError(f"{path}: no such file")
    if path.name.startswith("DREval_data"):
        return programs_from_reval(path)
    rows = _rows(path)
    first = rows[0] if rows else {}
    if {"code", "input", "output"} <= set(first):
        return programs_from_cruxeval(path)
    if {"refcode", "ios"} <= set(first):
        return programs_from_codeio(path)
    if {"task_id", "entry_point", "inputs"} <= set(first):
        return programs_from_reval(path)
    raise SourceError(f"{path}: not REval, CRUXEval or CodeI/O data (fields of the first "
                      f"record: {sorted(first)})")


def source_warnings(programs: list[RuntimeProgram]) -> list[str]:
    """Warnings about loaded programs: runs (problem id, input) that occur twice."""
    runs = Counter((program.problem_id, program.input_index) for program in programs)
    repeated = sorted({problem for (problem, _), count in runs.items() if count > 1})
    source = programs[0].source if programs else "data"
    return duplicate_ids(source, [ident for ident in repeated for _ in (0, 1)])
