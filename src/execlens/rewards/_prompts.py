"""The chat prompts exported tasks carry: one question, one tagged answer asked for.

Every prompt asks for reasoning first and the final answer inside ``[ANSWER]`` …
``[/ANSWER]`` (what :func:`~execlens.rewards.extract_answer` reads), in the form the
strict judge accepts for the task's kind.
"""

from __future__ import annotations

from execlens.tasks import Task, prediction_code
from execlens.tasks.prompts import answer_instruction

__all__ = ["SYSTEM_PROMPT", "render_direct_prompt", "render_messages"]

SYSTEM_PROMPT = ("You are an expert at Python programming and code execution. Reason step "
                 "by step about how the code runs, then give your final answer between "
                 "[ANSWER] and [/ANSWER].")


def _numbered(program: str) -> str:
    lines = program.splitlines()
    width = len(str(len(lines)))
    return "\n".join(f"{n:>{width}} {line}" for n, line in enumerate(lines, 1))


def _question(task: Task) -> str:
    call = task.call or ""
    kind = task.kind
    if kind == "input":
        asked = (f"Find arguments such that `{task.entry}(...)` returns "
                 f"`{_output_text(task)}`.")
    elif kind == "output":
        asked = f"What does `{call}` return?"
    elif kind == "coverage":
        asked = f"When `{call}` runs, is line {task.line} executed?"
    elif kind == "trace":
        asked = (f"When `{call}` runs, which lines are executed, in order? Each line ends "
                 f"with its number as a comment (`# N`).")
    elif kind == "path":
        asked = f"When `{call}` runs, which line is executed right after line {task.line}?"
    else:
        asked = (f"When `{call}` runs, what is the value of `{task.var}` right after line "
                 f"{task.line} executes?")
    # The one answer format (execlens.tasks.prompts): what synthesis trains, the runtime
    # benchmark asks and the judge reads.
    return f"{asked} {answer_instruction(kind, task.entry)}"


def _output_text(task: Task) -> str:
    """The output an input question shows: the literal's text, or the value's literal."""
    if isinstance(task.reference, str):
        return task.reference
    from execlens.tasks.prompts import answer_text

    return answer_text(Task(kind="output", program=task.program, reference=task.reference))


def render_messages(task: Task) -> list[dict[str, str]]:
    """The chat messages (system + user) asking ``task``'s question."""
    numbered = task.kind in ("coverage", "path", "state")
    # A prediction task's prelude (LiveCodeBench's import block) runs but is not shown,
    # as in the benchmark's own prompt; line-numbered kinds have none.
    code = _numbered(task.program) if numbered else prediction_code(task)
    if task.kind == "trace":  # CoCoNUT's numbering: every physical line ends with # N
        from execlens.tasks import numbered_program

        code = numbered_program(task.program)
    note = "Lines are numbered from 1.\n" if numbered else ""
    user = f"{note}```python\n{code}\n```\n{_question(task)}"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def render_direct_prompt(task: Task, shots: list[Task] | tuple[Task, ...] = ()
                         ) -> str:
    """A plain-text, completion-style prompt for an ``output`` task, ending right where
    the answer literal goes (``assert f(3) == ``), after ``shots`` solved examples in
    the same form -- CRUXEval's direct output prompt without the chat.  Judge its
    completions with ``answer_format="first_line"``."""
    if task.kind != "output" or any(shot.kind != "output" for shot in shots):
        raise ValueError("direct prompts are for output-prediction tasks")
    solved = "".join(f"{prediction_code(shot).rstrip()}\nassert {shot.call} == "
                     f"{shot.reference}\n\n" for shot in shots)
    return f"{solved}{prediction_code(task).rstrip()}\nassert {task.call} == "
