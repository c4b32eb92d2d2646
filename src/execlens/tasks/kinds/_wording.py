"""The one prompt every consumer asks a task with, and the kinds' shared phrasing.

:func:`task_prompt` is the user turn of synthesis' ``runtime-tasks`` records (SFT) and of
the rewards' exported prompts (GRPO, TRL and verl): the program as the kind shows it, the
kind's question, and how to answer.  The runtime benchmark frames the same question and
the same shown program in its own ``[PYTHON]``/``[QUESTION]`` template.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from execlens.tasks._model import Task

__all__ = ["LINE_NOTE", "numbered_lines", "run_phrase", "task_prompt"]

#: What a prefix-numbered program says above itself.
LINE_NOTE = "Lines are numbered from 1.\n"


def numbered_lines(program: str) -> str:
    """``program`` with each line's 1-indexed number in front, right-aligned."""
    lines = program.splitlines()
    width = len(str(len(lines)))
    return "\n".join(f"{n:>{width}} {line}" for n, line in enumerate(lines, 1))


def run_phrase(task: Task) -> str:
    """How a question names the run: the call in backticks, or the unittest driver."""
    if task.call:
        return f"`{task.call}`"
    if task.test_class:
        return f"the test class {task.test_class} above"
    return "the program"


def task_prompt(task: Task) -> str:
    """The user turn asking ``task``: the shown program, the question, the answer form."""
    from execlens.tasks.kinds._registry import get_kind
    from execlens.tasks.prompts import answer_instruction

    kind = get_kind(task.kind)
    note = LINE_NOTE if kind.numbering == "prefix" else ""
    driver = f"```python\n{task.test}\n```\n" if task.test and not task.call else ""
    return (
        f"{note}```python\n{kind.show_program(task)}\n```\n{driver}"
        f"{kind.question(task)} {answer_instruction(task.kind, task.entry)}"
    )
