"""Turning an engine outcome that did not finish normally into a failing verdict."""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens.judge._verdict import Verdict, VerdictStatus

if TYPE_CHECKING:
    from execlens.engine import Outcome

__all__ = ["failure_verdict"]

_BY_ENGINE_STATUS = {
    "exception": VerdictStatus.EXCEPTION,
    "timeout": VerdictStatus.TIMEOUT,
    "memory_exceeded": VerdictStatus.MEMORY_EXCEEDED,
    "output_limit": VerdictStatus.OUTPUT_LIMIT,
    "crashed": VerdictStatus.CRASHED,
    "sandbox_error": VerdictStatus.SANDBOX_ERROR,
}


def failure_verdict(outcome: Outcome) -> Verdict:
    """The verdict for an outcome whose status is not ``ok``.

    An exception's type becomes the reason (``"NameError"``); its message the detail.
    """
    status = _BY_ENGINE_STATUS.get(outcome.status.value, VerdictStatus.SANDBOX_ERROR)
    if outcome.exception is not None:
        exc = outcome.exception
        return Verdict.failing(status, exc.type, f"{exc.type}: {exc.message}"[:500])
    return Verdict.failing(status, "", outcome.message[:500])
