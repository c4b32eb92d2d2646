"""Generations files: the shared format checks every benchmark's loader uses.

A generations file maps sample ids to lists of answers (``{"sample_0": ["...", ...]}``);
benchmark folders read their own variants (CRUXEval's scored files, LiveCodeBench's
list of records) and hand the result to :func:`check_generations` and
:func:`match_generations`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "GenerationsError",
    "answered_items",
    "check_generations",
    "match_generations",
    "read_generations_json",
]

T = TypeVar("T")


class GenerationsError(ValueError):
    """A generations file that is not in the expected format."""


def check_generations(generations: Any, source: str) -> dict[str, list[str]]:
    """Validate ``{id: [str, ...]}``; raises :class:`GenerationsError` naming the problem."""
    if not isinstance(generations, Mapping):
        raise GenerationsError(
            f"{source}: expected a JSON object mapping sample ids to lists "
            f"of generations, got {type(generations).__name__}"
        )
    checked: dict[str, list[str]] = {}
    for key, value in generations.items():
        if not isinstance(value, list):
            raise GenerationsError(
                f"{source}: {key!r} must map to a list of strings, got {type(value).__name__}"
            )
        for index, item in enumerate(value):
            if not isinstance(item, str):
                raise GenerationsError(
                    f"{source}: {key!r}[{index}] must be a string, got {type(item).__name__}"
                )
        checked[str(key)] = value
    return checked


def read_generations_json(file: Path) -> Any:
    """The parsed JSON of a generations file; a named error when missing or malformed."""
    if not file.is_file():
        raise GenerationsError(f"no such generations file: {file}")
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise GenerationsError(f"{file} is not valid JSON: {exc}") from exc
    except RecursionError:
        raise GenerationsError(
            f"{file}: JSON nested too deeply to read; expected {{sample_id: [generation, ...]}}"
        ) from None


def match_generations(
    problems: Sequence[T], generations: Mapping[str, list[str]], source: str
) -> list[tuple[T, list[str]]]:
    """Pair every problem with its generations; every problem must have an entry.

    (The official scripts stop with an assertion when one is missing.)
    """
    missing = [_id(p) for p in problems if _id(p) not in generations]
    if missing:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise GenerationsError(
            f"{source}: no generations for {len(missing)} of {len(problems)} samples ({shown})"
        )
    return [(p, list(generations[_id(p)])) for p in problems]


def answered_items(path: Path, items: Sequence[T], not_theirs: str) -> list[tuple[T, list[str]]]:
    """The items a generations file ``{sample id: [text, ...]}`` at ``path`` answers, with
    their texts, in the items' order (items it does not answer are left out).

    An id that is none of ``items``' is a :class:`GenerationsError`: "``N`` id(s) are not
    ``not_theirs``", naming the first five.
    """
    answers = check_generations(read_generations_json(Path(path)), str(path))
    known = {_id(item): item for item in items}
    unknown = [ident for ident in answers if ident not in known]
    if unknown:
        raise GenerationsError(
            f"{path}: {len(unknown)} id(s) are not {not_theirs} ({', '.join(unknown[:5])})"
        )
    return [(item, list(answers[ident])) for ident, item in known.items() if ident in answers]


def _id(record: Any) -> str:
    # Loaded samples name it ``sample_id``; judge problems ``id``.
    return str(getattr(record, "sample_id", None) or record.id)
