"""The runtime benchmark: REval's coverage/path/state/output questions and CRUXEval's
input/output prediction for any programs with inputs, judged by the generic judges.

Everything about it lives in this folder (loader glue, prompts and templates,
extraction, traced truth, metrics); the registry finds it by the folder's name.  Names
load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from ._benchmark import BENCHMARK, RuntimeBenchmark
    from ._demo import demo_evals, write_demo_programs
    from ._extract import extract_runtime
    from ._items import RuntimeItem, input_task, items_by_kind
    from ._metrics import BASELINES, runtime_metrics
    from ._prompts import render_runtime, runtime_sampling
    from ._truth import TracedTasks, traced_tasks

_EXPORTS = {
    "BENCHMARK": "_benchmark",
    "RuntimeBenchmark": "_benchmark",
    "demo_evals": "_demo",
    "write_demo_programs": "_demo",
    "extract_runtime": "_extract",
    "RuntimeItem": "_items",
    "input_task": "_items",
    "items_by_kind": "_items",
    "BASELINES": "_metrics",
    "runtime_metrics": "_metrics",
    "render_runtime": "_prompts",
    "runtime_sampling": "_prompts",
    "TracedTasks": "_truth",
    "traced_tasks": "_truth",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
