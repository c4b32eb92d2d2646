"""What a question kind is: the :class:`QuestionKind` protocol every kind module implements.

A kind owns everything about one question: how its truth is built from a traced run, how
the program is shown (its one line numberer), the question's one wording, the answer
form and its reader, the rule the judge applies, whether its verdicts carry partial
credit, and the report's ``explain`` text.  Evaluation prompts, synthesis prompts, SFT
targets and GRPO prompts all read the kind, so a task is asked the same way everywhere.

``tasks`` sits below ``judge`` in the layering, so a kind names its judge rule as data
(the name of one of ``execlens.judge.TASK_JUDGES``' generic judges) or hands a callable
``(task, answer) -> JudgePlan | Verdict`` the judge layer calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from execlens.tasks._model import Task
    from execlens.tasks._sources import RuntimeProgram
    from execlens.tasks.prompts import Extraction

__all__ = ["Example", "JudgeRule", "NoAnswerForm", "Numbering", "QuestionKind", "Scope"]

#: How a kind's truth is built: once per question site of a run (``site``: a line and,
#: for ``per_variable`` kinds, a variable), once per run (``run``), from another
#: kind's task (``derived``: input prediction from an output task), or not at all
#: (``given``: a benchmark's own kind, whose truth comes with its rows; never built
#: from a trace, never asked by the runtime benchmark).
Scope = Literal["site", "run", "derived", "given"]
#: How a kind shows the program: numbered in front (``prefix``, ``  3 x = 1``), numbered
#: by a trailing comment (``suffix``, CoCoNUT's ``x = 1  # 3``) or as it is (``plain``).
Numbering = Literal["prefix", "suffix", "plain"]
#: A judge rule: a generic judge's name, or ``(task, answer) -> JudgePlan | Verdict``.
JudgeRule = str | Callable[[Any, Any], Any]


class NoAnswerForm(ValueError):
    """A task whose reference has no answer in the format (a value without a literal)."""


@dataclass(frozen=True)
class Example:
    """A kind's worked example (the runtime benchmark shows one before its question):
    the fields of a small task, the reasoning and the answer.  It is asked with the
    kind's own wording, like every task of the kind."""

    program: str
    call: str
    reference: Any
    thought: str
    answer: str
    line: int | None = None
    var: str | None = None


@runtime_checkable
class QuestionKind(Protocol):
    """One question kind.  :class:`~execlens.tasks.kinds.KindBase` gives the defaults."""

    name: str
    """The kind's name, as tasks carry it (``Task.kind``)."""
    scope: Scope
    default: bool
    """Built by ``tasks build`` and asked by the runtime benchmark's ``all`` unless
    named otherwise."""
    per_variable: bool
    """A site kind asked once per variable of the site (``state``)."""
    executed_only: bool
    """A site kind asked, in a balanced build, only about lines that ran (``path``)."""
    needs_line: bool
    numbering: Numbering
    answer_form: tuple[str, str]
    """(what to answer, an example answer): the wording every prompt uses."""
    assertion_side: Literal["left", "right"] | None
    """An answer may be written as a completed ``assert A == B``: this side is it
    (``right`` for output, ``left`` for input); None for kinds not answered so."""
    judge_rule: JudgeRule
    partial_credit: bool
    """Whether its verdicts carry ``step_credit`` (a wrong answer may earn some)."""
    example: Example | None
    max_tokens: tuple[int, int]
    """The runtime benchmark's token budget: (direct, chain of thought)."""
    description: str

    def validate(self, task: Task) -> None:
        """Raise ``TaskError`` when ``task`` is not a well-formed task of this kind."""

    def site_reference(self, trace: Any, line: int, var: str | None) -> Any:
        """The truth of a site question about ``trace`` (``site`` kinds)."""

    def run_reference(self, program: RuntimeProgram, trace: Any) -> Any | None:
        """The truth of a run question (``run`` kinds); None when it cannot be asked."""

    def derive(self, task: Task) -> Task | None:
        """This kind's task derived from another's (``derived`` kinds), or None."""

    def show_program(self, task: Task) -> str:
        """The program as every prompt shows it (the kind's one line numberer)."""

    def question(self, task: Task) -> str:
        """The question's one wording."""

    def answer_text(self, task: Task) -> str:
        """The reference answer in the form (no tags); raises :class:`NoAnswerForm`."""

    def read_answer(self, block: str, how: list[str]) -> Extraction:
        """The answer in an ``[ANSWER]`` block's text (string work only)."""

    def answer_value(self, task: Task, text: str) -> Any:
        """What the judge rule takes for an extracted answer ``text`` (the text itself,
        or, for a ``tolerant`` CodeI/O task, the value or call it parses to); raises
        ``AnswerParseError`` when it does not parse."""

    def well_formed(self, task: Task, answer: str) -> bool:
        """Whether an extracted answer parses in the kind's form (no code runs)."""

    def explain(self, task: Task, run: str) -> Mapping[str, Any]:
        """The report's ``question``, ``expected`` and ``true_value`` (and more)."""
