"""The one reward core: ``score(task, response) -> Verdict``, one answer or a batch.

Every trainer adapter calls :func:`score_batch`.  Per completion it finds the answer in
the completion's *final part* (:func:`~execlens.rewards.extract_answer`: a reasoning
model's thought is set apart first, and never scored) and judges it strictly through the
one judge path, :func:`execlens.judge.plan_task` (the runtime benchmark's too): literals
and one literal-argument call parsed as data, values compared type-strictly in the host.
An answer whose judge plan has engine jobs -- input prediction, or any kind whose judge
runs code (a plug-in's, a benchmark folder's) -- is run in the engine, whatever its
kind: the answers of a batch whose tasks share a program travel as one work item.  Input
answers are literals, so all of them run only the task's program (one origin,
``Job.origin``): they may share a forked child, each in a fresh module, and only while
none leaves anything behind (the engine retires the child on any change), so an
answer's reward never depends on the answers judged before it; a job without an origin
shares its child with no other job.

A completion with no answer gets an ``unparseable`` verdict naming why before any judge
runs: ``truncated_in_reasoning``, ``reasoning_only``, ``hedged`` (different answers in the
final part), ``too_long``.  A malformed ground truth or a failure of the judge on one
answer becomes that answer's named verdict; it never ends the batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from execlens.judge import Verdict, VerdictStatus, plan_task, plan_verdicts, scoring_error
from execlens.rewards._extract import MAX_ANSWER_CHARS, extract_answer
from execlens.tasks import QUESTION_KINDS, Task, TaskError
from execlens.tasks.kinds import get_kind
from execlens.values import AnswerParseError

if TYPE_CHECKING:
    from execlens.engine import Engine, Job, Outcome
    from execlens.judge import Executor, JudgePlan
    from execlens.tasks.prompts import ReasoningMode

__all__ = [
    "KINDS",
    "Task",
    "TaskError",
    "judge_answer",
    "score",
    "score_batch",
    "score_local",
]

#: The question kinds a reward task may have (``execlens.tasks.QUESTION_KINDS``).
KINDS = QUESTION_KINDS


def _reference_error(detail: str, reason: str = "ground_truth") -> Verdict:
    return Verdict.failing(VerdictStatus.REFERENCE_ERROR, reason, detail[:500])


def judge_answer(task: Task, answer: Any) -> Verdict:
    """Judge an extracted answer whose judging runs no code (an ``input`` answer, or any
    answer whose kind's judge plans engine jobs, raises ``ValueError``: use
    :func:`score_batch`)."""
    plan = plan_task(task, answer)
    if plan.jobs:
        raise ValueError(f"judging a {task.kind} answer runs code: use score or score_batch")
    return plan.verdict()  # (a judge's own failure is its scoring_error verdict)


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
    """The answers of one batch whose judge plans run code and whose tasks share a
    program: one work item (the judge's plans, their jobs run together)."""

    def __init__(self) -> None:
        self.plans: list[tuple[int, JudgePlan]] = []
        self.jobs: list[Job] = []

    def add(self, index: int, plan: JudgePlan) -> None:
        self.plans.append((index, plan))
        self.jobs.extend(plan.jobs)

    def finish(self, outcomes: Sequence[Outcome], verdicts: list[Verdict | None]) -> None:
        indices = [index for index, _ in self.plans]
        try:
            done = plan_verdicts([plan for _, plan in self.plans], outcomes)
        except ValueError as exc:  # the executor's bug (outcomes miscounted): never lose a batch
            done = [scoring_error(exc)] * len(indices)
        for index, verdict in zip(indices, done):
            verdicts[index] = verdict


def _run_groups(
    groups: dict[str, _Group],
    verdicts: list[Verdict | None],
    engine: Engine | None,
    executor: Executor | None,
) -> None:
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


def score_batch(
    tasks: Sequence[Task | str | dict[str, Any]],
    responses: Sequence[Any],
    *,
    engine: Engine | None = None,
    executor: Executor | None = None,
    answer_format: str = "tagged",
    finish_reasons: Sequence[str | None] | None = None,
    reasoning: ReasoningMode = "auto",
) -> list[Verdict]:
    """Judge ``responses[i]`` against ``tasks[i]`` (tasks or ground-truth JSON strings).

    A response is text, a message or TRL's list of messages (a ``reasoning_content`` key
    is the thought), or a read :class:`~execlens.tasks.prompts.ModelResponse`;
    ``finish_reasons[i] == "length"`` marks a response cut by the token limit;
    ``reasoning`` is :func:`~execlens.tasks.prompts.read_response`'s mode.  Execution
    (input prediction) goes to ``executor``, else an executor over ``engine``.  With
    neither, the batch goes to this process's judge workers (:func:`shared_judges`:
    host-side processes that run no untrusted code, each with its own judging engine;
    by default one per 8 cores from 16 cores on, none on a smaller machine),
    so that this process only sends work and receives verdicts; with judge workers off
    (``EXECLENS_JUDGE_WORKERS=0``) or a batch under ``EXECLENS_JUDGE_MIN_BATCH``, it is
    judged here on this process's shared judging engine.
    """
    if len(tasks) != len(responses):
        raise ValueError(f"{len(tasks)} tasks but {len(responses)} responses")
    if finish_reasons is not None and len(finish_reasons) != len(responses):
        raise ValueError(f"{len(finish_reasons)} finish reasons for {len(responses)} responses")
    if engine is None and executor is None:
        from execlens.rewards._engine import shared_judges

        judges = shared_judges(len(tasks))
        if judges is not None:
            from execlens.rewards._pooled import score_pooled

            return score_pooled(judges, tasks, responses, answer_format, finish_reasons, reasoning)
    return score_local(
        tasks,
        responses,
        engine=engine,
        executor=executor,
        answer_format=answer_format,
        finish_reasons=finish_reasons,
        reasoning=reasoning,
    )


def score_local(
    tasks: Sequence[Task | str | dict[str, Any]],
    responses: Sequence[Any],
    *,
    engine: Engine | None = None,
    executor: Executor | None = None,
    answer_format: str = "tagged",
    finish_reasons: Sequence[str | None] | None = None,
    reasoning: ReasoningMode = "auto",
) -> list[Verdict]:
    """:func:`score_batch` judged in this process (what every judge worker runs)."""
    verdicts: list[Verdict | None] = [None] * len(tasks)
    groups: dict[str, _Group] = {}
    for index, (raw, response) in enumerate(zip(tasks, responses)):
        try:
            task = Task.from_json(raw)
        except TaskError as exc:
            verdicts[index] = _reference_error(str(exc))
            continue
        try:
            extracted = extract_answer(
                response,
                task.kind,
                answer_format=answer_format,
                reasoning=reasoning,
                finish_reason=finish_reasons[index] if finish_reasons is not None else None,
            )
        except TypeError as exc:
            verdicts[index] = Verdict.failing(VerdictStatus.UNPARSEABLE, "completion", str(exc))
            continue
        if extracted.problem:
            verdicts[index] = _no_answer(extracted.problem)
            continue
        try:  # the text itself, or a tolerant (CodeI/O) task's value or call
            answer = get_kind(task.kind).answer_value(task, extracted.text)
        except AnswerParseError as exc:
            verdicts[index] = Verdict.failing(VerdictStatus.UNPARSEABLE, exc.kind, str(exc))
            continue
        try:  # (a judge's own failure is already its scoring_error plan)
            plan = plan_task(task, answer)
        except Exception as exc:  # noqa: BLE001 - a kind naming no judge: this answer's
            verdicts[index] = scoring_error(exc)
            continue
        if not plan.jobs:
            verdicts[index] = plan.verdict()
            continue
        # Answers whose judging runs code (input prediction, a plug-in kind's judge) wait
        # for the engine; those of tasks sharing a program travel as one work item.
        groups.setdefault(task.program, _Group()).add(index, plan)
    if groups:
        _run_groups(groups, verdicts, engine, executor)
    return [
        v if v is not None else scoring_error(RuntimeError("no verdict produced")) for v in verdicts
    ]


def score(
    task: Task | str | dict[str, Any],
    response: Any,
    *,
    engine: Engine | None = None,
    finish_reason: str | None = None,
    answer_format: str = "tagged",
    reasoning: ReasoningMode = "auto",
) -> Verdict:
    """Judge one response (text, messages or a read response) against one task (or its
    ground-truth JSON); the options are :func:`score_batch`'s."""
    return score_batch(
        [task],
        [response],
        engine=engine,
        finish_reasons=[finish_reason],
        answer_format=answer_format,
        reasoning=reasoning,
    )[0]
