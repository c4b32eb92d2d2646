"""Published numbers to show beside a run: what an official scored file or leaderboard reports.

A reference applies to a run when the benchmark, task and model match and, where the
published figure depends on it, the sampling temperature too.  It is only attached to
runs over the whole benchmark: a ``--limit`` slice is not comparable with a full score.
Values are official-mode metrics in percent, keyed like the run's own metrics.  Each
benchmark folder lists its own (``Benchmark.references()``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Reference", "attach_reference", "find_reference", "model_key"]


@dataclass(frozen=True)
class Reference:
    """One published result."""

    benchmark: str
    tasks: tuple[str, ...]
    models: tuple[str, ...]
    """Model names as :func:`model_key` normalises them."""
    metrics: Mapping[str, float] = field(default_factory=dict)
    source: str = ""
    temperature: float | None = None
    """The sampling temperature the figure was measured at (None: any)."""
    samples: int | None = None
    """How many samples the whole benchmark has (None: not checked)."""


def model_key(name: str) -> str:
    """A model name reduced for matching: no organisation prefix, lower case, no ``-hf``."""
    key = name.strip().rsplit("/", 1)[-1].lower()
    return key[:-3] if key.endswith("-hf") else key


def find_reference(
    benchmark: str, task: str, model: str, temperature: float | None = None
) -> Reference | None:
    """The published result for this run's benchmark, task, model and temperature, if any."""
    from ._protocol import BenchmarkError
    from ._registry import get_benchmark

    try:
        references = get_benchmark(benchmark).references()
    except BenchmarkError:
        return None
    key = model_key(model)
    for reference in references:
        if reference.benchmark != benchmark or task not in reference.tasks:
            continue
        if key not in reference.models:
            continue
        if reference.temperature is not None and (
            temperature is None or abs(temperature - reference.temperature) > 1e-9
        ):
            continue
        return reference
    return None


def attach_reference(
    results: dict[str, Any],
    *,
    benchmark: str,
    task: str,
    model: str,
    temperature: float | None,
    full_benchmark: bool,
) -> None:
    """Add ``reference_numbers`` and ``reference_source`` to a run's results when one applies.

    Only the metrics the run itself reports are kept, so the two line up in tables and
    plots.  A run over a slice gets ``reference_source`` with the reason and no numbers.
    """
    reference = find_reference(benchmark, task, model, temperature)
    if reference is None:
        return
    if reference.samples is not None and results.get("samples") != reference.samples:
        full_benchmark = False
    if not full_benchmark:
        results["reference_source"] = (
            f"{reference.source} (not shown: this run covers a slice of the benchmark)"
        )
        return
    reported = (
        (results.get("metrics") or {}).get("official")
        or (results.get("modes") or {}).get("official")
        or {}
    )
    numbers = {name: value for name, value in reference.metrics.items() if name in reported}
    if numbers:
        results["reference_numbers"] = numbers
        results["reference_source"] = reference.source
