"""REval's inputs as runtime programs (``execlens.tasks.RuntimeProgram``), from the one
dataset model: what ``tasks build`` traces to make coverage/path/state/output tasks.

The ClassEval rule is REval's (:func:`classeval_test_classes`, via ``RevalProblem.tests``),
the skip reason the loader's; ``questions`` are the pair's (line, var) questions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from execlens.tasks import RuntimeProgram

from ._data import RevalProblem, load_reval_problems

__all__ = ["reval_programs"]


def _programs(problem: RevalProblem, with_questions: bool) -> list[RuntimeProgram]:
    pairs = {pair.input_idx: pair for pair in problem.pairs}
    out = []
    for run in problem.runs:
        pair = pairs.get(run.index)
        meta: list[tuple[str, Any]] = [("input", run.text)]
        if run.expected_output is not None:
            meta.append(("expected_output", run.expected_output))
        if pair is not None:
            meta.append(("output_pred", pair.output_pred))
        questions = None
        if with_questions and pair is not None:
            questions = tuple((q.lineno, q.var) for q in pair.questions)
        out.append(RuntimeProgram(
            source="reval", problem_id=problem.task_id, input_index=run.index,
            program=problem.code, call=run.call,
            test=problem.test if run.test_class else None, test_class=run.test_class,
            test_method=run.test_method, questions=questions,
            skip_reason=problem.skip_reason, meta=tuple(meta)))
    return out


def reval_programs(data: str | Path, with_questions: bool = True) -> list[RuntimeProgram]:
    """Every DREval input as a runtime program, in dataset order; raises ``RevalDataError``
    naming the file and record of malformed data."""
    return [program for problem in load_reval_problems(data)
            for program in _programs(problem, with_questions)]
