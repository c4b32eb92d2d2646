"""Ground truth recomputed: each pair's method and test run under our tracer.

The program is the method the prompt showed followed by the test (``def test(): ...``),
and the traced call is ``test()``.  The core builds and caches the run
(:func:`truth_task`: a ``trace`` task whose reference is a ``tasks.TruthRun`` with a
coverage capture, run by ``bench.build_truths`` and kept in the one ``bench.TruthCache``);
this folder only turns the lines that ran into CoverageEval's labels
(:func:`traced_coverage`).  The method's top-level statements (its ``def`` lines) run
when the module loads, before the traced call, so they count as executed -- as
coverage.py, which measured the import too, counts them.  The executed lines go through
:func:`coverage_labels` (``coverage annotate``'s rules); on the 1,160 shipped tests this
equals the published labels everywhere (a test checks it).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._data import CoverageEvalTest
from ._labels import branch_mask, coverage_labels

if TYPE_CHECKING:
    from execlens.engine import Engine
    from execlens.tasks import Task

__all__ = ["TracedCoverage", "program_of", "trace_coverage", "traced_coverage", "truth_task"]


@dataclass(frozen=True)
class TracedCoverage:
    """One pair's traced truth.

    ``labels`` and ``branch`` are None when the run recorded nothing (``status`` says
    why: a timeout, a crash); a test that raises (HumanEval's free variables, a failing
    assertion) still has labels: the lines that ran before it raised.
    """

    test_id: str
    status: str
    """``ok`` when the run recorded its lines, else why it has no truth."""
    executed: tuple[int, ...]
    labels: tuple[str, ...] | None
    branch: tuple[bool, ...] | None


def program_of(item: CoverageEvalTest) -> str:
    """The traced program: the shown method, then the test function."""
    return f"{item.shown_method}\n{item.test}\n"


def truth_task(item: CoverageEvalTest) -> Task:
    """The core's task whose built truth is the lines ``test()`` runs in
    :func:`program_of` (one run, hash seed 0: the engine's default)."""
    from execlens.tasks import Task, TruthRun

    return Task(
        "trace",
        program_of(item),
        TruthRun(coverage=True),
        call="test()",
        id=item.sample_id,
    )


def traced_coverage(item: CoverageEvalTest, truth: Any) -> TracedCoverage:
    """The labels of ``item``'s method given the built truth of :func:`truth_task` (the
    lines that ran, or a ``tasks.NoTruth``)."""
    from execlens.tasks import NoTruth

    if isinstance(truth, NoTruth):
        return TracedCoverage(item.test_id, truth.reason, (), None, None)
    method = item.shown_method
    count = method.count("\n") + 1
    executed = {int(line) for line in truth if 1 <= int(line) <= count}
    executed.update(node.lineno for node in ast.parse(method).body)  # ran at import
    return TracedCoverage(
        item.test_id,
        "ok",
        tuple(sorted(executed)),
        tuple(coverage_labels(method, executed)),
        tuple(branch_mask(method)),
    )


def trace_coverage(
    items: Sequence[CoverageEvalTest], engine: Engine | None = None
) -> dict[str, TracedCoverage]:
    """``{test id: TracedCoverage}`` for ``items``: their truth built (or read from the
    truth cache) by ``bench.build_truths`` in ``engine`` (a tracing engine of two servers
    is started when none is given and something is not cached)."""
    from execlens.bench import build_truths

    built = build_truths([truth_task(item) for item in items], engine)
    return {item.test_id: traced_coverage(item, task.reference) for item, task in zip(items, built)}
