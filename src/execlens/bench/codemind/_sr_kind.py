"""CodeMind's SR question as a kind this folder adds: write the function, judged by its
tests (issue 24).

Importing the folder registers ``codemind_sr`` with the kind registry
(``execlens.tasks.kinds``), as a plug-in registers its kinds; its scope is ``given``
(the truth, HumanEval's ``check``, comes with the data).  The folder's strict SR mode is
the core's ``judge.TaskScorer`` over :func:`sr_task`'s tasks; the kind's judge runs the
answer (a program) in the engine with HumanEval's ``check``, and it passes when:

* the run ends normally -- no exception, ``SystemExit`` included (exiting early skips the
  tests, whatever the exit code), no timeout;
* nothing is written to stderr (the official rule, kept);
* ``check`` really called the entry point: the candidate is wrapped so every value it
  returns is recorded and sent back as an envelope; at least one call must have
  returned, and every returned value must be plain data (numbers, strings, bytes, None
  and containers of them).  An object whose ``__eq__`` always says yes -- which makes
  ``assert candidate(x) == y`` pass -- comes back as an object record and fails here, in
  the host, where its ``__eq__`` cannot vote.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from execlens.engine import Job
from execlens.judge import JudgePlan, Verdict, VerdictStatus, failure_verdict
from execlens.tasks import Task
from execlens.tasks.kinds import JudgeRule, KindBase, Scope, register_kind
from execlens.tasks.prompts import Extraction
from execlens.values import ObjectRecord, OpaqueRecord, Truncated

from ._official import SR_LIMITS

if TYPE_CHECKING:
    from execlens.engine import Outcome

    from ._data import CodeMindItem

__all__ = ["KIND", "SRKind", "sr_strict_source", "sr_task", "sr_verdict"]

#: Defined after the candidate and the tests, so neither can replace it; it records what
#: the candidate returns to ``check`` and hands it back (as an envelope) to the host.
_RECORDER = """

def __execlens_sr_check__(function):
    returned = []

    def candidate(*args, **kwargs):
        value = function(*args, **kwargs)
        returned.append(value)
        return value

    check(candidate)
    return returned
"""

_PLAIN = (type(None), bool, int, float, complex, str, bytes)
_CONTAINERS = (list, tuple, set, frozenset)
_PLAIN_NAMES = {
    "NoneType",
    "bool",
    "int",
    "float",
    "complex",
    "str",
    "bytes",
    "list",
    "tuple",
    "set",
    "frozenset",
    "dict",
}


def sr_strict_source(program: str, tests: str) -> str:
    """The module a strict SR job runs (the call is ``__execlens_sr_check__(<entry>)``)."""
    return "from typing import *" + "\n" + program + "\n" + tests + "\n" + _RECORDER


def _plain(value: Any, depth: int = 0) -> bool:
    """Whether a decoded value is plain data all the way down."""
    if depth > 64:
        return False
    if isinstance(value, Truncated):  # a cap hit: plain if its type is
        return value.type_name in _PLAIN_NAMES
    if isinstance(value, (ObjectRecord, OpaqueRecord)):
        return False
    if type(value) in _PLAIN:
        return True
    if type(value) in _CONTAINERS:
        return all(_plain(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    return False


def sr_verdict(outcome: Outcome) -> Verdict:
    """The strict verdict of one run of an answer with the tests."""
    if not outcome.ok:
        return failure_verdict(outcome)
    if outcome.stderr or outcome.stderr_truncated:
        return Verdict.failing(
            VerdictStatus.WRONG, "stderr", f"wrote to stderr: {outcome.stderr[:200]!r}"
        )
    try:
        returned = outcome.decoded()
    except Exception as exc:  # noqa: BLE001 - a malformed envelope is the engine's fault
        return Verdict.failing(VerdictStatus.SANDBOX_ERROR, "decode", str(exc)[:300])
    if not isinstance(returned, list):
        return Verdict.failing(
            VerdictStatus.WRONG, "recorder", "the tests' recorder did not come back as a list"
        )
    if not returned:
        return Verdict.failing(
            VerdictStatus.WRONG, "not_called", "check() never got a value back from the function"
        )
    if not all(_plain(value) for value in returned):
        return Verdict.failing(
            VerdictStatus.WRONG,
            "non_plain_return",
            "the function returned something other than plain data "
            "(an object whose comparisons it controls)",
        )
    return Verdict.passing()


def _judge(task: Task, answer: Any) -> JudgePlan:
    """One job: the answer, the tests and the recorder, ``check`` called on the entry."""
    job = Job(
        program=sr_strict_source(str(answer), str(task.reference)),
        call=f"__execlens_sr_check__({task.entry})",
        limits=SR_LIMITS,
    )

    def finish(outcomes: Sequence[Outcome]) -> Verdict:
        return sr_verdict(outcomes[0])

    return JudgePlan([job], finish)


def sr_task(item: CodeMindItem) -> Task:
    """The task an SR item asks: ``reference`` is HumanEval's ``check`` source,
    ``function`` the entry point, ``program`` the canonical solution (the reference
    answer, never run by the judge) and ``meta["nl"]`` the specification."""
    return Task(
        kind="codemind_sr",
        program=item.code,
        reference=item.tests,
        function=item.entry_point,
        id=item.sample_id,
        source="codemind",
        problem_id=item.id,
        meta={"nl": item.nl},
    )


class SRKind(KindBase):
    """Specification reasoning: the answer is a program, judged by running its tests."""

    name = "codemind_sr"
    scope: Scope = "given"
    answer_form = ("the whole function in one ```python code block", "def f(x):\n    return x")
    judge_rule: JudgeRule = staticmethod(_judge)
    max_tokens = (1024, 2048)
    description = "CodeMind SR: write the function from its specification (its tests judge)"

    def question(self, task: Task) -> str:
        """The specification, and what to write."""
        return f"{task.meta.get('nl', '')}\nWrite the function {task.entry} it specifies."

    def answer_text(self, task: Task) -> str:
        """The canonical solution."""
        return task.program

    def read_answer(self, block: str, how: list[str]) -> Extraction:
        """The block as it is: a program."""
        return Extraction(block.strip("\n"), (*how, "the block as it is"))

    def well_formed(self, task: Task, answer: str) -> bool:
        """A program that parses."""
        try:
            ast.parse(answer)
        except (SyntaxError, ValueError, RecursionError):
            return False
        return bool(answer.strip())

    def explain(self, task: Task, run: str) -> Mapping[str, Any]:
        """The question; the canonical solution as what was expected."""
        return {"question": self.question(task), "expected": None, "true_value": None}


#: The folder's kind, registered when the folder is imported.
KIND = register_kind(SRKind())
