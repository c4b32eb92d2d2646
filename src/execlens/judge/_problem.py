"""The one thing every execution-prediction judge needs: a function, a call, its output."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ExecProblem", "ProblemError"]


class ProblemError(ValueError):
    """A benchmark record that cannot be judged (a missing or ill-typed field)."""


@dataclass(frozen=True, slots=True)
class ExecProblem:
    """One input/output-prediction problem.

    * ``code``: the program (CRUXEval: one ``def f(...)``).
    * ``input``: CRUXEval's *argument-list text* (``"'abc', 2"``), or, with
      ``input_is_call``, a full call (LiveCodeBench: ``"f(nums=[1, 2])"``).
    * ``output``: the reference output as a literal's text (``"[(4, 1)]"``).
    * ``function_name``: the function the call names (``"f"``).
    * ``prelude``: source run before ``code`` (LiveCodeBench's block of imports).
    """

    id: str
    code: str
    input: str
    output: str
    function_name: str = "f"
    input_is_call: bool = False
    prelude: str = ""

    @property
    def call_text(self) -> str:
        """The reference call as source: ``f(<input>)``."""
        return self.input if self.input_is_call else f"{self.function_name}({self.input})"

    @property
    def program(self) -> str:
        """The module a child executes: ``prelude`` then ``code``."""
        return f"{self.prelude}\n{self.code}" if self.prelude else self.code

    @classmethod
    def from_record(cls, record: Mapping[str, Any], *, id_key: str = "id",
                    function_name: str | None = None, input_is_call: bool = False,
                    prelude: str = "") -> ExecProblem:
        """Build from a benchmark record with ``code``, ``input``, ``output`` and an id.

        ``function_name`` defaults to the record's ``function_name`` field, else ``"f"``.
        Raises :class:`ProblemError` naming the missing or ill-typed field.
        """
        for key in (id_key, "code", "input", "output"):
            if key not in record:
                raise ProblemError(f"record lacks the field {key!r}: {sorted(record)[:8]}")
            if not isinstance(record[key], str):
                raise ProblemError(f"record field {key!r} must be a string, "
                                   f"got {type(record[key]).__name__}")
        name = function_name or record.get("function_name") or "f"
        return cls(id=record[id_key], code=record["code"], input=record["input"],
                   output=record["output"], function_name=str(name),
                   input_is_call=input_is_call, prelude=prelude)
