"""``trace``: the lines a call executes, in order.  (CoCoNUT's question; see
``execlens.tasks._fulltrace`` for what a step is.)"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from execlens.tasks.kinds._base import KindBase
from execlens.tasks.kinds._protocol import Example
from execlens.tasks.kinds._wording import run_phrase

if TYPE_CHECKING:
    from execlens.tasks._model import Task
    from execlens.tasks._sources import RuntimeProgram
    from execlens.tasks.prompts import Extraction

__all__ = ["TraceKind"]


class TraceKind(KindBase):
    """``reference``: the 1-indexed executed lines, in order.  Asked only when named (one
    long answer per run); a wrong answer earns its common-prefix step credit."""

    name = "trace"
    scope = "run"
    default = False
    numbering = "suffix"
    answer_form = (
        "the numbers of the executed lines in execution order as a Python list (a "
        "called function's def line is not listed; a loop header is listed each time "
        "it is tested, the last test included)",
        "[2, 3, 2, 4]",
    )
    judge_rule = "trace"
    partial_credit = True
    max_tokens = (4096, 8192)
    description = "the executed line numbers of the call, in order (numbered program)"
    example = Example(
        program="def f(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i",
        call="f(2)",
        reference=[2, 3, 4, 3, 4, 3, 5],
        thought=(
            "i = 0 (2); the loop test runs (3), i becomes 1 (4), the test again (3), i "
            "becomes 2 (4), the test fails (3); return i (5)."
        ),
        answer="[2, 3, 4, 3, 4, 3, 5]",
    )

    def validate(self, task: Task) -> None:
        """The reference is a list of line numbers."""
        from execlens.tasks._model import TaskError

        reference = task.reference
        if not isinstance(reference, (list, tuple)) or not all(type(n) is int for n in reference):
            raise TaskError("a trace task's reference is the list of executed line numbers")

    def run_reference(self, program: RuntimeProgram, trace: Any) -> Any | None:
        """The exact tracer's steps; none for a unittest driver (its test code is another
        file's lines), a frame-blind trace, or a cut-short or too long run."""
        from execlens.tasks._fulltrace import trace_reference

        if program.test is not None or trace.mode != "exact":
            return None
        return trace_reference(trace)

    def question(self, task: Task) -> str:
        """The executed lines, in order."""
        return (
            f"When {run_phrase(task)} runs, which lines are executed, in order? Each line "
            f"ends with its number as a comment (`# N`)."
        )

    def answer_text(self, task: Task) -> str:
        """The list, as Python writes it."""
        return "[" + ", ".join(str(int(n)) for n in task.reference) + "]"

    def read_answer(self, block: str, how: list[str]) -> Extraction:
        """The block's list (however it wraps), else its last bracketed list."""
        from execlens.tasks.kinds._readers import line_list

        return line_list(block, how)

    def well_formed(self, task: Task, answer: str) -> bool:
        """Any non-empty answer (the judge parses the list)."""
        return True

    def explain(self, task: Task, run: str) -> Mapping[str, Any]:
        """The list and its size."""
        steps = [int(n) for n in task.reference or ()]
        return {
            "question": f"the lines executed when {run} runs, in order",
            "expected": "[" + ", ".join(map(str, steps)) + "]",
            "true_value": f"{len(steps)} steps over {len(set(steps))} distinct lines",
        }


KIND = TraceKind()
