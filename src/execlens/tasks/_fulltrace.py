"""Full-trace prediction: the ordered list of lines a call executes (CoCoNUT's question).

The question shows the program with every physical line suffixed ``  # N`` (1-indexed,
blank, import and docstring lines included: CoCoNUT's numbering) and asks for the
executed line numbers in order.  The ground truth is the ``exact`` tracer's step
sequence (``execlens.trace``), 1-indexed:

* only the program's own frames; the ``def`` line of a called function is not a step
  (CoCoNUT: "function signatures are not listed"), nor is module-level code (the
  definitions run before the traced call);
* a loop header is a step each time it is tested, the failing test on exit included
  (``[2, 3, 2, 3, 2, 4]``), as ``sys.settrace`` line events give it;
* a recursive call's lines follow the calling line, each frame's steps its own; a
  return into a caller adds no step for the calling line (no new line event).

Where this differs from CoCoNUT's ``sys.settrace`` ground truth (both documented in
docs and tests):

* **comprehensions and lambdas** are folded into the line that runs them: one step for
  ``return [x for x in xs]``, where settrace repeats the line once per iteration
  (``[18, 18, 18, 18, 18]``) -- what CoCoNUT's ``NoReps`` variant collapses anyway;
* **multi-line statements** are one step at their first line; settrace also reports
  continuation lines it evaluates (``ys)`` of a call split over two lines).

A run that was cut short (``trace.truncated``) has no full trace and yields no task;
neither does a run longer than :data:`MAX_TRACE_STEPS` steps (CoCoNUT's longest is
806), nor a unittest-driven run (its test code is another file's lines).
"""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_TRACE_STEPS", "executed_lines", "numbered_program", "trace_reference"]

#: The longest trace asked about: a longer answer is a test of patience, not reasoning.
MAX_TRACE_STEPS = 1000


def numbered_program(program: str, *, start: int = 1) -> str:
    """``program`` with every physical line suffixed ``  # N`` (CoCoNUT's numbering).

    The numbered text is shown, never run: a suffix inside a multi-line string changes
    what the string holds, and after a ``\\`` continuation it breaks the syntax.
    """
    return "\n".join(f"{line}  # {n}" for n, line in enumerate(program.splitlines(), start))


def executed_lines(trace: Any) -> list[int]:
    """The 1-indexed line of every step of an ``exact``-mode ``trace``, in order.

    Raises ``ValueError`` for a ``reval``-mode trace: REval's tracer merges steps across
    frames and adds return states, so its sequence is not the executed lines.
    """
    if getattr(trace, "mode", "exact") != "exact":
        raise ValueError(f"a full trace needs an exact-mode trace, not {trace.mode!r}")
    return [int(line) + 1 for line in trace.lines]


def trace_reference(trace: Any, *, max_steps: int = MAX_TRACE_STEPS) -> list[int] | None:
    """The full-trace ground truth of ``trace``, or None when it has none to ask (nothing
    recorded, cut short by a recording cap, empty, or longer than ``max_steps``)."""
    if not trace.recorded or trace.truncated:
        return None
    lines = executed_lines(trace)
    if not lines or len(lines) > max_steps:
        return None
    return lines
