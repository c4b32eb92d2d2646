"""What a perfect model answers a runtime-benchmark item: the oracle both the eval and the
``--perturb`` tests ask through the stand-in server."""

from __future__ import annotations

from execlens.bench.runtime import RuntimeItem
from execlens.values import decode, literal_text


def truth_answer(item: RuntimeItem, *, path_as_number: bool = False) -> str | None:
    """The right answer to ``item`` (None where the truth has no literal).

    A next-line answer is the line's text, as the prompt asks, or with ``path_as_number``
    its number (after inserting perturbations a line's text may repeat elsewhere)."""
    task = item.task
    if task.kind == "coverage":
        return "YES" if task.reference else "NO"
    if task.kind == "path":
        line = task.reference[0]
        if path_as_number:
            return str(line)
        return "-1" if line == -1 else task.program.splitlines()[line - 1].strip()
    if task.kind == "state":
        values = [e for e in task.reference if e.get("__type__") != "Nil"]
        return "Nil" if not values else literal_text(decode(dict(values[0])))
    if task.kind == "output":
        if task.reference["status"] != "ok":
            return str(task.reference["exception"])
        text = literal_text(decode(dict(task.reference["value"])))
        return None if text is None else f"assert {task.call} == {text}"
    return f"assert {task.call} == {item.output_text}"
