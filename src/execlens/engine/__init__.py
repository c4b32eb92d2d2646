"""The sandbox: hardened warm fork servers that run untrusted Python and return envelopes.

Names are loaded on first use: the fork server imports this package too, and every
module it holds costs each forked child page-table and copy-on-write work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from execlens.engine._determinism import DeterminismReport, check_determinism
    from execlens.engine._engine import DEFAULT_PRELOAD, Engine
    from execlens.engine._errors import EngineError, IsolationUnavailable
    from execlens.engine._interpreter import resolve_program_python
    from execlens.engine._isolation import IsolationReport, LayerStatus
    from execlens.engine._modes import ISOLATION_MODES, IsolationWarning
    from execlens.engine._program_env import (
        PROGRAM_PYTHON_ENV,
        RECORDED_PROGRAM_PYTHON,
        ProgramFingerprint,
        ProgramPython,
        locate_program_python,
        program_environment_warning,
        program_fingerprint,
        record_program_python,
        recorded_program_python_file,
        unmet_requirements,
    )
    from execlens.engine._types import (
        MAX_OUTPUT_BYTES,
        ExceptionInfo,
        Job,
        Limits,
        Outcome,
        Status,
    )

_EXPORTS = {
    "DEFAULT_PRELOAD": "_engine",
    "DeterminismReport": "_determinism",
    "Engine": "_engine",
    "EngineError": "_errors",
    "ExceptionInfo": "_types",
    "ISOLATION_MODES": "_modes",
    "IsolationReport": "_isolation",
    "IsolationUnavailable": "_errors",
    "IsolationWarning": "_modes",
    "Job": "_types",
    "LayerStatus": "_isolation",
    "Limits": "_types",
    "MAX_OUTPUT_BYTES": "_types",
    "Outcome": "_types",
    "PROGRAM_PYTHON_ENV": "_program_env",
    "ProgramFingerprint": "_program_env",
    "ProgramPython": "_program_env",
    "RECORDED_PROGRAM_PYTHON": "_program_env",
    "Status": "_types",
    "check_determinism": "_determinism",
    "locate_program_python": "_program_env",
    "program_environment_warning": "_program_env",
    "program_fingerprint": "_program_env",
    "record_program_python": "_program_env",
    "recorded_program_python_file": "_program_env",
    "resolve_program_python": "_interpreter",
    "unmet_requirements": "_program_env",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
