"""The line recorder: runs inside the sandboxed child (or in-process, for benchmarks).

Split by role: ``_fingerprint`` (has a variable changed?), ``_values`` (the value and
snapshot tables), ``_core`` (modes, frames, marks, the result), ``_settrace`` and
``_monitoring`` (the two event sources), ``_linemap`` (the statement line map, computed
in the host and loaded only there).

Keep this package lean: it is preloaded into every fork server, and every module a
server holds makes its forks dearer.
"""

from __future__ import annotations

from typing import Any

from execlens.trace._recorder._core import (
    CAPTURE_COVERAGE,
    CAPTURE_FULL,
    CAPTURE_LINES,
    Limits,
)
from execlens.trace._recorder._monitoring import _MonitoringBackend
from execlens.trace._recorder._settrace import _SettraceBackend

__all__ = [
    "CAPTURE_COVERAGE",
    "CAPTURE_FULL",
    "CAPTURE_LINES",
    "Limits",
    "Recorder",
    "statement_line_map",
]


class Recorder(_SettraceBackend, _MonitoringBackend):
    """Records one run of program code.  ``start()`` … run … ``stop()``; ``result()``.

    ``mode`` is ``"exact"`` or ``"frame-blind"`` (alias ``"reval"``); ``capture`` is
    ``"full"``, ``"lines"`` or ``"coverage"``.  ``line_map`` (exact mode) maps
    continuation lines to statement lines (1-indexed, see :func:`statement_line_map`).
    ``backend`` is ``"auto"`` (``sys.monitoring`` where available, else
    ``sys.settrace``), ``"settrace"`` or ``"monitoring"``.
    """


def __getattr__(name: str) -> Any:
    # The line map needs ``ast``: loaded on first use, so the fork servers never hold it.
    if name == "statement_line_map":
        from execlens.trace._recorder._linemap import statement_line_map

        globals()[name] = statement_line_map
        return statement_line_map
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
