"""Verdicts: whether one answer is right, and a named reason when it is not."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = ["Verdict", "VerdictStatus"]


class VerdictStatus(str, Enum):
    """Why an answer got its verdict.  Only ``PASSED`` passes."""

    PASSED = "passed"
    WRONG = "wrong"  # compared (or asserted) and found different
    SKIPPED = "skipped"  # an official scorer's filter dropped it without running it
    UNPARSEABLE = "unparseable"  # strict: not a literal / not one literal-argument call
    EXCEPTION = "exception"  # the program (or the pasted answer) raised
    TIMEOUT = "timeout"
    MEMORY_EXCEEDED = "memory_exceeded"
    OUTPUT_LIMIT = "output_limit"
    CRASHED = "crashed"
    SANDBOX_ERROR = "sandbox_error"  # the engine failed; not the answer's fault
    REFERENCE_ERROR = "reference_error"  # the benchmark's own reference did not parse
    SCORING_ERROR = "scoring_error"  # the judge itself failed on this answer (a bug, named)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judgement of one answer.

    ``reason`` is a short machine-readable refinement of ``status`` (the parse error's
    kind, the exception type, ``"type_mismatch"``...), ``detail`` a human sentence and
    ``data`` anything else worth keeping (JSON-ready).
    """

    passed: bool
    status: VerdictStatus
    reason: str = ""
    detail: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def score(self) -> float:
        """1.0 when passed, else 0.0 (the reward form)."""
        return 1.0 if self.passed else 0.0

    @property
    def label(self) -> str:
        """``status`` or ``status:reason``: the key verdicts are grouped by."""
        return f"{self.status.value}:{self.reason}" if self.reason else self.status.value

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        out: dict[str, Any] = {"passed": self.passed, "status": self.status.value}
        if self.reason:
            out["reason"] = self.reason
        if self.detail:
            out["detail"] = self.detail
        if self.data:
            out["data"] = dict(self.data)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Verdict:
        """Rebuild from :meth:`to_dict` output."""
        return cls(
            passed=bool(data["passed"]),
            status=VerdictStatus(data["status"]),
            reason=data.get("reason", ""),
            detail=data.get("detail", ""),
            data=dict(data.get("data") or {}),
        )

    @classmethod
    def passing(cls, detail: str = "", **data: Any) -> Verdict:
        """A passing verdict."""
        return cls(True, VerdictStatus.PASSED, detail=detail, data=data)

    @classmethod
    def failing(
        cls, status: VerdictStatus, reason: str = "", detail: str = "", **data: Any
    ) -> Verdict:
        """A failing verdict with its status and reason."""
        if status is VerdictStatus.PASSED:
            raise ValueError("a failing verdict cannot have status PASSED")
        return cls(False, status, reason=reason, detail=detail, data=data)
