"""The plain records a benchmark exchanges with the runners: tasks, plans, generations.

The benchmark itself is :class:`~execlens.bench.BenchmarkBase` (``bench._base``), a typed
base class with every optional hook declared and defaulted; this module holds the data it
declares and returns (:class:`TaskSpec`, :class:`Generations`, :class:`ShippedRun`,
:class:`ExportSpec`, :data:`Plan`) and the error naming a choice that does not exist.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

__all__ = [
    "BenchmarkError",
    "ExportSpec",
    "Generations",
    "Plan",
    "ShippedRun",
    "TaskSpec",
]

#: ``[(task, items), ...]``: one entry per task a run asks (several for composite tasks
#: such as REval's ``consistency``, which asks coverage, path, state and output).
Plan = list[tuple[str, list[Any]]]

#: A benchmark's own item type (what its ``plan`` lists and its scorers plan on).
Item = TypeVar("Item")


class BenchmarkError(ValueError):
    """A benchmark, task, prompt style or mode that does not exist (message names the choices)."""


@dataclass(frozen=True)
class TaskSpec:
    """One task of a benchmark: its prompt styles and what it asks."""

    name: str
    styles: tuple[str, ...]
    description: str = ""
    composite: tuple[str, ...] = ()
    """For a composite task, the tasks it is made of (REval ``consistency``)."""


@dataclass(frozen=True)
class ExportSpec:
    """An optional export a benchmark offers (REval's JetBrains layout)."""

    name: str
    description: str
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Generations(Generic[Item]):
    """A generations file read for scoring: what to score and how.

    ``items`` pairs each item (in dataset order) with its texts; ``task`` is the task
    strict scoring applies; ``context`` is handed to :meth:`Benchmark.scorers` (CRUXEval
    puts there the task its official script infers from the file's path; without one the
    score runner calls :meth:`Benchmark.prepare`, as eval does); ``notes`` are recorded
    in ``results.json`` as they are.

    ``responses``: the texts are model responses, read exactly as ``execlens eval``
    reads a reply (thought set apart, official stops on the final part, the benchmark's
    :meth:`Benchmark.extract`) -- a bare answer reads as itself through every built-in
    extraction.  ``False`` for a format that holds answers an official runner already
    extracted (LiveCodeBench's ``pred_list``): only a thought is set apart.
    ``prompted``: the items are the benchmark's prompt records (:meth:`Benchmark.render`
    takes them), whose official stop strings cut each final part; ``False`` for a format
    paired with bare problems (CRUXEval's, LiveCodeBench's), whose extraction applies
    the official stops itself.
    """

    task: str
    items: list[tuple[Item, list[str]]]
    context: Any = None
    notes: dict[str, Any] = field(default_factory=dict)
    responses: bool = True
    prompted: bool = True


@dataclass(frozen=True)
class ShippedRun:
    """A published generations file a benchmark ships, to reproduce its official numbers."""

    label: str
    generations: Path
    data: str
    model: str
    temperature: float | None
    description: str = ""
