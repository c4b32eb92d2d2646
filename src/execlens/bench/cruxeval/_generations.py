"""CRUXEval for scoring: its problems and an official-format generations file.

The problems come from the dataset loader: a local ``cruxeval.jsonl`` (or a directory
holding one), or by default the Hugging Face dataset ``cruxeval-org/cruxeval`` (split
``test``).  Generations are the official format ``{"sample_i": ["f(...)", ...]}``; an
official *scored* file (``raw_generations`` inside) is accepted too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from execlens.bench import DatasetError, check_generations, read_generations_json
from execlens.judge import ExecProblem, ProblemError

from ._data import load_cruxeval

__all__ = ["checked_records", "cruxeval_problem", "load_cruxeval_generations",
           "load_cruxeval_problems"]


def checked_records(loaded: Any) -> list[Any]:
    """The records of a loader's result; malformed records stop scoring, named."""
    if loaded.errors:
        shown = "; ".join(str(error) for error in loaded.errors[:5])
        raise ProblemError(f"{len(loaded.errors)} malformed record(s): {shown}")
    return list(loaded.records)


def cruxeval_problem(sample: Any) -> ExecProblem:
    """A CRUXEval sample (``CruxEvalSample``) as a problem to judge."""
    if isinstance(sample, ExecProblem):
        return sample
    return ExecProblem(sample.id, sample.code, sample.input, sample.output)


def load_cruxeval_problems(data: str | Path | None = None) -> list[ExecProblem]:
    """CRUXEval's 800 problems, in dataset order.

    ``data``: a ``cruxeval.jsonl`` path or a directory containing one; ``None`` loads
    the Hugging Face dataset.
    """
    try:
        samples = checked_records(load_cruxeval(data))
    except DatasetError as exc:
        raise ProblemError(f"{exc}; pass a local file with --data") from exc
    return [cruxeval_problem(sample) for sample in samples]


def load_cruxeval_generations(path: str | Path) -> dict[str, list[str]]:
    """An official-format generations file: ``{"sample_i": [generation, ...]}``.

    An official scored file (with ``raw_generations``) yields its generations.
    """
    file = Path(path)
    data = read_generations_json(file)
    if isinstance(data, dict) and isinstance(data.get("raw_generations"), dict):
        data = data["raw_generations"]
    return check_generations(data, str(file))
