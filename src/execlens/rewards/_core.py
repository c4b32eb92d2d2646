"""The one reward core: ``score(task, response) -> Verdict``, one answer or a batch.

Every trainer adapter calls :func:`score_batch`.  Per completion it finds the answer in
the completion's *final part* (:func:`~execlens.rewards.extract_answer`: a reasoning
model's thought is set apart first, and never scored) and judges it strictly through
``execlens.judge``'s public judges:

* ``output``: the answer must be a literal, compared type-strictly with the reference in
  the host (:class:`~execlens.judge.StrictScorer`); no code runs.
* ``input``: exactly one call of the task's function with literal arguments, run in the
  engine; what it returns is compared in the host.  The answers of a batch that share a
  program travel as one work item, so they run in one forked child.
* ``coverage`` / ``path`` / ``state`` / ``output_completion``: the judge's generic
  runtime judges (host only).

A completion with no answer gets an ``unparseable`` verdict naming why before any judge
runs: ``truncated_in_reasoning``, ``reasoning_only``, ``hedged`` (different answers in the
final part), ``too_long``.  A malformed ground truth or a failure of the judge on one
answer becomes that answer's named verdict; it never ends the batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from execlens.judge import ExecProblem, StrictScorer, Verdict, VerdictStatus
from execlens.rewards._extract import MAX_ANSWER_CHARS, extract_answer
from execlens.rewards._task import RewardTask, RewardTaskError
from execlens.values import AnswerParseError, parse_literal

if TYPE_CHECKING:
    from execlens.engine import Engine, Job, Outcome
    from execlens.judge import Executor
    from execlens.tasks.prompts import ReasoningMode

__all__ = ["judge_answer", "score", "score_batch"]

_OUTPUT = StrictScorer("output")
_INPUT = StrictScorer("input")


@lru_cache(maxsize=65536)
def _reference_value(text: str) -> Any:
    """The reference literal, parsed once per distinct text (rows repeat per generation)."""
    try:
        return parse_literal(text)
    except AnswerParseError as error:
        return error


def _reference_error(detail: str, reason: str = "ground_truth") -> Verdict:
    return Verdict.failing(VerdictStatus.REFERENCE_ERROR, reason, detail[:500])


def _scoring_error(exc: BaseException) -> Verdict:
    return Verdict.failing(VerdictStatus.SCORING_ERROR, type(exc).__name__,
                           f"{type(exc).__name__}: {exc}"[:500])


def _judge_output(task: RewardTask, answer: str) -> Verdict:
    reference = _reference_value(task.reference)
    if isinstance(reference, AnswerParseError):
        return _reference_error(f"the reference output is not a literal: {reference.message}",
                                reference.kind)
    return _OUTPUT.judge_output(answer, reference)


def _judge_runtime(task: RewardTask, answer: str) -> Verdict:
    # The generic runtime judges live in execlens.judge; imported here, on first use.
    from execlens import judge

    if task.kind == "coverage":
        return judge.judge_coverage(bool(task.reference), answer)
    if task.kind == "path":
        return judge.judge_path(list(task.reference), answer, code=task.program)
    if task.kind == "state":
        return judge.judge_state(list(task.reference), answer)
    return judge.judge_output(dict(task.reference), answer)


def judge_answer(task: RewardTask, answer: str) -> Verdict:
    """Judge an extracted answer for a task that needs no execution (every kind but
    ``input``); raises ``ValueError`` for ``input`` (use :func:`score_batch`)."""
    if task.kind == "input":
        raise ValueError("input prediction runs code: use score or score_batch")
    try:
        if task.kind == "output":
            return _judge_output(task, answer)
        return _judge_runtime(task, answer)
    except Exception as exc:  # noqa: BLE001 - one answer's failure must not end a batch
        return _scoring_error(exc)


_PROBLEMS = {
    "truncated_in_reasoning": "the completion was cut off by the token limit inside its "
                              "reasoning: it has no final answer",
    "reasoning_only": "the completion ended inside its reasoning (or with an empty final "
                      "part): it has no final answer",
    "hedged": "the final part gives different answers in several [ANSWER] blocks",
    "too_long": f"the answer is longer than {MAX_ANSWER_CHARS} characters",
}


def _no_answer(problem: str) -> Verdict:
    return Verdict.failing(VerdictStatus.UNPARSEABLE, problem, _PROBLEMS.get(problem, problem))


class _Group:
    """The input-prediction answers of one batch that share a program: one work item."""

    def __init__(self) -> None:
        self.plans: list[tuple[list[int], Any]] = []
        self.jobs: list[Job] = []

    def add(self, task: RewardTask, indices: list[int], answers: list[str]) -> None:
        problem = ExecProblem(id=task.id or "task", code=task.program, input="",
                              output=task.reference, function_name=task.function)
        plan = _INPUT.plan(problem, answers)
        self.plans.append((indices, plan))
        self.jobs.extend(plan.jobs)

    def finish(self, outcomes: Sequence[Outcome], verdicts: list[Verdict | None]) -> None:
        start = 0
        for indices, plan in self.plans:
            stop = start + len(plan.jobs)
            try:
                judged = plan.finish(outcomes[start:stop]).verdicts
            except Exception as exc:  # noqa: BLE001 - never lose a batch
                judged = [_scoring_error(exc)] * len(indices)
            for index, verdict in zip(indices, judged):
                verdicts[index] = verdict
            start = stop


def _run_groups(groups: dict[str, _Group], verdicts: list[Verdict | None],
                engine: Engine | None, executor: Executor | None) -> None:
    from execlens.judge import Executor
    from execlens.rewards._engine import shared_executor

    own = Executor(engine) if executor is None and engine is not None else None
    runner = executor or own or shared_executor()
    try:
        work = [(key, group.jobs) for key, group in groups.items()]
        for key, outcomes in runner.run(work):
            groups[key].finish(outcomes, verdicts)
    finally:
        if own is not None:
            own.close()


def score_batch(tasks: Sequence[RewardTask | str | dict[str, Any]],
                responses: Sequence[Any], *, engine: Engine | None = None,
                executor: Executor | None = None, answer_format: str = "tagged",
                finish_reasons: Sequence[str | None] | None = None,
                reasoning: ReasoningMode = "auto") -> list[Verdict]:
    """Judge ``responses[i]`` against ``tasks[i]`` (tasks or ground-truth JSON strings).

    A response is text, a message or TRL's list of messages (a ``reasoning_content`` key
    is the thought), or a read :class:`~execlens.tasks.prompts.ModelResponse`;
    ``finish_reasons[i] == "length"`` marks a response cut by the token limit;
    ``reasoning`` is :func:`~execlens.tasks.prompts.read_response`'s mode.  Execution
    (input prediction) goes to ``executor``, else an executor over ``engine``, else this
    process's shared judging engine (started on first need, closed at exit).
    """
    if len(tasks) != len(responses):
        raise ValueError(f"{len(tasks)} tasks but {len(responses)} responses")
    if finish_reasons is not None and len(finish_reasons) != len(responses):
        raise ValueError(f"{len(finish_reasons)} finish reasons for {len(responses)} responses")
    verdicts: list[Verdict | None] = [None] * len(tasks)
    pending: dict[int, tuple[RewardTask, list[int], list[str]]] = {}
    for index, (raw, response) in enumerate(zip(tasks, responses)):
        try:
            task = RewardTask.from_json(raw)
        except RewardTaskError as exc:
            verdicts[index] = _reference_error(str(exc))
            continue
        try:
            extracted = extract_answer(
                response, task.kind, answer_format=answer_format, reasoning=reasoning,
                finish_reason=finish_reasons[index] if finish_reasons is not None else None)
        except TypeError as exc:
            verdicts[index] = Verdict.failing(VerdictStatus.UNPARSEABLE, "completion", str(exc))
            continue
        if extracted.problem:
            verdicts[index] = _no_answer(extracted.problem)
            continue
        answer = extracted.text
        if task.kind != "input":
            verdicts[index] = judge_answer(task, answer)
            continue
        # Rows repeat per generation: the same task object (cached parse) gathers them.
        entry = pending.setdefault(id(task), (task, [], []))
        entry[1].append(index)
        entry[2].append(answer)
    if pending:
        groups: dict[str, _Group] = {}
        for task, indices, answers in pending.values():
            groups.setdefault(task.program, _Group()).add(task, indices, answers)
        for group in groups.values():
            if not group.jobs:  # every answer unparseable: nothing to run
                group.finish([], verdicts)
        running = {key: group for key, group in groups.items() if group.jobs}
        if running:
            _run_groups(running, verdicts, engine, executor)
    return [v if v is not None else _scoring_error(RuntimeError("no verdict produced"))
            for v in verdicts]


def score(task: RewardTask | str | dict[str, Any], response: Any, *,
          engine: Engine | None = None, finish_reason: str | None = None,
          answer_format: str = "tagged", reasoning: ReasoningMode = "auto") -> Verdict:
    """Judge one response (text, messages or a read response) against one task (or its
    ground-truth JSON); the options are :func:`score_batch`'s."""
    return score_batch([task], [response], engine=engine, finish_reasons=[finish_reason],
                       answer_format=answer_format, reasoning=reasoning)[0]
