"""The runtime-behaviour task record: one question about one run, with its ground truth."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["KINDS", "RuntimeTask", "task_id"]

KINDS = ("coverage", "path", "state", "output")


def task_id(*parts: Any) -> str:
    """A stable id: a SHA-256 prefix of the parts' canonical JSON."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:20]


@dataclass(frozen=True)
class RuntimeTask:
    """A question about how a program runs on one input, and its answer.

    ``reference`` by kind (lines are 1-indexed, as in REval's questions):

    * ``coverage``: ``true``/``false`` — is ``line`` executed?
    * ``path``: the sorted list of lines that may run right after ``line`` (any of them
      is correct; ``-1`` = none);
    * ``state``: the list of acceptable value envelopes of ``var`` after ``line``
      (``[{"__type__": "Nil"}]`` when it has none);
    * ``output``: the run's return value envelope (``None`` for a unittest driver) and,
      for a driver, whether it passed.

    ``mode`` is the tracer mode the truth came from (``reval`` or ``exact``);
    ``selection`` how the question was picked (``reval`` sites, ``balanced``, ``given``).
    """

    id: str
    kind: str
    source: str
    problem_id: str
    input_index: int
    program: str
    call: str | None
    reference: Any
    mode: str
    selection: str
    line: int | None = None
    code_line: str | None = None
    var: str | None = None
    test: str | None = None
    test_class: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (``reference`` stays JSON data)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuntimeTask:
        """Rebuild a task from :meth:`to_dict` output."""
        return cls(**data)
