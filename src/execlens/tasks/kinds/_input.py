"""``input``: find arguments for which the function returns a given output.  (CRUXEval-I
and CodeI/O's input prediction; the answer is re-executed to check it.)"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from execlens.tasks.kinds._base import KindBase
from execlens.tasks.kinds._output import output_literal
from execlens.tasks.kinds._protocol import Example, NoAnswerForm

if TYPE_CHECKING:
    from execlens.tasks._model import Task
    from execlens.tasks.prompts import Extraction

__all__ = ["InputKind"]


def _called(task: Task) -> str | None:
    """The name the task's call calls, or None (no call, a unittest driver, not a
    literal call)."""
    from execlens.values import AnswerParseError, parse_call

    if not task.call or task.test:
        return None
    try:
        return parse_call(task.call).name
    except (AnswerParseError, SyntaxError, ValueError):
        return None


class InputKind(KindBase):
    """``reference``: the output an answer's call must return (the output kind's
    shapes); ``input`` holds CodeI/O's keyword dict."""

    name = "input"
    scope = "derived"
    default = True
    numbering = "plain"
    answer_form = ("a single call of the function whose arguments are literals", "f(1, 'a')")
    judge_rule = "input"
    assertion_side = "left"
    description = "an input f(...) giving the output (re-executed)"
    example = Example(
        program="def f(x):\n    return x + 1",
        call="f(16)",
        reference="17",
        thought="f(x) returns x + 1, so f(16) == 17.",
        answer="f(16)",
    )

    def derive(self, task: Task) -> Task | None:
        """The input question of an output task: same run and reference, the answer is
        a call.  It needs a plain literal call whose run returned a value that has a
        literal (the question shows it)."""
        from execlens.tasks._model import task_id

        if task.kind != "output" or _called(task) is None:
            return None
        reference = task.reference
        if not isinstance(reference, Mapping) or reference.get("status") != "ok":
            return None
        try:
            output_literal(reference)
        except NoAnswerForm:
            return None
        return replace(task, kind="input", id=task_id(task.id, "input"))

    def question(self, task: Task) -> str:
        """Which arguments give the output?"""
        return (
            f"Find arguments such that `{task.entry}(...)` returns "
            f"`{output_literal(task.reference, tolerant=task.compare == 'tolerant')}`."
        )

    def answer_text(self, task: Task) -> str:
        """The run's own call (one of the right answers)."""
        if task.call:
            return str(task.call)
        meta = task.meta or {}
        if meta.get("input"):
            return str(meta["input"])
        raise NoAnswerForm("an input task without its reference call")

    def answer_value(self, task: Task, text: str) -> Any:
        """A ``tolerant`` (CodeI/O) task runs the call's arguments: the parsed call."""
        if task.compare != "tolerant":
            return text
        from execlens.values import parse_call

        return parse_call(text, name=task.entry)

    def read_answer(self, block: str, how: list[str]) -> Extraction:
        """The call, or the left side of a completed ``assert f(x) == y``."""
        from execlens.tasks.kinds._readers import prediction

        return prediction(block, self.assertion_side or "left", how)

    def well_formed(self, task: Task, answer: str) -> bool:
        """One call of the task's function with literal arguments."""
        from execlens.values import AnswerParseError, parse_call

        try:
            parse_call(answer, name=task.entry)
        except (AnswerParseError, SyntaxError, ValueError, RecursionError):
            return False
        return True

    def explain(self, task: Task, run: str) -> Mapping[str, Any]:
        """Any call returning the output passes; the run's own call is one of them."""
        try:
            shown: str | None = output_literal(task.reference)
        except NoAnswerForm:
            shown = None
        return {
            "question": f"an input such that {_called(task)}(??) == {shown}",
            "expected": task.call,
            "true_value": shown,
        }


KIND = InputKind()
