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

from execlens.engine import Job, Limits
from execlens.judge._limits import JUDGE_LIMITS
from execlens.judge._outcomes import failure_verdict
from execlens.judge._problem import ExecProblem
from execlens.judge._scoring import SampleScore, ScorePlan
from execlens.judge._verdict import Verdict, VerdictStatus
from execlens.values import AnswerParseError, parse_call, parse_literal, values_equal

if TYPE_CHECKING:
    from execlens.engine import Outcome

__all__ = ["StrictScorer", "compare_values", "parse_reference"]

TASKS = ("input", "output")


def parse_reference(problem: ExecProblem, *, allow_json: bool = False) -> Any:
    """The reference output as a value; raises :class:`AnswerParseError` if not a literal."""
    return parse_literal(problem.output, allow_json=allow_json)


def compare_values(predicted: Any, reference: Any) -> Verdict:
    """Type-strict comparison of two host values (already decoded / parsed)."""
    if values_equal(predicted, reference, "exact"):
        return Verdict.passing()
    if values_equal(predicted, reference, "python"):
        return Verdict.failing(VerdictStatus.WRONG, "type_mismatch",
                               "equal under Python ==, but not of the same types")
    return Verdict.failing(VerdictStatus.WRONG, "value", "a different value")


def _unparseable(error: AnswerParseError) -> Verdict:
    return Verdict.failing(VerdictStatus.UNPARSEABLE, error.kind, error.message)


class StrictScorer:
    """Literal-only, host-compared, fixed-denominator scoring for ``input``/``output``.

    ``allow_json`` also accepts JSON spellings (``true``, ``null``) of literals; off by
    default, since these benchmarks ask for Python literals.
    """

    name = "strict"

    def __init__(self, task: str, *, limits: Limits = JUDGE_LIMITS,
                 allow_json: bool = False) -> None:
        if task not in TASKS:
            raise ValueError(f"task must be 'input' or 'output', got {task!r}")
        self.task = task
        self.limits = limits
        self.allow_json = allow_json

    def _reference(self, problem: ExecProblem) -> Any:
        try:
            return parse_reference(problem, allow_json=self.allow_json)
        except AnswerParseError as error:
            return error

    def plan(self, problem: ExecProblem, generations: Sequence[str]) -> ScorePlan:
        """No jobs for output prediction; one function call per parsed input answer."""
        reference = self._reference(problem)
        gens = list(generations)
        if isinstance(reference, AnswerParseError):
            bad = Verdict.failing(VerdictStatus.REFERENCE_ERROR, reference.kind,
                                  f"the reference output is not a literal: {reference.message}")
            return ScorePlan([], lambda outcomes: self._score(problem, [bad] * len(gens)))
        if self.task == "output":
            verdicts = [self.judge_output(g, reference) for g in gens]
            return ScorePlan([], lambda outcomes: self._score(problem, verdicts))
        parsed: list[Any] = []
        jobs: list[Job] = []
        for g in gens:
            try:
                call = parse_call(g, name=problem.function_name)
            except AnswerParseError as error:
                parsed.append(_unparseable(error))
                continue
            parsed.append(len(jobs))
            jobs.append(Job(program=problem.program, entry_point=problem.function_name,
                            args=call.args, kwargs=call.kwargs, limits=self.limits))

        def finish(outcomes: Sequence[Outcome]) -> SampleScore:
            if len(outcomes) != len(jobs):
                raise ValueError(f"expected {len(jobs)} outcomes, got {len(outcomes)}")
            verdicts = [item if isinstance(item, Verdict)
                        else self.judge_returned(outcomes[item], reference) for item in parsed]
            return self._score(problem, verdicts)

        return ScorePlan(jobs, finish)

    def _score(self, problem: ExecProblem, verdicts: list[Verdict]) -> SampleScore:
        return SampleScore(problem.id, self.name, verdicts, [v.passed for v in verdicts])

    def judge_output(self, answer: str, reference: Any) -> Verdict:
        """Parse an output-prediction answer and compare it with the reference value."""
        try:
            predicted = parse_literal(answer, allow_json=self.allow_json)
        except AnswerParseError as error:
            return _unparseable(error)
        return compare_values(predicted, reference)

    @staticmethod
    def judge_returned(outcome: Outcome, reference: Any) -> Verdict:
        """Compare what the function returned (an envelope, decoded here) with the reference."""
        if not outcome.ok:
            return failure_verdict(outcome)
        try:
            returned = outcome.decoded()
        except Exception as exc:  # noqa: BLE001 - a malformed envelope is the engine's fault
            return Verdict.failing(VerdictStatus.SANDBOX_ERROR, "decode",
                                   f"could not decode the returned value: {exc}")
        return compare_values(returned, reference)
