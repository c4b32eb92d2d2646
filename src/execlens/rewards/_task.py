"""The reward task: one question about code and its ground truth, as trainers carry it.

A trainer's dataset row holds the ground truth as a JSON string (TRL column
``ground_truth``, verl ``reward_model.ground_truth``); :meth:`RewardTask.from_json`
reads it back.  Kinds:

* ``output``: predict ``function(<input>)``'s return value; ``reference`` is the output
  as a literal's text (``"[1, 2]"``).  Judged without running code.
* ``input``: give a call ``function(...)`` returning the output; ``reference`` is the
  output literal's text.  The call runs in the engine.
* ``coverage`` / ``path`` / ``state``: runtime questions about ``call`` at ``line``
  (``reference`` as :class:`execlens.tasks.RuntimeTask` holds it: a bool, the acceptable
  next lines, the acceptable value envelopes).
* ``output_completion``: REval-style output completion; ``reference`` is a runtime
  output reference ``{"status", "value", "exception"}`` (the answer may name the
  exception the run raised).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

__all__ = ["KINDS", "RewardTask", "RewardTaskError"]

KINDS = ("output", "input", "coverage", "path", "state", "output_completion")


class RewardTaskError(ValueError):
    """A ground-truth record that is not a reward task (a missing or ill-typed field)."""


@dataclass(frozen=True)
class RewardTask:
    """A question about ``program`` and its ground truth (see the module docstring)."""

    kind: str
    program: str
    reference: Any
    function: str = "f"
    call: str | None = None
    line: int | None = None
    var: str | None = None
    id: str = ""
    source: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise RewardTaskError(f"unknown task kind {self.kind!r}; one of {KINDS}")
        if not isinstance(self.program, str) or not self.program.strip():
            raise RewardTaskError("a reward task needs its program's source")
        if self.kind in ("output", "input") and not isinstance(self.reference, str):
            raise RewardTaskError(f"a {self.kind} task's reference is the output literal's "
                                  f"text, got {type(self.reference).__name__}")
        if self.kind in ("coverage", "path", "state") and self.line is None:
            raise RewardTaskError(f"a {self.kind} task needs its line")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (empty optional fields left out)."""
        data = asdict(self)
        return {k: v for k, v in data.items() if v not in (None, "", {})}

    def to_json(self) -> str:
        """The ground-truth string trainers carry (canonical: sorted keys)."""
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RewardTask:
        """Rebuild from :meth:`to_dict`; raises :class:`RewardTaskError` when malformed."""
        if not isinstance(data, Mapping):
            raise RewardTaskError(f"a reward task is a JSON object, got {type(data).__name__}")
        for key in ("kind", "program", "reference"):
            if key not in data:
                raise RewardTaskError(f"the ground truth lacks {key!r}: {sorted(data)[:8]}")
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RewardTaskError(f"unknown ground-truth field(s) {unknown}")
        return cls(**dict(data))

    @classmethod
    def from_json(cls, text: str | Mapping[str, Any] | RewardTask) -> RewardTask:
        """Read a ground truth: a JSON string (cached: rows repeat over generations), a
        mapping, or a task already."""
        if isinstance(text, RewardTask):
            return text
        if isinstance(text, Mapping):
            return cls.from_dict(text)
        if not isinstance(text, str):
            raise RewardTaskError(f"ground truth must be a JSON string, got "
                                  f"{type(text).__name__}")
        return _from_json_cached(text)

    @property
    def question_call(self) -> str:
        """The call the question is about (``f(<input>)``), or ``""`` for input prediction."""
        return self.call or ""


@lru_cache(maxsize=65536)
def _from_json_cached(text: str) -> RewardTask:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RewardTaskError(f"ground truth is not JSON: {exc}") from None
    return RewardTask.from_dict(data)
