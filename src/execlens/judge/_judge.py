"""Judging single answers: the entry points rewards and other benchmarks call."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ParamSpec

from execlens.judge._execute import DEFAULT_PROBE, score_samples
from execlens.judge._scoring import SampleScore, Scorer
from execlens.judge._strict import StrictScorer
from execlens.judge._verdict import Verdict

if TYPE_CHECKING:
    from execlens.engine import Engine
    from execlens.tasks import Task

P = ParamSpec("P")

__all__ = [
    "ajudge_input_prediction",
    "ajudge_output_prediction",
    "ascore_samples",
    "judge_input_prediction",
    "judge_output_prediction",
    "make_scorer",
]


def make_scorer(mode: str, task: str, *, official: Scorer[Task] | None = None) -> Scorer[Task]:
    """The scorer for ``mode`` (``strict`` / ``official``) and ``task`` (input / output).

    ``strict`` is the same for every benchmark.  ``official`` is the benchmark's own
    scorer, which its folder declares (``get_benchmark(name).scorers(...)["official"]``,
    or e.g. ``execlens.bench.cruxeval.CruxEvalOfficialScorer``): pass it as ``official``.
    """
    if mode == "strict":
        return StrictScorer(task)
    if mode == "official":
        if official is None:
            raise ValueError(
                "official mode needs the benchmark's own scorer: pass "
                "official=<its scorer> (see execlens.bench.get_benchmark)"
            )
        return official
    raise ValueError(f"mode must be 'strict' or 'official', got {mode!r}")


def _judge_one(
    question: Task,
    answer: str,
    kind: str,
    mode: str,
    engine: Engine | None,
    official: Scorer[Task] | None,
) -> Verdict:
    scorer = make_scorer(mode, kind, official=official)
    plan_needs_engine = bool(scorer.plan(question, [answer]).jobs)
    if plan_needs_engine and engine is None:
        from execlens.judge._execute import scoring_engine

        with scoring_engine(workers=1) as own:
            return _judge_one(question, answer, kind, mode, own, official)
    for _, scores in score_samples([scorer], [(question, [answer])], engine):
        return scores[scorer.name].verdicts[0]
    raise RuntimeError("no verdict produced")  # pragma: no cover


def judge_output_prediction(
    task: Task,
    answer: str,
    *,
    mode: str = "strict",
    engine: Engine | None = None,
    official: Scorer[Task] | None = None,
) -> Verdict:
    """Judge one output-prediction answer (the predicted return value, as text) to a
    prediction task (:func:`execlens.tasks.prediction_task`).

    ``strict`` (default) parses the answer as a literal and compares it with the
    reference in the host -- no engine needed.  ``official`` runs the benchmark's own
    scorer, given as ``official`` (CRUXEval's pastes the answer into
    ``assert <output> == <answer>``); without an ``engine`` a one-server engine is
    started for the call.
    """
    return _judge_one(task, answer, "output", mode, engine, official)


def judge_input_prediction(
    task: Task,
    answer: str,
    *,
    mode: str = "strict",
    engine: Engine | None = None,
    official: Scorer[Task] | None = None,
) -> Verdict:
    """Judge one input-prediction answer (a call such as ``f('abc', 2)``).

    ``strict`` requires exactly one call to ``task.entry`` (its function) with literal
    arguments, runs the function on them in the engine and compares its return value
    with the reference in the host; ``official`` runs the benchmark's scorer given as
    ``official``.  Without an ``engine`` a one-server engine is started for the call.
    """
    return _judge_one(task, answer, "input", mode, engine, official)


def _in_a_thread(judge: Callable[P, Verdict]) -> Callable[P, Coroutine[Any, Any, Verdict]]:
    """``judge`` for asyncio code: the same call, run in a worker thread."""

    @functools.wraps(judge)
    async def awaited(*args: P.args, **kwargs: P.kwargs) -> Verdict:
        return await asyncio.to_thread(judge, *args, **kwargs)

    awaited.__name__ = awaited.__qualname__ = f"a{judge.__name__}"
    awaited.__doc__ = f":func:`{judge.__name__}` for asyncio code (runs in a worker thread)."
    return awaited


ajudge_output_prediction = _in_a_thread(judge_output_prediction)
ajudge_input_prediction = _in_a_thread(judge_input_prediction)


async def ascore_samples(
    scorers: Sequence[Scorer[Task]],
    items: Iterable[tuple[Task, Sequence[str]]],
    engine: Engine | None = None,
    *,
    probe: float | None = DEFAULT_PROBE,
) -> list[tuple[Task, dict[str, SampleScore]]]:
    """:func:`score_samples` for asyncio code: every sample, in completion order."""
    return await asyncio.to_thread(
        lambda: list(score_samples(scorers, list(items), engine, probe=probe))
    )
