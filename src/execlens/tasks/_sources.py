"""Programs plus inputs to ask runtime questions about, from the datasets we ship.

* REval (``DREval_data.jsonl``, with its questions from ``DREval_tasks.jsonl``);
* CRUXEval (``cruxeval.jsonl``: one ``def f`` and an argument-list text per sample);
* CodeI/O (``rawcode_1k_parsed.jsonl``: ``refcode`` with ``main_solution`` and kwargs
  inputs).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["RuntimeProgram", "SourceError", "load_programs", "programs_from_codeio",
           "programs_from_cruxeval", "programs_from_reval"]


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
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise SourceError(f"{path}:{number}: not JSON: {exc}") from exc
    return rows


def programs_from_reval(path: str | Path, with_questions: bool = True) -> list[RuntimeProgram]:
    """Every DREval input; ``questions`` are DREval_tasks.jsonl's (line, var) pairs."""
    from execlens.trace import load_reval, load_reval_tasks

    root = Path(path)
    directory = root if root.is_dir() else root.parent
    asked: dict[tuple[str, int], list[tuple[int, str]]] = {}
    output_preds: dict[tuple[str, int], str] = {}
    if with_questions and (directory / "DREval_tasks.jsonl").is_file():
        for q in load_reval_tasks(directory):
            asked.setdefault((q.task_id, q.input_index), []).append((q.line, q.var))
            output_preds[(q.task_id, q.input_index)] = q.output_pred
    out = []
    for problem in load_reval(root):
        for item in problem.inputs:
            key = (problem.task_id, item.index)
            meta: list[tuple[str, Any]] = [("input", item.text)]
            if item.expected_output is not None:
                meta.append(("expected_output", item.expected_output))
            if key in output_preds:
                meta.append(("output_pred", output_preds[key]))
            out.append(RuntimeProgram(
                source="reval", problem_id=problem.task_id, input_index=item.index,
                program=problem.code, call=item.call,
                test=problem.test if item.test_class else None, test_class=item.test_class,
                test_method=item.test_method,
                questions=tuple(asked[key]) if key in asked else None,
                skip_reason=problem.skip_reason, meta=tuple(meta)))
    return out


def programs_from_cruxeval(path: str | Path) -> list[RuntimeProgram]:
    """CRUXEval samples: ``f(<input>)`` on each sample's code."""
    out = []
    for row in _rows(Path(path)):
        try:
            out.append(RuntimeProgram(source="cruxeval", problem_id=str(row["id"]),
                                      input_index=0, program=row["code"],
                                      call=f"f({row['input']})",
                                      meta=(("expected_output", row.get("output")),)))
        except KeyError as exc:
            raise SourceError(f"{path}: a CRUXEval row lacks {exc}") from exc
    return out


def programs_from_codeio(path: str | Path) -> list[RuntimeProgram]:
    """CodeI/O parsed samples: ``main_solution(**input)`` for each I/O pair."""
    out = []
    for number, row in enumerate(_rows(Path(path))):
        try:
            code, name, ios = row["refcode"], row.get("funcname", "main_solution"), row["ios"]
        except KeyError as exc:
            raise SourceError(f"{path}: a CodeI/O row lacks {exc}") from exc
        problem_id = f"codeio/{row.get('meta', {}).get('msgidx', number)}"
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
    """Load programs from any supported dataset file (or an REval directory)."""
    path = Path(path)
    if path.is_dir():
        if (path / "DREval_data.jsonl").is_file():
            return programs_from_reval(path)
        raise SourceError(f"{path}: no DREval_data.jsonl in this directory")
    if not path.is_file():
        raise SourceError(f"{path}: no such file")
    if path.name.startswith("DREval_data"):
        return programs_from_reval(path)
    with path.open(encoding="utf-8") as handle:
        first = json.loads(handle.readline() or "{}")
    if {"code", "input", "output"} <= set(first):
        return programs_from_cruxeval(path)
    if {"refcode", "ios"} <= set(first):
        return programs_from_codeio(path)
    if {"task_id", "entry_point", "inputs"} <= set(first):
        return programs_from_reval(path)
    raise SourceError(f"{path}: not REval, CRUXEval or CodeI/O data (fields: {sorted(first)})")
