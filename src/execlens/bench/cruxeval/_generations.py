"""CRUXEval for scoring: its problems and an official-format generations file.

The problems come from the dataset loader (``bench._data_cruxeval``): a local
``cruxeval.jsonl`` (or a directory holding one), or by default the Hugging Face dataset
``cruxeval-org/cruxeval`` (split ``test``).
Generations are the official format ``{"sample_i": ["f(...)", ...]}``; an official
*scored* file (``raw_generations`` inside) is accepted too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from execlens.judge import ExecProblem, ProblemError

__all__ = [
    "GenerationsError",
    "cruxeval_problem",
    "load_cruxeval_generations",
    "load_cruxeval_problems",
]


class GenerationsError(ValueError):
    """A generations file that is not in the expected format."""


def _checked(loaded: Any) -> list[Any]:
    """The records of a loader's result; malformed records stop scoring, named."""
    if loaded.errors:
        shown = "; ".join(str(error) for error in loaded.errors[:5])
        raise ProblemError(f"{len(loaded.errors)} malformed record(s): {shown}")
    return list(loaded.records)


def cruxeval_problem(sample: Any) -> ExecProblem:
    """A CRUXEval sample (``bench.CruxEvalSample``) as a problem to judge."""
    return ExecProblem(sample.id, sample.code, sample.input, sample.output)


def load_cruxeval_problems(data: str | Path | None = None) -> list[ExecProblem]:
    """CRUXEval's 800 problems, in dataset order.

    ``data``: a ``cruxeval.jsonl`` path or a directory containing one; ``None`` loads
    the Hugging Face dataset.
    """
    from execlens.bench._data import DatasetError
    from execlens.bench._data_cruxeval import load_cruxeval

    try:
        samples = _checked(load_cruxeval(data))
    except DatasetError as exc:
        raise ProblemError(f"{exc}; pass a local file with --data") from exc
    return [cruxeval_problem(sample) for sample in samples]


def _check_unique(ids: Sequence[str]) -> None:
    seen: set[str] = set()
    for sample_id in ids:
        if sample_id in seen:
            raise ProblemError(f"duplicate sample id {sample_id!r} in the data")
        seen.add(sample_id)


def check_generations(generations: Any, source: str) -> dict[str, list[str]]:
    """Validate ``{id: [str, ...]}``; raises :class:`GenerationsError` naming the problem."""
    if not isinstance(generations, Mapping):
        raise GenerationsError(f"{source}: expected a JSON object mapping sample ids to lists "
                               f"of generations, got {type(generations).__name__}")
    checked: dict[str, list[str]] = {}
    for key, value in generations.items():
        if not isinstance(value, list):
            raise GenerationsError(f"{source}: {key!r} must map to a list of strings, "
                                   f"got {type(value).__name__}")
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise GenerationsError(f"{source}: {key!r}[{index}] must be a string, "
                                       f"got {type(item).__name__}")
        checked[str(key)] = value
    return checked


def read_generations_json(file: Path) -> Any:
    """The parsed JSON of a generations file; a named error when missing or malformed."""
    if not file.is_file():
        raise GenerationsError(f"no such generations file: {file}")
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise GenerationsError(f"{file} is not valid JSON: {exc}") from exc


def load_cruxeval_generations(path: str | Path) -> dict[str, list[str]]:
    """An official-format generations file: ``{"sample_i": [generation, ...]}``.

    An official scored file (with ``raw_generations``) yields its generations.
    """
    file = Path(path)
    data = read_generations_json(file)
    if isinstance(data, dict) and isinstance(data.get("raw_generations"), dict):
        data = data["raw_generations"]
    return check_generations(data, str(file))


def match_generations(problems: Sequence[ExecProblem], generations: Mapping[str, list[str]],
                      source: str) -> list[tuple[ExecProblem, list[str]]]:
    """Pair every problem with its generations; every problem must have an entry.

    (The official scripts stop with an assertion when one is missing.)
    """
    missing = [p.id for p in problems if p.id not in generations]
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise GenerationsError(f"{source}: no generations for {len(missing)} of "
                               f"{len(problems)} samples ({shown})")
    return [(p, list(generations[p.id])) for p in problems]
