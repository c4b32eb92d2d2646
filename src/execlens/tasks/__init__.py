"""Tasks: questions about code and their ground truth.

:class:`Task` is the one task model (kind, program, call/entry, input, reference,
comparison rule, meta) that benchmarks, synthesis and the rewards share; benchmark rows
of output/input prediction become tasks through :func:`prediction_task`.  This module
holds the runtime-behaviour tasks (coverage, path, state, output) built from
traces of any program and input, and what a data source hands them: :class:`RuntimeProgram`
with the kit source readers share (named :class:`SourceError`) and the one
missing-module skip rule.  The benchmarks read their own data into programs
(``execlens.bench.load_programs`` asks them); CodeI/O's samples, which are no benchmark,
are read here.  Names are loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from execlens.tasks._codeio import is_codeio_record, programs_from_codeio
    from execlens.tasks._fulltrace import (
        MAX_TRACE_STEPS,
        executed_lines,
        numbered_program,
        trace_reference,
    )
    from execlens.tasks._lines import Candidate, candidate_lines, line_variables
    from execlens.tasks._model import (
        BUILD_KINDS,
        COMPARISONS,
        KINDS,
        QUESTION_KINDS,
        RuntimeTask,
        Task,
        TaskError,
        task_id,
    )
    from execlens.tasks._output import read_tasks, write_tasks
    from execlens.tasks._prediction import (
        ProblemError,
        input_is_call,
        prediction_code,
        prediction_task,
        prediction_task_from_record,
        with_prelude,
    )
    from execlens.tasks._requirements import missing_modules, skip_reason
    from execlens.tasks._runtime import (
        SELECTIONS,
        build_kind_names,
        build_tasks,
        default_kind_names,
        failed_runs,
        tasks_for_trace,
        trace_from_record,
        trace_programs,
        trace_record,
    )
    from execlens.tasks._sources import (
        RuntimeProgram,
        SourceError,
        duplicate_ids,
        require_field,
        source_rows,
        source_warnings,
    )
    from execlens.tasks._truth import NoTruth, TruthRun, pending_truth

_EXPORTS = {
    "is_codeio_record": "_codeio",
    "programs_from_codeio": "_codeio",
    "Candidate": "_lines",
    "candidate_lines": "_lines",
    "line_variables": "_lines",
    "MAX_TRACE_STEPS": "_fulltrace",
    "executed_lines": "_fulltrace",
    "numbered_program": "_fulltrace",
    "trace_reference": "_fulltrace",
    "BUILD_KINDS": "_model",
    "COMPARISONS": "_model",
    "KINDS": "_model",
    "QUESTION_KINDS": "_model",
    "RuntimeTask": "_model",
    "Task": "_model",
    "TaskError": "_model",
    "task_id": "_model",
    "read_tasks": "_output",
    "write_tasks": "_output",
    "ProblemError": "_prediction",
    "input_is_call": "_prediction",
    "prediction_code": "_prediction",
    "prediction_task": "_prediction",
    "prediction_task_from_record": "_prediction",
    "with_prelude": "_prediction",
    "missing_modules": "_requirements",
    "skip_reason": "_requirements",
    "SELECTIONS": "_runtime",
    "build_kind_names": "_runtime",
    "build_tasks": "_runtime",
    "default_kind_names": "_runtime",
    "tasks_for_trace": "_runtime",
    "failed_runs": "_runtime",
    "trace_from_record": "_runtime",
    "trace_programs": "_runtime",
    "trace_record": "_runtime",
    "NoTruth": "_truth",
    "TruthRun": "_truth",
    "pending_truth": "_truth",
    "RuntimeProgram": "_sources",
    "SourceError": "_sources",
    "duplicate_ids": "_sources",
    "require_field": "_sources",
    "source_rows": "_sources",
    "source_warnings": "_sources",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
