"""The expected answer and the run's facts of one runtime question, for the report.

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

from execlens.values import decode, envelope_type_key, literal_text

from ._items import RuntimeItem
from ._truth import run_key

__all__ = ["explain_runtime"]


def _literal(envelope: Any) -> str | None:
    if not isinstance(envelope, Mapping):
        return None
    try:
        return literal_text(decode(dict(envelope)))
    except (ValueError, TypeError, KeyError):
        return None


def _type_name(envelope: Mapping[str, Any]) -> str:
    module, name = envelope_type_key(envelope)
    return name if module in (None, "builtins") else f"{module}.{name}"


def _state(reference: Any) -> tuple[str, str]:
    """(expected answer, every accepted value) of a state question."""
    values = [
        e
        for e in reference or ()
        if isinstance(e, Mapping) and (e.get("__type__") != "Nil" or "__value__" in e)
    ]
    if not values:
        return "Nil", "Nil (the line never ran, or the variable has no value after it)"
    texts = [(_literal(e), _type_name(e)) for e in values]
    shown = " | ".join(
        f"{text}; {kind}" if text is not None else f"<{kind} without a literal>"
        for text, kind in texts
    )
    expected = next((f"{text}; {kind}" for text, kind in texts if text is not None), None)
    return expected or shown, shown


def _line(program: str, line: int) -> str:
    lines = program.splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def explain_runtime(item: RuntimeItem, context: Any) -> dict[str, Any]:
    """The report's view of ``item``: expected answer, program, asked line, executed lines.

    ``context`` is what ``prepare`` returned (a ``RuntimeTruth``: the traced task of each
    question and the executed lines of each run); the item's own task stands in when it
    is not there.
    """
    task = context.get(item.sample_id, item.task) if isinstance(context, Mapping) else item.task
    reference = task.reference
    run = task.call or f"the test class {task.test_class}"
    out: dict[str, Any] = {"expected": None, "program": task.program, "run": run}
    executed = getattr(context, "executed", None)
    if isinstance(executed, Mapping):
        lines = executed.get(run_key(task.problem_id, task.input_index))
        if lines is not None:
            out["executed_lines"] = list(lines)
    kind = task.kind
    if kind in ("coverage", "path", "state"):
        line = int(task.line or 0)
        out["asked_line"] = line
        if kind == "coverage":
            out["question"] = f"is line {line} executed when {run} runs?"
            out["expected"] = "YES" if reference else "NO"
            out["true_value"] = f"line {line} {'ran' if reference else 'never ran'}"
        elif kind == "path":
            out["question"] = f"which line runs right after line {line} when {run} runs?"
            following = [int(n) for n in reference or (-1,)]
            out["expected"] = next(
                (_line(task.program, n) for n in following if n != -1 and _line(task.program, n)),
                "-1",
            )
            out["true_value"] = "; ".join(
                "-1: nothing runs after it" if n == -1 else f"line {n}: {_line(task.program, n)}"
                for n in following
            )
        else:
            out["question"] = f"the value and type of {task.var} after line {line} when {run} runs"
            out["expected"], out["true_value"] = _state(reference)
        return out
    if kind == "trace":
        steps = [int(n) for n in reference or ()]
        out["question"] = f"the lines executed when {run} runs, in order"
        out["expected"] = "[" + ", ".join(map(str, steps)) + "]"  # the shared answer form
        out["true_value"] = f"{len(steps)} steps over {len(set(steps))} distinct lines"
        return out
    reference = reference if isinstance(reference, Mapping) else {}
    if kind == "output":
        out["question"] = f"the output of {run}"
        value = _literal(reference.get("value"))
        if reference.get("status") == "ok" and value is not None:
            out["expected"] = out["true_value"] = value
        elif reference.get("exception"):
            out["expected"] = str(reference["exception"])
            out["true_value"] = f"raises {reference['exception']}"
        return out
    # input: any call returning the output passes; the run's own call is one of them.
    out["question"] = f"an input such that {item.function}(??) == {item.output_text}"
    out["expected"] = task.call
    out["true_value"] = item.output_text
    return out
