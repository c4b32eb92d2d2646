"""``--perturb`` for REval: the questions follow their lines into the perturbed program.

Each problem is perturbed once (every item of it sees the same program): renaming keeps
the names its questions' variables are spelled with (and keyword names its calls and
tests spell), so a state question asks about the same variable; each question's line is
mapped (``execlens.tasks.perturb``'s line map) and a question whose line is no line of
its own after a kind is dropped under that kind.

The truth of a perturbed problem is REval's own (:func:`build_reval_truth`, both modes:
the frame-blind tracer for ``official``, the exact one for ``strict``), traced on the
perturbed program at the mapped lines, and it must equal the original's for every item
kept: under each mode whether the line ran, the variable's accepted values after it and
how the run ended, and the strict output truth (each ``??``'s values; leakage flags are
metadata, not truth).  The next line after a line is not compared: code inserted after
it (dead code, prints) runs in between, so the perturbed run's own next lines are the
truth the path question is judged against (how many moved is counted).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlens.bench import Observed, TracedTarget, Variant
from execlens.tasks.perturb import protected_names, spelled_names

from ._data import RevalItem, RevalPair, RevalProblem
from ._plan import REVAL_MODES
from ._truth import RevalTruth, build_reval_truth

if TYPE_CHECKING:
    from execlens.engine import Engine

__all__ = ["RevalPerturbation"]


def _protected(problem: RevalProblem) -> frozenset[str]:
    """Names a rename of ``problem`` must keep: every identifier its questions' variables
    spell (``self.total``, ``counts[key]``) and the keyword names its calls and tests use."""
    asked = spelled_names(question.var for pair in problem.pairs for question in pair.questions)
    outside = [f"{problem.entry_point}{text.strip()}" for text in problem.inputs]
    if problem.test:
        outside.append(problem.test)
    return asked | protected_names(outside)


def _restrict(truth: RevalTruth, task_id: str) -> RevalTruth:
    """The part of ``truth`` about one problem."""
    prefix = f"{task_id}/"

    def own(table: Mapping[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in table.items() if key.startswith(prefix)}

    return RevalTruth(
        mode=truth.mode,
        questions=own(truth.questions),
        outputs=own(truth.outputs),
        skipped=own(truth.skipped),
        notes=own(truth.notes),
        lines=own(truth.lines),
        key=truth.key,
    )


def _output_fact(truth: RevalTruth, pair_id: str) -> Any:
    """The strict output truth of a pair without its leakage flags (a docstring re-quoted
    by a rewrite may show the call differently; what each mask's values are may not move)."""
    output = truth.outputs.get(pair_id)
    if output is None:
        return None
    masks = [{k: v for k, v in mask.to_dict().items() if k != "leak"} for mask in output.masks]
    return {"masks": masks, "error": output.error}


class RevalPerturbation:
    """REval's observer for the ``--perturb`` runner (one per planned run).

    It keeps every problem variant it built and traced, so the truth of the kept
    programs is handed to the benchmark (:meth:`truths`) without tracing them again.
    """

    def __init__(self, cache_dir: Path | None = None) -> None:
        self.cache_dir = cache_dir
        self._problems: dict[tuple[str, str], RevalProblem] = {}
        self._truths: dict[tuple[str, str], dict[str, RevalTruth]] = {}

    def target(self, item: RevalItem) -> TracedTarget:
        """The item as the runner perturbs it: its problem's code, its line if it asks one."""
        lines = () if item.question is None else (item.question.lineno,)
        return TracedTarget(item.problem.code, item, self, lines, _protected(item.problem))

    def _problem(self, variant: Variant) -> RevalProblem:
        """The problem ``variant`` runs: the perturbed code, every question's line mapped
        (0 for a line that did not survive: such a question is never asked)."""
        problem: RevalProblem = variant.target.item.problem
        if variant.lines is None:
            return problem
        key = (problem.task_id, variant.source)
        if key not in self._problems:
            lines = variant.lines
            pairs = tuple(
                replace(
                    pair,
                    questions=tuple(
                        replace(question, lineno=lines.get(question.lineno, 0))
                        for question in pair.questions
                    ),
                )
                for pair in problem.pairs
            )
            self._problems[key] = replace(problem, code=variant.source, pairs=pairs)
        return self._problems[key]

    def _trace(self, problems: Sequence[RevalProblem], engine: Engine) -> None:
        """Build the truth of every problem not yet traced (both modes); one build per
        layer of distinct task ids (the truth is keyed by them)."""
        layers: list[list[RevalProblem]] = []
        for problem in problems:
            key = (problem.task_id, problem.code)
            if key in self._truths:
                continue
            self._truths[key] = {}
            layer = next(
                (layer for layer in layers if all(p.task_id != problem.task_id for p in layer)),
                None,
            )
            if layer is None:
                layers.append(layer := [])
            layer.append(problem)
        for layer in layers:
            built = build_reval_truth(layer, engine, REVAL_MODES, cache_dir=self.cache_dir)
            for problem in layer:
                self._truths[(problem.task_id, problem.code)] = {
                    mode: _restrict(truth, problem.task_id) for mode, truth in built.items()
                }

    def observe(self, variants: Sequence[Variant], engine: Engine) -> list[Observed | str]:
        """Each variant's REval truth for its item (see the module docstring)."""
        problems = [self._problem(variant) for variant in variants]
        self._trace(problems, engine)
        return [self._observed(variant, problem) for variant, problem in zip(variants, problems)]

    def _observed(self, variant: Variant, problem: RevalProblem) -> Observed | str:
        item: RevalItem = variant.target.item
        truths = self._truths[(problem.task_id, problem.code)]
        pair_id = item.pair.sample_id
        facts: dict[str, Any] = {"output": _output_fact(truths["strict"], pair_id)}
        relaid: dict[str, Any] = {}
        for mode in REVAL_MODES:
            truth = truths[mode]
            if pair_id in truth.skipped:
                return f"{mode}: {truth.skipped[pair_id]}"
            facts[f"{mode}.run"] = truth.notes.get(pair_id, "")
            if item.question is None:
                continue
            question = truth.questions[f"{pair_id}/{item.index}"]
            facts[f"{mode}.coverage"] = question.covered
            facts[f"{mode}.state"] = list(question.state)
            relaid[f"{mode}.path"] = frozenset(
                line if line == -1 else variant.original_line(line) for line in question.next_lines
            )
        return Observed(facts, relaid, problem)

    def rebuild(self, variant: Variant, observed: Observed) -> RevalItem:
        """The item asked about the perturbed problem (its question's line mapped)."""
        item: RevalItem = variant.target.item
        problem: RevalProblem = observed.payload
        pair: RevalPair = problem.pairs[item.problem.pairs.index(item.pair)]
        question = None if item.question is None else pair.questions[item.index]
        return RevalItem(problem, pair, item.index, question)

    def truths(self, problems: Sequence[RevalProblem]) -> dict[str, RevalTruth]:
        """Per mode, the truth of ``problems`` (variants this observer traced)."""
        out = {mode: RevalTruth(mode=mode) for mode in REVAL_MODES}
        for problem in problems:
            for mode, truth in self._truths[(problem.task_id, problem.code)].items():
                merged = out[mode]
                merged.questions.update(truth.questions)
                merged.outputs.update(truth.outputs)
                merged.skipped.update(truth.skipped)
                merged.notes.update(truth.notes)
                merged.lines.update(truth.lines)
        return out
