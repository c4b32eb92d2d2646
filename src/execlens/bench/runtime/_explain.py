"""The expected answer and the run's facts of one runtime question, for the report.

Each kind writes its own part (``execlens.tasks.kinds``: ``explain``).

The answer is written as :func:`extract_runtime` reads one (what the judges compare):
``YES``/``NO``, the next line's code (or ``-1``), ``value; type`` (or ``Nil``), the
output literal (or the exception's class name), an input call, the executed-line list.  The
truth is the
question's own (``RuntimeTask.reference``, traced); the executed lines come from the
traced runs :meth:`RuntimeBenchmark.prepare` returned.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from execlens.tasks.kinds import get_kind

from ._items import RuntimeItem
from ._truth import run_key

__all__ = ["explain_runtime"]


def explain_runtime(item: RuntimeItem, context: Any) -> dict[str, Any]:
    """The report's view of ``item``: expected answer, program, asked line, executed lines
    (the question, expected answer and true value are its kind's ``explain``).

    ``context`` is what ``prepare`` returned (a ``RuntimeTruth``: the traced task of each
    question and the executed lines of each run); the item's own task stands in when it
    is not there.
    """
    task = context.get(item.sample_id, item.task) if isinstance(context, Mapping) else item.task
    run = task.call or f"the test class {task.test_class}"
    out: dict[str, Any] = {"expected": None, "program": task.program, "run": run}
    executed = getattr(context, "executed", None)
    if isinstance(executed, Mapping):
        lines = executed.get(run_key(task.problem_id, task.input_index))
        if lines is not None:
            out["executed_lines"] = list(lines)
    out.update(get_kind(task.kind).explain(task, run))
    return out
