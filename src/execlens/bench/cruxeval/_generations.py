"""CRUXEval for scoring: its problems as prediction tasks and an official-format
generations file.

The problems come from the dataset loader: a local ``cruxeval.jsonl`` (or a directory
holding one), or by default the Hugging Face dataset ``cruxeval-org/cruxeval`` (split
``test``).  Generations are the official format ``{"sample_i": ["f(...)", ...]}``; an
official *scored* file (``raw_generations`` inside) is accepted too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from execlens.bench import DatasetError, check_generations, read_generations_json
from execlens.tasks import (
    ProblemError,
    Task,
    input_is_call,
    prediction_task_from_record,
)

from ._data import load_cruxeval

__all__ = [
    "checked_records",
    "cruxeval_question",
    "cruxeval_task",
    "load_cruxeval_generations",
    "load_cruxeval_problems",
]

# The ``source`` of CRUXEval's tasks (exported reward tasks' ids start with it).
_SOURCE = "cruxeval"


def checked_records(loaded: Any) -> list[Any]:
    """The records of a loader's result; malformed records stop scoring, named."""
    if loaded.errors:
        shown = "; ".join(str(error) for error in loaded.errors[:5])
        raise ProblemError(f"{len(loaded.errors)} malformed record(s): {shown}")
    return list(loaded.records)


def cruxeval_task(sample: Any, kind: str = "output") -> Task:
    """A CRUXEval sample (``CruxEvalSample``) as a ``kind`` prediction task: ``f(<input>)``
    and its output literal; ``input`` keeps the argument list the official filter reads.

    A task already is one (asked as ``kind``).
    """
    if isinstance(sample, Task):
        return sample if sample.kind == kind else replace(sample, kind=kind)
    return prediction_task_from_record(asdict(sample), kind=kind, source=_SOURCE)


def cruxeval_question(record: Mapping[str, Any]) -> Task | None:
    """The output-prediction task a CRUXEval-shaped row (``code``, ``input``, ``output``;
    the input an argument list, not a call) asks, or ``None`` for another shape.

    Raises :class:`~execlens.tasks.ProblemError` naming a missing or ill-typed field.
    """
    if not {"code", "input", "output"} <= set(record) or input_is_call(record):
        return None
    id_key = "id" if "id" in record else "question_id"
    return prediction_task_from_record(record, id_key=id_key, source=_SOURCE)


def load_cruxeval_problems(data: str | Path | None = None, kind: str = "output") -> list[Task]:
    """CRUXEval's 800 problems as ``kind`` prediction tasks, in dataset order.

    ``data``: a ``cruxeval.jsonl`` path or a directory containing one; ``None`` loads
    the Hugging Face dataset.
    """
    try:
        samples = checked_records(load_cruxeval(data))
    except DatasetError as exc:
        raise ProblemError(f"{exc}; pass a local file with --data") from exc
    return [cruxeval_task(sample, kind) for sample in samples]


def load_cruxeval_generations(path: str | Path) -> dict[str, list[str]]:
    """An official-format generations file: ``{"sample_i": [generation, ...]}``.

    An official scored file (with ``raw_generations``) yields its generations.
    """
    file = Path(path)
    data = read_generations_json(file)
    if isinstance(data, dict) and isinstance(data.get("raw_generations"), dict):
        data = data["raw_generations"]
    return check_generations(data, str(file))
