"""CRUXEval for scoring: its problems and an official-format generations file.

The problems come from a local ``cruxeval.jsonl`` (or a directory holding one), or, by
default, from the Hugging Face dataset ``cruxeval-org/cruxeval`` (split ``test``).
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
    "CRUXEVAL_HF_DATASET",
    "GenerationsError",
    "load_cruxeval_generations",
    "load_cruxeval_problems",
    "load_hf_records",
]

CRUXEVAL_HF_DATASET = "cruxeval-org/cruxeval"


class GenerationsError(ValueError):
    """A generations file that is not in the expected format."""


def load_hf_records(name: str, split: str = "test") -> list[dict[str, Any]]:
    """Rows of a Hugging Face dataset, with a clear error when that is not possible."""
    try:
        import datasets
    except Exception as exc:  # noqa: BLE001 - e.g. a pyarrow/numpy mismatch, not only ImportError
        raise ProblemError(f"cannot load {name} from Hugging Face: importing `datasets` "
                           f"failed ({type(exc).__name__}: {exc}); pass a local file "
                           f"with --data") from exc
    try:
        rows = datasets.load_dataset(name, split=split)
    except Exception as exc:  # noqa: BLE001 - network, auth, missing split...
        raise ProblemError(f"cannot load {name} ({split}) from Hugging Face: "
                           f"{type(exc).__name__}: {exc}; pass a local file with --data") from exc
    return [dict(row) for row in rows]


def read_records(path: Path) -> list[dict[str, Any]]:
    """Records of a ``.jsonl`` file (one object a line) or a ``.json`` list."""
    if not path.is_file():
        raise ProblemError(f"no such data file: {path}")
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ProblemError(f"{path} is not valid JSON: {exc}") from exc
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise ProblemError(f"{path} must hold a JSON list of records")
        return data
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise ProblemError(f"{path}:{number}: not valid JSON: {exc}") from exc
        if not isinstance(record, dict):
            raise ProblemError(f"{path}:{number}: a record must be a JSON object")
        records.append(record)
    return records


def load_cruxeval_problems(data: str | Path | None = None) -> list[ExecProblem]:
    """CRUXEval's 800 problems, in dataset order.

    ``data``: a ``cruxeval.jsonl`` path or a directory containing one; ``None`` loads
    the Hugging Face dataset.
    """
    if data is None:
        records = load_hf_records(CRUXEVAL_HF_DATASET)
    else:
        path = Path(data)
        if path.is_dir():
            path = path / "cruxeval.jsonl"
        records = read_records(path)
    problems = [ExecProblem.from_record(record, function_name="f") for record in records]
    _check_unique([p.id for p in problems])
    return problems


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


def load_cruxeval_generations(path: str | Path) -> dict[str, list[str]]:
    """An official-format generations file: ``{"sample_i": [generation, ...]}``.

    An official scored file (with ``raw_generations``) yields its generations.
    """
    file = Path(path)
    if not file.is_file():
        raise GenerationsError(f"no such generations file: {file}")
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise GenerationsError(f"{file} is not valid JSON: {exc}") from exc
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
