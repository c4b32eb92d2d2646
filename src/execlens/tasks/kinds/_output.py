"""``output``: what does the call return?  (CRUXEval-O's and REval's last question.)"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from execlens.tasks.kinds._base import KindBase, envelope_literal
from execlens.tasks.kinds._protocol import Example, NoAnswerForm
from execlens.tasks.kinds._wording import run_phrase

if TYPE_CHECKING:
    from execlens.tasks._model import Task
    from execlens.tasks._sources import RuntimeProgram
    from execlens.tasks.prompts import Extraction

__all__ = ["OutputKind", "output_literal"]


def output_literal(reference: Any, *, tolerant: bool = False) -> str:
    """The answer an output reference holds: the literal's text (CRUXEval-style), the
    returned value's literal, or the exception's class name when the run raised;
    ``tolerant`` (CodeI/O's JSON value): its Python literal."""
    if tolerant:
        return repr(reference)
    if isinstance(reference, str):
        return reference
    if isinstance(reference, Mapping) and "status" in reference:
        if reference.get("status") != "ok":
            if not reference.get("exception"):
                raise NoAnswerForm("the run ended without a value or an exception")
            return str(reference["exception"])
        reference = reference.get("value")
    if not isinstance(reference, Mapping):
        raise NoAnswerForm("the reference holds no value")
    return envelope_literal(reference)


class OutputKind(KindBase):
    """``reference``: a runtime output ``{"status", "value", "exception"}``, a value
    envelope, the literal's text, or (``compare="tolerant"``) CodeI/O's JSON value."""

    name = "output"
    scope = "run"
    default = True
    numbering = "plain"
    answer_form = (
        "the returned value as a Python literal (no expressions, no function "
        "calls), or the exception's class name if the call raises",
        "'abc'",
    )
    judge_rule = "output"
    assertion_side = "right"
    description = "what f(<input>) returns (or the exception raised)"
    example = Example(
        program='def f(s):\n    return s + "a"',
        call='f("x9j")',
        reference="'x9ja'",
        thought='s is "x9j", so the function returns "x9ja".',
        answer="'x9ja'",
    )

    def run_reference(self, program: RuntimeProgram, trace: Any) -> Any | None:
        """The run's status, returned value and exception."""
        return {
            "status": trace.status,
            "value": trace.output_envelope,
            "exception": trace.exception_type,
        }

    def question(self, task: Task) -> str:
        """What does the call return?"""
        return f"What does {run_phrase(task)} return?"

    def answer_text(self, task: Task) -> str:
        """The output's literal (or the exception's name)."""
        return output_literal(task.reference, tolerant=task.compare == "tolerant")

    def answer_value(self, task: Task, text: str) -> Any:
        """A ``tolerant`` (CodeI/O) task compares values: the text's literal."""
        if task.compare != "tolerant":
            return text
        from execlens.values import parse_literal

        return parse_literal(text)

    def read_answer(self, block: str, how: list[str]) -> Extraction:
        """The value, or the right side of a completed ``assert f(x) == y``."""
        from execlens.tasks.kinds._readers import prediction

        return prediction(block, self.assertion_side or "right", how)

    def well_formed(self, task: Task, answer: str) -> bool:
        """A literal when the reference is one; a runtime output may also be a name."""
        if isinstance(task.reference, str) or task.compare == "tolerant":
            return super().well_formed(task, answer)
        return True

    def explain(self, task: Task, run: str) -> Mapping[str, Any]:
        """The returned value, or the exception raised."""
        reference = task.reference if isinstance(task.reference, Mapping) else {}
        out: dict[str, Any] = {"question": f"the output of {run}"}
        from execlens.tasks.kinds._state import _literal

        value = _literal(reference.get("value"))
        if reference.get("status") == "ok" and value is not None:
            out["expected"] = out["true_value"] = value
        elif reference.get("exception"):
            out["expected"] = str(reference["exception"])
            out["true_value"] = f"raises {reference['exception']}"
        return out


KIND = OutputKind()
