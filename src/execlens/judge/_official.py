"""Official scoring: CRUXEval's and LiveCodeBench's scorers, quirks included.

Both official scripts paste the model's answer into source and execute
``<code>\\nassert <reference output> == <answer>`` for 3 s; a check passes when that
raises nothing.  Here the same source runs in the engine, split as program = the code
and call = the assert statement (same namespace, same order, same result), so the
generations of one sample can share a forked child.

Quirks reproduced on purpose:

* CRUXEval input mode skips an answer lacking the substring ``f(``; output mode skips
  one containing the exact substring ``f(<input>)``.  Skips are *not recorded*, so the
  pass@k denominator shrinks -- unless no check passed, in which case the list becomes
  ``[False] * len(generations)``.
* LiveCodeBench skips an answer containing the input call string, and resets to
  ``[False] * len(generations)`` only when *nothing* was executed.
* Equality is Python ``==`` between the reference literal and whatever the answer
  evaluates to, in the child: ``[] or True``, an always-equal object, ``1.0 == 1``...
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from execlens.engine._types import Job, Limits
from execlens.judge._limits import JUDGE_LIMITS
from execlens.judge._outcomes import failure_verdict
from execlens.judge._problem import ExecProblem
from execlens.judge._scoring import SampleScore, ScorePlan
from execlens.judge._verdict import Verdict, VerdictStatus

if TYPE_CHECKING:
    from execlens.engine import Outcome

__all__ = [
    "LCB_PRELUDE",
    "CruxEvalOfficialScorer",
    "LCBOfficialScorer",
    "cruxeval_mode_from_path",
    "official_check_verdict",
]

TASKS = ("input", "output")


def _lcb_prelude() -> str:
    """LiveCodeBench's import block: the names its checks see, bound the same way.

    Its scorer prepends a fixed block of imports to every check (including numpy and
    pandas: without either, every check fails).  What matters is the final binding of
    each name; note ``bisect`` ends up as the *module*, not the function.
    """
    from_imports = {
        "itertools": "accumulate chain combinations count cycle groupby islice permutations "
                     "product repeat zip_longest",
        "copy": "deepcopy",
        "string": "ascii_lowercase",
        "math": "ceil comb floor gcd inf isqrt log log10 log2 prod sqrt",
        "collections": "Counter OrderedDict defaultdict deque",
        "bisect": "bisect bisect_left bisect_right insort",
        "heapq": "heapify heappop heappush merge",
        "functools": "cache lru_cache partial reduce",
        "random": "randrange shuffle",
        "operator": "iand itemgetter sub",
        "os.path": "commonprefix",
        "typing": "Any Callable Dict Generator Iterable Iterator List Optional Set Tuple Union",
    }
    modules = ("bisect collections copy functools heapq itertools math operator random re "
               "string sys")
    lines = [f"from {module} import {', '.join(names.split())}"
             for module, names in from_imports.items()]
    lines.append("from re import search as re_search")
    lines.extend(f"import {module}" for module in modules.split())  # after: bisect = module
    lines.extend(["import numpy as np", "import pandas as pd"])
    return "\n".join(lines) + "\n"


LCB_PRELUDE = _lcb_prelude()


def cruxeval_mode_from_path(path: str) -> str:
    """The task CRUXEval's script scores a file as: ``input`` if the path says so.

    The official script ignores ``--mode`` and checks whether the substring ``input``
    occurs anywhere in the generations path; otherwise it scores output prediction.
    """
    return "input" if "input" in str(path) else "output"


def official_check_verdict(outcome: Outcome) -> Verdict:
    """The verdict for one executed ``assert <output> == <answer>`` check."""
    if outcome.ok:
        return Verdict.passing()
    if outcome.exception is not None and outcome.exception.type == "AssertionError":
        return Verdict.failing(VerdictStatus.WRONG, "assertion",
                               "the assertion `<output> == <answer>` failed")
    return failure_verdict(outcome)


def _check_job(problem: ExecProblem, generation: str, limits: Limits) -> Job:
    # The official source is f"{code}\nassert {output} == {generation}"; the call runs
    # in the program's namespace right after it, so splitting changes nothing.
    return Job(program=problem.program, call=f"assert {problem.output} == {generation}",
               limits=limits)


class _OfficialBase:
    name = "official"
    limits: Limits

    def _skip(self, problem: ExecProblem, generation: str) -> str | None:
        raise NotImplementedError

    def _reset(self, executed: list[bool], total: int) -> list[bool]:
        raise NotImplementedError

    def _problem(self, problem: ExecProblem) -> ExecProblem:
        return problem

    def plan(self, problem: ExecProblem, generations: Sequence[str]) -> ScorePlan:
        """Checks for every generation the official filter keeps."""
        problem = self._problem(problem)
        gens = list(generations)
        skips = [self._skip(problem, g) for g in gens]
        run_at = [i for i, skip in enumerate(skips) if skip is None]
        jobs = [_check_job(problem, gens[i], self.limits) for i in run_at]

        def finish(outcomes: Sequence[Outcome]) -> SampleScore:
            if len(outcomes) != len(jobs):
                raise ValueError(f"expected {len(jobs)} outcomes, got {len(outcomes)}")
            verdicts: list[Verdict] = []
            executed: list[bool] = []
            by_index = dict(zip(run_at, outcomes))
            for i, skip in enumerate(skips):
                if skip is not None:
                    verdicts.append(Verdict.failing(VerdictStatus.SKIPPED, "filter", skip))
                    continue
                verdict = official_check_verdict(by_index[i])
                verdicts.append(verdict)
                executed.append(verdict.passed)
            scored = self._reset(executed, len(gens))
            return SampleScore(problem.id, self.name, verdicts, scored,
                               info={"skipped": len(gens) - len(run_at)})

        return ScorePlan(jobs, finish)


class CruxEvalOfficialScorer(_OfficialBase):
    """CRUXEval's ``evaluate_generations.py`` scoring for ``task`` ``input`` or ``output``."""

    def __init__(self, task: str, *, limits: Limits = JUDGE_LIMITS) -> None:
        if task not in TASKS:
            raise ValueError(f"task must be 'input' or 'output', got {task!r}")
        self.task = task
        self.limits = limits

    def _skip(self, problem: ExecProblem, generation: str) -> str | None:
        if self.task == "input" and "f(" not in generation:
            return "input mode: the answer lacks the substring 'f('"
        if self.task == "output" and f"f({problem.input})" in generation:
            return "output mode: the answer contains the reference call 'f(<input>)'"
        return None

    def _reset(self, executed: list[bool], total: int) -> list[bool]:
        # Only a list without any True is replaced (by one of full length).
        return executed if True in executed else [False] * total


class LCBOfficialScorer(_OfficialBase):
    """LiveCodeBench code-execution scoring (output prediction, import block prepended)."""

    task = "output"

    def __init__(self, *, limits: Limits = JUDGE_LIMITS, prelude: str = LCB_PRELUDE) -> None:
        self.limits = limits
        self.prelude = prelude

    def _problem(self, problem: ExecProblem) -> ExecProblem:
        if problem.prelude == self.prelude:
            return problem
        return ExecProblem(problem.id, problem.code, problem.input, problem.output,
                           problem.function_name, problem.input_is_call, self.prelude)

    def _skip(self, problem: ExecProblem, generation: str) -> str | None:
        if problem.call_text in generation:
            return "the answer contains the input call"
        return None

    def _reset(self, executed: list[bool], total: int) -> list[bool]:
        # Unlike CRUXEval: reset only when nothing ran at all.
        return executed if executed else [False] * total
