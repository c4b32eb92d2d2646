"""``path``: which line runs right after a line?  (REval's second question.)"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from execlens.tasks.kinds._base import KindBase
from execlens.tasks.kinds._protocol import Example
from execlens.tasks.kinds._wording import run_phrase

if TYPE_CHECKING:
    from execlens.tasks._model import Task
    from execlens.tasks.prompts import Extraction

__all__ = ["PathKind"]


def _line(program: str, line: int) -> str:
    lines = program.splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


class PathKind(KindBase):
    """``reference``: the sorted lines that may run next (any is right; ``-1``: none)."""

    name = "path"
    scope = "site"
    default = True
    executed_only = True
    needs_line = True
    numbering = "prefix"
    answer_form = ("the number of the line executed next (-1 if no line runs after it)", "7")
    judge_rule = "path"
    description = "which line runs right after line N?"
    example = Example(
        program="def f(x):\n    y = x + 1\n    if y > 2:\n        return y\n    return 0",
        call="f(5)",
        line=2,
        reference=[3],
        thought="y = 6 after line 2; the next line to run is the test of the if statement.",
        answer="3",
    )

    def site_reference(self, trace: Any, line: int, var: str | None) -> Any:
        """The lines that ran right after it; ``[-1]`` for a line that never ran (REval
        accepts -1 there)."""
        return sorted(trace.next_lines(line)) or [-1]

    def question(self, task: Task) -> str:
        """Which line runs next?"""
        return f"When {run_phrase(task)} runs, which line is executed right after line {task.line}?"

    def answer_text(self, task: Task) -> str:
        """The first accepted line's number."""
        return str(int(list(task.reference)[0]))

    def read_answer(self, block: str, how: list[str]) -> Extraction:
        """The first line, backticks removed (a line's code is accepted too)."""
        from execlens.tasks.prompts import Extraction

        text = next((line.strip() for line in block.splitlines() if line.strip()), "")
        return Extraction(text.strip("`").strip(), (*how, "first line"))

    def well_formed(self, task: Task, answer: str) -> bool:
        """A line number, or the text of one of the program's lines."""
        return bool(re.fullmatch(r"[+-]?\d+", answer)) or any(
            line.strip() == answer for line in task.program.splitlines()
        )

    def explain(self, task: Task, run: str) -> Mapping[str, Any]:
        """The next line's code and every accepted line."""
        line = int(task.line or 0)
        following = [int(n) for n in task.reference or (-1,)]
        expected = next(
            (_line(task.program, n) for n in following if n != -1 and _line(task.program, n)),
            "-1",
        )
        true_value = "; ".join(
            "-1: nothing runs after it" if n == -1 else f"line {n}: {_line(task.program, n)}"
            for n in following
        )
        return {
            "asked_line": line,
            "question": f"which line runs right after line {line} when {run} runs?",
            "expected": expected,
            "true_value": true_value,
        }


KIND = PathKind()
