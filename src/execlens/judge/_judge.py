"""Judging single answers: the entry points rewards and other benchmarks call."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from execlens.judge._execute import DEFAULT_PROBE, score_samples
from execlens.judge._official import CruxEvalOfficialScorer, LCBOfficialScorer
from execlens.judge._problem import ExecProblem
from execlens.judge._scoring import SampleScore, Scorer
from execlens.judge._strict import StrictScorer
from execlens.judge._verdict import Verdict

if TYPE_CHECKING:
    from execlens.engine import Engine

__all__ = [
    "ajudge_input_prediction",
    "ajudge_output_prediction",
    "ascore_samples",
    "judge_input_prediction",
    "judge_output_prediction",
    "make_scorer",
]

MODES = ("strict", "official")


def make_scorer(mode: str, task: str, *, benchmark: str = "cruxeval") -> Scorer:
    """The scorer for ``mode`` (strict / official), ``task`` (input / output), ``benchmark``.

    ``benchmark`` is ``cruxeval`` or ``lcb-exec`` (LiveCodeBench code execution, output
    prediction only).
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    if benchmark not in ("cruxeval", "lcb-exec"):
        raise ValueError(f"benchmark must be 'cruxeval' or 'lcb-exec', got {benchmark!r}")
    if benchmark == "lcb-exec" and task != "output":
        raise ValueError("LiveCodeBench code execution has only the output task")
    if mode == "strict":
        return StrictScorer(task)
    return CruxEvalOfficialScorer(task) if benchmark == "cruxeval" else LCBOfficialScorer()


def _benchmark_of(problem: ExecProblem) -> str:
    return "lcb-exec" if problem.input_is_call else "cruxeval"


def _judge_one(problem: ExecProblem, answer: str, task: str, mode: str,
               engine: Engine | None) -> Verdict:
    scorer = make_scorer(mode, task, benchmark=_benchmark_of(problem))
    plan_needs_engine = bool(scorer.plan(problem, [answer]).jobs)
    if plan_needs_engine and engine is None:
        from execlens.judge._execute import scoring_engine

        with scoring_engine(workers=1) as own:
            return _judge_one(problem, answer, task, mode, own)
    for _, scores in score_samples([scorer], [(problem, [answer])], engine):
        return scores[scorer.name].verdicts[0]
    raise RuntimeError("no verdict produced")  # pragma: no cover


def judge_output_prediction(problem: ExecProblem, answer: str, *, mode: str = "strict",
                            engine: Engine | None = None) -> Verdict:
    """Judge one output-prediction answer (the predicted return value, as text).

    ``strict`` (default) parses the answer as a literal and compares it with the
    reference in the host -- no engine needed.  ``official`` pastes it into
    ``assert <output> == <answer>`` as the benchmark's own scorer does (CRUXEval, or
    LiveCodeBench when ``problem.input_is_call``); without an ``engine`` a one-server
    engine is started for the call.
    """
    return _judge_one(problem, answer, "output", mode, engine)


def judge_input_prediction(problem: ExecProblem, answer: str, *, mode: str = "strict",
                           engine: Engine | None = None) -> Verdict:
    """Judge one input-prediction answer (a call such as ``f('abc', 2)``).

    ``strict`` requires exactly one call to ``problem.function_name`` with literal
    arguments, runs the function on them in the engine and compares its return value
    with the reference in the host; ``official`` runs CRUXEval's pasted assertion.
    Without an ``engine`` a one-server engine is started for the call.
    """
    return _judge_one(problem, answer, "input", mode, engine)


async def ajudge_output_prediction(problem: ExecProblem, answer: str, *,
                                   mode: str = "strict", engine: Engine | None = None
                                   ) -> Verdict:
    """:func:`judge_output_prediction` for asyncio code (runs in a worker thread)."""
    return await asyncio.to_thread(judge_output_prediction, problem, answer, mode=mode,
                                   engine=engine)


async def ajudge_input_prediction(problem: ExecProblem, answer: str, *, mode: str = "strict",
                                  engine: Engine | None = None) -> Verdict:
    """:func:`judge_input_prediction` for asyncio code (runs in a worker thread)."""
    return await asyncio.to_thread(judge_input_prediction, problem, answer, mode=mode,
                                   engine=engine)


async def ascore_samples(scorers: Sequence[Scorer],
                         items: Iterable[tuple[ExecProblem, Sequence[str]]],
                         engine: Engine | None = None, *, probe: float | None = DEFAULT_PROBE
                         ) -> list[tuple[ExecProblem, dict[str, SampleScore]]]:
    """:func:`score_samples` for asyncio code: every sample, in completion order."""
    return await asyncio.to_thread(
        lambda: list(score_samples(scorers, list(items), engine, probe=probe)))
