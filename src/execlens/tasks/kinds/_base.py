"""Defaults every kind shares (:class:`KindBase`): a kind module subclasses it and sets
what differs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from execlens.tasks.kinds._protocol import Example, JudgeRule, NoAnswerForm, Numbering, Scope
from execlens.tasks.kinds._wording import numbered_lines

if TYPE_CHECKING:
    from execlens.tasks._model import Task
    from execlens.tasks._sources import RuntimeProgram
    from execlens.tasks.prompts import Extraction

__all__ = ["KindBase", "envelope_literal"]


def envelope_literal(envelope: Mapping[str, Any]) -> str:
    """The literal of a value envelope; :class:`NoAnswerForm` when it has none."""
    from execlens.values import decode, literal_text

    text = literal_text(decode(dict(envelope)))
    if text is None:
        raise NoAnswerForm(f"a {envelope.get('__type__')} value has no literal form")
    return text


class KindBase:
    """A question kind's defaults: a run question on a plain program, answered by a
    literal read from the block's first line, no partial credit, no worked example."""

    name: str = ""
    scope: Scope = "run"
    default: bool = False
    per_variable: bool = False
    executed_only: bool = False
    needs_line: bool = False
    numbering: Numbering = "plain"
    answer_form: tuple[str, str] = ("the answer as a Python literal", "1")
    assertion_side: Literal["left", "right"] | None = None
    judge_rule: JudgeRule = "output"
    partial_credit: bool = False
    example: Example | None = None
    max_tokens: tuple[int, int] = (256, 1024)
    description: str = ""

    def validate(self, task: Task) -> None:
        """Line kinds need their line."""
        if self.needs_line and task.line is None:
            from execlens.tasks._model import TaskError

            raise TaskError(f"a {self.name} task needs its line")

    def site_reference(self, trace: Any, line: int, var: str | None) -> Any:
        """Site kinds override this."""
        raise NotImplementedError(f"{self.name} is not a site kind")

    def run_reference(self, program: RuntimeProgram, trace: Any) -> Any | None:
        """Run kinds override this."""
        raise NotImplementedError(f"{self.name} is not a run kind")

    def derive(self, task: Task) -> Task | None:
        """Derived kinds override this."""
        return None

    def show_program(self, task: Task) -> str:
        """By :attr:`numbering`: prefix numbers, CoCoNUT's ``# N`` suffixes, or the code
        without its prelude (LiveCodeBench's import block runs but is not shown)."""
        if self.numbering == "prefix":
            return numbered_lines(task.program)
        if self.numbering == "suffix":
            from execlens.tasks._fulltrace import numbered_program

            return numbered_program(task.program)
        from execlens.tasks._prediction import prediction_code

        return prediction_code(task)

    def question(self, task: Task) -> str:
        """Kinds override this: a kind is defined by its question."""
        raise NotImplementedError(f"the {self.name} kind has no question")

    def answer_text(self, task: Task) -> str:
        """The reference as a literal (a value envelope's literal, else ``repr``)."""
        reference = task.reference
        if isinstance(reference, Mapping) and "__type__" in reference:
            return envelope_literal(reference)
        return repr(reference)

    def read_answer(self, block: str, how: list[str]) -> Extraction:
        """The block's first non-blank line."""
        from execlens.tasks.kinds._readers import first_line

        return first_line(block, how)

    def answer_value(self, task: Task, text: str) -> Any:
        """The text itself: the judge rules parse what they read."""
        return text

    def well_formed(self, task: Task, answer: str) -> bool:
        """A non-empty Python literal."""
        from execlens.values import AnswerParseError, parse_literal

        try:
            parse_literal(answer.strip())
        except (AnswerParseError, SyntaxError, ValueError, RecursionError):
            return False
        return bool(answer.strip())

    def explain(self, task: Task, run: str) -> Mapping[str, Any]:
        """The question and the reference answer."""
        try:
            expected: str | None = self.answer_text(task)
        except (NoAnswerForm, ValueError):
            expected = None
        return {"question": self.question(task), "expected": expected, "true_value": expected}
