"""Pieces benchmark folders assemble their declaration from: scorer adapters, pass@k.

* :class:`SampleBenchmark` is what every benchmark of self-contained samples (the
  reference answer in the data: CRUXEval, LiveCodeBench execution) declares alike:
  one task over the selected samples, nothing to prepare, pass@k per mode, no exports;
  :func:`dataset_records` turns a loader's result into its records or a ``DatasetError``;
* :class:`ProblemScorer` lets a judge scorer (which plans on ``tasks.Task``) score a
  benchmark's own item type, converted to the task it asks;
* :func:`pass_at_k_metrics` is the headline of the execution-prediction benchmarks:
  pass@k per mode from finished sample records, where strict counts every missing
  generation as a failure and no mode reports pass@k for k above the generations per
  sample (the official figure stays in the detailed ``modes`` section, flagged).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic

from ._base import BenchmarkBase, Item
from ._data import DatasetError, LoadResult
from .metrics import mean_pass_at_k

if TYPE_CHECKING:
    from execlens.judge import ScorePlan, Scorer
    from execlens.tasks import Task

__all__ = ["PASS_AT", "ProblemScorer", "SampleBenchmark", "dataset_records", "pass_at_k_metrics"]

#: The k's of pass@k the execution-prediction benchmarks report.
PASS_AT = (1, 5)


@dataclass
class ProblemScorer(Generic[Item]):
    """A judge scorer applied to the task a benchmark item asks (``to_problem(item)``):
    a ``Scorer[Item]`` made of a ``Scorer[Task]``."""

    inner: Scorer[Task]
    to_problem: Callable[[Item], Task]

    @property
    def name(self) -> str:
        """The mode this scorer fills (``official`` / ``strict``)."""
        return str(self.inner.name)

    def plan(self, item: Item, generations: Sequence[str]) -> ScorePlan:
        """The inner scorer's plan for the item's task."""
        return self.inner.plan(self.to_problem(item), generations)


def pass_at_k_metrics(
    records: Sequence[Mapping[str, Any]], modes: Sequence[str], ks: Sequence[int] = PASS_AT
) -> dict[str, Any]:
    """``{mode: {"pass@k": percent}}`` for every k at most the generations per sample.

    ``record[mode]`` is the sample's verdict list (the official one as the official
    script records it; the others padded with failures for missing generations) and
    ``record["n"]`` the generations the sample should have.  The official script also
    reports pass@k for k above that: those figures go under ``"detailed"`` with a
    ``"flags"`` line saying why the headline leaves them out.
    """
    n = min((int(record.get("n", len(record["generations"]))) for record in records), default=0)
    shown = [k for k in ks if k <= max(n, 1)]
    result: dict[str, Any] = {
        mode: {f"pass@{k}": mean_pass_at_k([r[mode] for r in records], k) for k in shown}
        for mode in modes
    }
    hidden = [k for k in ks if k not in shown]
    if hidden and "official" in modes:
        result["detailed"] = {
            "official": {
                f"pass@{k}": mean_pass_at_k([r["official"] for r in records], k) for k in hidden
            }
        }
        result["flags"] = [
            f"pass@{', '.join(map(str, hidden))} not reported: samples have {n} generation(s); "
            "the official script's estimator returns 1.0 for any sample with a correct one "
            "when n < k (its figure is kept under modes.official)"
        ]
    return result


def dataset_records(loaded: LoadResult[Any]) -> list[Any]:
    """The loaded records; malformed ones (the first five named) stop the run."""
    if loaded.errors:
        raise DatasetError("; ".join(str(e) for e in loaded.errors[:5]))
    return list(loaded.records)


class SampleBenchmark(BenchmarkBase[Item]):
    """Shared declaration of a benchmark of self-contained samples, scored by pass@k:
    one task over the selected samples, nothing to prepare (the base class's defaults),
    pass@k per mode, no exports.  A subclass declares the rest."""

    def metrics(self, records: Sequence[Mapping[str, Any]], task: str) -> dict[str, Any]:
        """pass@1 (and pass@5 with enough generations) per mode."""
        return pass_at_k_metrics(records, self.modes)
