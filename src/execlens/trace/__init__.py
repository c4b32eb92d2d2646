"""Runtime ground truth: a line tracer that runs inside the engine, and the queries
REval asks of a run (coverage, next lines, variable states, output).

Names are loaded on first use: the fork servers preload ``execlens.trace._runner``,
which must not pull the host-side modules in with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from execlens.trace._api import (
        MODE_ALIASES,
        MODES,
        TRACE_PRELOAD,
        TRACE_RUNNER,
        TraceLimits,
        TraceRequest,
        canonical_mode,
        ground_truth_key,
        trace_engine,
        trace_from_outcome,
        trace_is_deterministic,
        trace_job,
        trace_many,
        trace_program,
    )
    from execlens.trace._cwm import (
        CWM_TOKENS,
        CwmFrame,
        cwm_context,
        cwm_frames,
        cwm_trace,
        cwm_value_text,
    )
    from execlens.trace._expr import NIL_ENVELOPE, VariableError, evaluate, parse_variable
    from execlens.trace._recorder import Recorder, statement_line_map
    from execlens.trace._trace import FrameInfo, Step, Trace, TraceError

_EXPORTS = {
    "MODES": "_api",
    "MODE_ALIASES": "_api",
    "canonical_mode": "_api",
    "TRACE_PRELOAD": "_api",
    "TRACE_RUNNER": "_api",
    "TraceLimits": "_api",
    "TraceRequest": "_api",
    "ground_truth_key": "_api",
    "trace_engine": "_api",
    "trace_is_deterministic": "_api",
    "trace_from_outcome": "_api",
    "trace_job": "_api",
    "trace_many": "_api",
    "trace_program": "_api",
    "CWM_TOKENS": "_cwm",
    "CwmFrame": "_cwm",
    "cwm_context": "_cwm",
    "cwm_frames": "_cwm",
    "cwm_trace": "_cwm",
    "cwm_value_text": "_cwm",
    "NIL_ENVELOPE": "_expr",
    "VariableError": "_expr",
    "evaluate": "_expr",
    "parse_variable": "_expr",
    "Recorder": "_recorder",
    "statement_line_map": "_recorder",
    "FrameInfo": "_trace",
    "Step": "_trace",
    "Trace": "_trace",
    "TraceError": "_trace",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
