"""Strict scoring: answers are parsed as data, compared in the host, nothing skipped.

* Output prediction: the answer must be a literal (``execlens.values.parse_literal``);
  it is compared with the reference literal under type-strict ``exact`` equality.  No
  code runs.
* Input prediction: the answer must be exactly one call ``f(<literals>)``
  (``parse_call``); ``f`` runs in the engine on those values (as envelopes, never as
  source) and the value it returns is compared with the reference, in the host.

Every generation counts (a fixed denominator); an unparseable one is a failure with
the parse error's kind as its reason.  So ``f([]) or True``, ``[] or True``, an
always-equal object and answers that merely evade a substring filter all fail.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from execlens.engine import Limits
from execlens.judge._limits import JUDGE_LIMITS
from execlens.judge._plan import JudgePlan, plan_verdicts
from execlens.judge._runtime import (
    compare_values,
    judge_output_literal,
    plan_input,
    returned_verdict,
)
from execlens.judge._scoring import SampleScore, ScorePlan
from execlens.judge._verdict import Verdict, VerdictStatus
from execlens.values import AnswerParseError, parse_literal

if TYPE_CHECKING:
    from execlens.engine import Outcome
    from execlens.tasks import Task

__all__ = ["StrictScorer", "compare_values", "parse_reference"]

TASKS = ("input", "output")


def parse_reference(task: Task, *, allow_json: bool = False) -> Any:
    """The reference output (the task's literal text) as a value; raises
    :class:`AnswerParseError` if not a literal."""
    return parse_literal(task.reference, allow_json=allow_json)


class StrictScorer:
    """Literal-only, host-compared, fixed-denominator scoring for ``input``/``output``.

    It judges prediction tasks (``reference``: the output literal's text; input answers
    call ``task.entry``) as ``task`` questions, whatever their own kind.

    ``allow_json`` also accepts JSON spellings (``true``, ``null``) of literals; off by
    default, since these benchmarks ask for Python literals.
    """

    name = "strict"

    def __init__(
        self, task: str, *, limits: Limits = JUDGE_LIMITS, allow_json: bool = False
    ) -> None:
        if task not in TASKS:
            raise ValueError(f"task must be 'input' or 'output', got {task!r}")
        self.task = task
        self.limits = limits
        self.allow_json = allow_json

    def _reference(self, task: Task) -> Any:
        try:
            return parse_reference(task, allow_json=self.allow_json)
        except AnswerParseError as error:
            return error

    def plan(self, task: Task, generations: Sequence[str]) -> ScorePlan:
        """No jobs for output prediction; one function call per parsed input answer, each
        planned by the one input-prediction judge (:func:`~execlens.judge.plan_input`)."""
        reference = self._reference(task)
        gens = list(generations)
        if isinstance(reference, AnswerParseError):
            bad = Verdict.failing(
                VerdictStatus.REFERENCE_ERROR,
                reference.kind,
                f"the reference output is not a literal: {reference.message}",
            )
            return ScorePlan([], lambda outcomes: self._score(task, [bad] * len(gens)))
        if self.task == "output":
            verdicts = [self.judge_output(g, reference) for g in gens]
            return ScorePlan([], lambda outcomes: self._score(task, verdicts))
        plans: list[JudgePlan] = [
            plan_input(
                task.program,
                task.entry,
                task.reference,
                g,
                limits=self.limits,
                allow_json=self.allow_json,
            )
            for g in gens
        ]
        jobs = [job for plan in plans for job in plan.jobs]

        def finish(outcomes: Sequence[Outcome]) -> SampleScore:
            return self._score(task, plan_verdicts(plans, outcomes))

        return ScorePlan(jobs, finish)

    def _score(self, task: Task, verdicts: list[Verdict]) -> SampleScore:
        return SampleScore(task.id, self.name, verdicts, [v.passed for v in verdicts])

    def judge_output(self, answer: str, reference: Any) -> Verdict:
        """Parse an output-prediction answer and compare it with the reference value."""
        return judge_output_literal("", answer, allow_json=self.allow_json, expected=reference)

    @staticmethod
    def judge_returned(outcome: Outcome, reference: Any) -> Verdict:
        """Compare what the function returned (an envelope, decoded here) with the reference."""
        return returned_verdict(outcome, reference)
