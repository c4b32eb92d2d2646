"""Benchmarks: the protocol and registry, the eval and score runners, metrics, reports.

Each benchmark is a folder (``execlens.bench.cruxeval``, ``execlens.bench.lcb_exec``,
...) declaring one :class:`Benchmark`; :func:`get_benchmark` finds it by name, and
third-party packages add theirs through the ``execlens.benchmarks`` entry-point group.
Names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from execlens.bench._base import Benchmark, BenchmarkBase
    from execlens.bench._build import TasksBuilt, TasksRun
    from execlens.bench._data import (
        DatasetError,
        DatasetUnavailableError,
        FieldError,
        LoadResult,
        MalformedRecordError,
        RecordError,
        Row,
        check_int,
        check_str,
        check_str_list,
        hub_rows,
        load_single_file_dataset,
        parse_samples,
        read_local_rows,
        read_records,
        select,
    )
    from execlens.bench._demo import build_demo_reval, run_demo, run_shipped
    from execlens.bench._eval import (
        EvalConfig,
        EvalError,
        EvalInterrupted,
        EvalResult,
        ModelRequestsFailed,
        check_config,
        run_eval,
    )
    from execlens.bench._eval_run import EvalRun
    from execlens.bench._generations import (
        GenerationsError,
        answered_items,
        check_generations,
        match_generations,
        read_generations_json,
    )
    from execlens.bench._kit import (
        PASS_AT,
        ProblemScorer,
        SampleBenchmark,
        dataset_records,
        pass_at_k_metrics,
    )
    from execlens.bench._perturb import (
        PerturbTarget,
        parse_perturb_kinds,
        perturb_plan,
        perturb_programs,
    )
    from execlens.bench._perturb_kinds import PERTURB_KINDS, PerturbUnsupported
    from execlens.bench._perturb_traced import (
        Observed,
        Observer,
        TracedTarget,
        Variant,
        perturb_traced,
    )
    from execlens.bench._pin import (
        DataOptionError,
        HubLoads,
        check_data_options,
        check_revision_used,
        data_fingerprint,
        data_revision,
        unpinned_warning,
    )
    from execlens.bench._programs import load_programs
    from execlens.bench._protocol import (
        BenchmarkError,
        ExportSpec,
        Generations,
        Plan,
        ShippedRun,
        TaskSpec,
    )
    from execlens.bench._references import Reference, attach_reference, find_reference, model_key
    from execlens.bench._registry import (
        ENTRY_POINT_GROUP,
        PLUGINS_VARIABLE,
        PluginError,
        benchmark_names,
        default_benchmark,
        get_benchmark,
        load_plugins,
        register_benchmark,
        unregister_benchmark,
    )
    from execlens.bench._report import ReportError, RunView, load_run, write_report
    from execlens.bench._run import Run, RunError, TraceSettings, TracingRun, records_digest
    from execlens.bench._runs import difference_reason, sample_record
    from execlens.bench._score import ScoreRun, ScoreRunError, ScoreRunResult, run_score
    from execlens.bench._script import ScriptResult, script_failure, script_job, script_result
    from execlens.bench._task_bench import TASK_STYLES, TaskBenchmark
    from execlens.bench._truth_cache import TRUTH_CACHE_VARIABLE, TruthCache, truth_cache_dir
    from execlens.bench._truths import StrictTasks, build_truths
    from execlens.bench.metrics import mean_pass_at_k, pass_at_k, sample_accuracy

_EXPORTS = {
    "Benchmark": "_base",
    "BenchmarkBase": "_base",
    "TasksBuilt": "_build",
    "TasksRun": "_build",
    "build_demo_reval": "_demo",
    "run_demo": "_demo",
    "run_shipped": "_demo",
    "DatasetError": "_data",
    "DatasetUnavailableError": "_data",
    "FieldError": "_data",
    "LoadResult": "_data",
    "MalformedRecordError": "_data",
    "RecordError": "_data",
    "Row": "_data",
    "check_int": "_data",
    "check_str": "_data",
    "check_str_list": "_data",
    "hub_rows": "_data",
    "load_single_file_dataset": "_data",
    "parse_samples": "_data",
    "read_local_rows": "_data",
    "read_records": "_data",
    "select": "_data",
    "EvalConfig": "_eval",
    "EvalError": "_eval",
    "EvalInterrupted": "_eval",
    "EvalResult": "_eval",
    "EvalRun": "_eval_run",
    "ModelRequestsFailed": "_eval",
    "check_config": "_eval",
    "run_eval": "_eval",
    "GenerationsError": "_generations",
    "answered_items": "_generations",
    "check_generations": "_generations",
    "match_generations": "_generations",
    "read_generations_json": "_generations",
    "PASS_AT": "_kit",
    "ProblemScorer": "_kit",
    "SampleBenchmark": "_kit",
    "dataset_records": "_kit",
    "pass_at_k_metrics": "_kit",
    "DataOptionError": "_pin",
    "HubLoads": "_pin",
    "check_data_options": "_pin",
    "check_revision_used": "_pin",
    "data_fingerprint": "_pin",
    "data_revision": "_pin",
    "unpinned_warning": "_pin",
    "PERTURB_KINDS": "_perturb_kinds",
    "ScriptResult": "_script",
    "script_failure": "_script",
    "script_job": "_script",
    "script_result": "_script",
    "Observed": "_perturb_traced",
    "Observer": "_perturb_traced",
    "PerturbTarget": "_perturb",
    "PerturbUnsupported": "_perturb_kinds",
    "TracedTarget": "_perturb_traced",
    "Variant": "_perturb_traced",
    "parse_perturb_kinds": "_perturb",
    "perturb_plan": "_perturb",
    "perturb_programs": "_perturb",
    "perturb_traced": "_perturb_traced",
    "load_programs": "_programs",
    "BenchmarkError": "_protocol",
    "ExportSpec": "_protocol",
    "Generations": "_protocol",
    "Plan": "_protocol",
    "ShippedRun": "_protocol",
    "TaskSpec": "_protocol",
    "Reference": "_references",
    "attach_reference": "_references",
    "find_reference": "_references",
    "model_key": "_references",
    "ENTRY_POINT_GROUP": "_registry",
    "benchmark_names": "_registry",
    "default_benchmark": "_registry",
    "get_benchmark": "_registry",
    "load_plugins": "_registry",
    "PLUGINS_VARIABLE": "_registry",
    "PluginError": "_registry",
    "TASK_STYLES": "_task_bench",
    "TaskBenchmark": "_task_bench",
    "TRUTH_CACHE_VARIABLE": "_truth_cache",
    "TruthCache": "_truth_cache",
    "truth_cache_dir": "_truth_cache",
    "StrictTasks": "_truths",
    "build_truths": "_truths",
    "register_benchmark": "_registry",
    "unregister_benchmark": "_registry",
    "ReportError": "_report",
    "RunView": "_report",
    "load_run": "_report",
    "write_report": "_report",
    "Run": "_run",
    "RunError": "_run",
    "TraceSettings": "_run",
    "TracingRun": "_run",
    "records_digest": "_run",
    "difference_reason": "_runs",
    "sample_record": "_runs",
    "ScoreRun": "_score",
    "ScoreRunError": "_score",
    "ScoreRunResult": "_score",
    "run_score": "_score",
    "mean_pass_at_k": "metrics",
    "pass_at_k": "metrics",
    "sample_accuracy": "metrics",
}

__all__, _core_getattr, __dir__ = lazy_exports(__name__, _EXPORTS)


def __getattr__(name: str) -> object:
    """A core name, else a public name of a built-in benchmark folder.

    ``execlens.bench.load_cruxeval`` keeps working after the loader moved into its folder:
    the folders' ``__all__`` are searched in registry order (names are never hard-coded
    here).
    """
    try:
        return _core_getattr(name)
    except AttributeError:
        if name.startswith("_"):
            raise
    import importlib

    from execlens.bench._registry import built_in_folders

    for folder in built_in_folders():
        module = importlib.import_module(f"{__name__}.{folder}")
        if name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            globals()[name] = value
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
