"""The isolation modes an engine accepts, and the warning ``degraded`` gives on every start."""

from __future__ import annotations

import warnings

from execlens.engine._setup_report import IsolationReport

__all__ = ["ISOLATION_ENV", "ISOLATION_MODES", "IsolationWarning", "warn_degraded"]

ISOLATION_MODES = ("full", "auto", "degraded", "none")
#: The mode an engine takes when none is given (e.g. ``EXECLENS_ISOLATION=degraded`` for
#: the commands that start engines of their own: eval, score, synth, the rewards).
ISOLATION_ENV = "EXECLENS_ISOLATION"


class IsolationWarning(RuntimeWarning):
    """An engine runs untrusted code with fewer isolation layers than ``auto`` requires."""


# Every engine started in degraded mode says so, not only the first of a process.
warnings.simplefilter("always", IsolationWarning)


def warn_degraded(report: IsolationReport) -> None:
    """Warn that an engine runs with ``isolation='degraded'``, naming what is missing."""
    missing = [name for name in report.missing() if name != "user_namespace"]
    lacking = f"without {', '.join(missing)}" if missing else "with every layer this time"
    warnings.warn(
        f"isolation='degraded': untrusted code runs {lacking} (namespaces via "
        f"{report.method or 'nothing'}; `execlens doctor` says why)",
        IsolationWarning,
        stacklevel=3,
    )
