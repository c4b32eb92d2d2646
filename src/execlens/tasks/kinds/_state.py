"""``state``: a variable's value and type right after a line.  (REval's third question.)"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from execlens.tasks.kinds._base import KindBase, envelope_literal
from execlens.tasks.kinds._protocol import Example
from execlens.tasks.kinds._wording import run_phrase

if TYPE_CHECKING:
    from execlens.tasks._model import Task

__all__ = ["StateKind"]


def _literal(envelope: Any) -> str | None:
    from execlens.values import decode, literal_text

    if not isinstance(envelope, Mapping):
        return None
    try:
        return literal_text(decode(dict(envelope)))
    except (ValueError, TypeError, KeyError):
        return None


def _qualified(envelope: Mapping[str, Any]) -> str:
    from execlens.values import envelope_type_key

    module, name = envelope_type_key(envelope)
    return name if module in (None, "builtins") else f"{module}.{name}"


def _explained(reference: Any) -> tuple[str, str]:
    """(expected answer, every accepted value) of a state question."""
    values = [
        e
        for e in reference or ()
        if isinstance(e, Mapping) and (e.get("__type__") != "Nil" or "__value__" in e)
    ]
    if not values:
        return "Nil", "Nil (the line never ran, or the variable has no value after it)"
    texts = [(_literal(e), _qualified(e)) for e in values]
    shown = " | ".join(
        f"{text}; {kind}" if text is not None else f"<{kind} without a literal>"
        for text, kind in texts
    )
    expected = next((f"{text}; {kind}" for text, kind in texts if text is not None), None)
    return expected or shown, shown


class StateKind(KindBase):
    """``reference``: the acceptable value envelopes (``[{"__type__": "Nil"}]`` when the
    variable has none); answered ``value; type`` or ``Nil``."""

    name = "state"
    scope = "site"
    default = True
    per_variable = True
    needs_line = True
    numbering = "prefix"
    answer_form = (
        'the value and type in "value; type" format (a Python literal and its class '
        "name), or Nil if the line is not executed",
        "[1, 2]; list",
    )
    judge_rule = "state"
    description = "a variable's value and type after line N (or Nil)"
    example = Example(
        program=(
            "def f(a, b):\n    ans = a + b\n    if ans > 0:\n        ans = int(a)\n"
            "    else:\n        ans = b\n    return ans"
        ),
        call="f(1.1, 2)",
        line=4,
        var="ans",
        reference=[{"__type__": "int", "__value__": 1}],
        thought="ans = 1.1 + 2 = 3.1 > 0, so line 4 runs and ans = int(1.1) = 1.",
        answer="1; int",
    )

    def site_reference(self, trace: Any, line: int, var: str | None) -> Any:
        """The variable's value envelopes after the line."""
        return trace.state_envelopes(var, line)

    def question(self, task: Task) -> str:
        """The variable's value after the line."""
        return (
            f"When {run_phrase(task)} runs, what is the value of `{task.var}` right after "
            f"line {task.line} executes?"
        )

    def answer_text(self, task: Task) -> str:
        """``value; type`` of the first value, or ``Nil``."""
        values = [e for e in task.reference if e.get("__type__") != "Nil"]
        if not values:
            return "Nil"
        return f"{envelope_literal(values[0])}; {values[0].get('__type__')}"

    def well_formed(self, task: Task, answer: str) -> bool:
        """Any non-empty answer (the judge reads ``value; type``)."""
        return True

    def explain(self, task: Task, run: str) -> Mapping[str, Any]:
        """The expected answer and every accepted value."""
        line = int(task.line or 0)
        expected, true_value = _explained(task.reference)
        return {
            "asked_line": line,
            "question": f"the value and type of {task.var} after line {line} when {run} runs",
            "expected": expected,
            "true_value": true_value,
        }


KIND = StateKind()
