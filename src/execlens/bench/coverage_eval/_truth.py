"""Ground truth recomputed: each pair's method and test run under our tracer.

The program is the method the prompt showed followed by the test (``def test(): ...``),
and the traced call is ``test()``.  The method's top-level statements (its ``def``
lines) run when the module loads, before the traced call, so they count as executed --
as coverage.py, which measured the import too, counts them.  The executed lines go
through :func:`coverage_labels` (``coverage annotate``'s rules); on the 1,160 shipped
tests this equals the published labels everywhere (a test checks it).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._data import CoverageEvalTest
from ._labels import branch_mask, coverage_labels

if TYPE_CHECKING:
    from execlens.engine import Engine

__all__ = ["TracedCoverage", "program_of", "trace_coverage"]


@dataclass(frozen=True)
class TracedCoverage:
    """One pair's traced truth.

    ``labels`` and ``branch`` are None when the run recorded nothing (``status`` says
    why: a timeout, a crash); a test that raises (HumanEval's free variables, a failing
    assertion) still has labels: the lines that ran before it raised.
    """

    test_id: str
    status: str
    executed: tuple[int, ...]
    labels: tuple[str, ...] | None
    branch: tuple[bool, ...] | None
    exception: str | None = None


def program_of(item: CoverageEvalTest) -> str:
    """The traced program: the shown method, then the test function."""
    return f"{item.shown_method}\n{item.test}\n"


def trace_coverage(
    items: Sequence[CoverageEvalTest], engine: Engine | None = None
) -> dict[str, TracedCoverage]:
    """``{test id: TracedCoverage}`` for ``items``, traced in ``engine`` (a tracing engine
    of two servers is started when none is given)."""
    from execlens.trace import TraceRequest, trace_engine, trace_many

    requests = [
        TraceRequest(program=program_of(item), call="test()", capture="coverage", tag=index)
        for index, item in enumerate(items)
    ]
    if engine is None:
        with trace_engine(workers=2) as own:
            traces = list(trace_many(own, requests))
    else:
        traces = list(trace_many(engine, requests))
    out: dict[str, TracedCoverage] = {}
    for trace in traces:
        item = items[int(trace.tag)]
        if not trace.recorded:
            out[item.test_id] = TracedCoverage(
                item.test_id, trace.status, (), None, None, trace.message or trace.status
            )
            continue
        method = item.shown_method
        count = method.count("\n") + 1
        executed = {line for line in range(1, count + 1) if trace.covered(line)}
        executed.update(node.lineno for node in ast.parse(method).body)  # ran at import
        out[item.test_id] = TracedCoverage(
            item.test_id,
            trace.status,
            tuple(sorted(executed)),
            tuple(coverage_labels(method, executed)),
            tuple(branch_mask(method)),
            trace.exception_type,
        )
    return out
