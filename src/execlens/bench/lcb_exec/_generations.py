"""LiveCodeBench code execution for scoring: problems and generations files.

Problems come from a local JSON/JSONL file of ``livecodebench/execution-v2`` rows, from
the generations file itself (LiveCodeBench's evaluation output repeats ``code``,
``input`` and ``output`` in every record), or from Hugging Face by default.

Generations: LiveCodeBench's own output (a JSON list of records with ``id`` and the
extracted answers in ``pred_list``), or ``{"<id>": ["<answer>", ...]}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from execlens.bench import (
    DatasetError,
    GenerationsError,
    check_generations,
    read_generations_json,
)
from execlens.judge import ExecProblem, ProblemError

from ._data import lcb_order, load_lcb_exec
from ._official import LCB_PRELUDE

__all__ = ["lcb_problem", "lcb_sample_problem", "load_lcb_generations", "load_lcb_problems"]


def _order(sample_id: str) -> tuple[int, str]:
    return lcb_order(sample_id)


def lcb_problem(record: dict[str, Any]) -> ExecProblem:
    """One execution-v2 row as a problem (its ``input`` is a full call)."""
    return ExecProblem.from_record(record, input_is_call=True)


def lcb_sample_problem(sample: Any) -> ExecProblem:
    """A loaded ``bench.LCBExecSample`` as a problem, with LiveCodeBench's import block."""
    if isinstance(sample, ExecProblem):
        return sample
    return ExecProblem(sample.id, sample.code, sample.input, sample.output,
                       function_name=sample.function_name, input_is_call=True,
                       prelude=LCB_PRELUDE)


def load_lcb_problems(data: str | Path | None = None) -> list[ExecProblem]:
    """The execution-v2 problems, sorted as LiveCodeBench sorts them."""
    try:
        loaded = load_lcb_exec(data)
        if loaded.errors:
            shown = "; ".join(str(error) for error in loaded.errors[:5])
            raise ProblemError(f"{len(loaded.errors)} malformed record(s): {shown}")
        samples = list(loaded.records)
    except DatasetError as exc:
        raise ProblemError(f"{exc}; pass a local file with --data") from exc
    return [lcb_sample_problem(sample) for sample in samples]


def load_lcb_generations(path: str | Path
                         ) -> tuple[dict[str, list[str]], list[ExecProblem] | None]:
    """Generations by problem id, and the problems when the file carries them."""
    file = Path(path)
    data = read_generations_json(file)
    if isinstance(data, dict):
        return check_generations(data, str(file)), None
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise GenerationsError(f"{file}: expected LiveCodeBench's list of records or an "
                               f"object mapping ids to lists of answers")
    generations: dict[str, Any] = {}
    for index, record in enumerate(data):
        if "id" not in record or "pred_list" not in record:
            raise GenerationsError(f"{file}: record {index} lacks 'id' or 'pred_list'")
        generations[str(record["id"])] = record["pred_list"]
    checked = check_generations(generations, str(file))
    embedded: list[ExecProblem] | None = None
    if all(all(k in r for k in ("code", "input", "output")) for r in data):
        embedded = sorted((lcb_problem(r) for r in data), key=lambda p: _order(p.id))
    return checked, embedded


def sort_problems(problems: Sequence[ExecProblem]) -> list[ExecProblem]:
    """Problems in LiveCodeBench's order."""
    return sorted(problems, key=lambda p: _order(p.id))
