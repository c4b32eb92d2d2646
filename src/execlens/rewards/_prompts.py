"""The chat prompts exported tasks carry: one question, one tagged answer asked for.

Every prompt asks for reasoning first and the final answer inside ``[ANSWER]`` …
``[/ANSWER]`` (what :func:`~execlens.rewards.extract_answer` reads), in the form the
strict judge accepts for the task's kind.
"""

from __future__ import annotations

from execlens.rewards._task import RewardTask

__all__ = ["SYSTEM_PROMPT", "render_direct_prompt", "render_messages"]

SYSTEM_PROMPT = ("You are an expert at Python programming and code execution. Reason step "
                 "by step about how the code runs, then give your final answer between "
                 "[ANSWER] and [/ANSWER].")


def _numbered(program: str) -> str:
    lines = program.splitlines()
    width = len(str(len(lines)))
    return "\n".join(f"{n:>{width}} {line}" for n, line in enumerate(lines, 1))


def _question(task: RewardTask) -> str:
    call = task.call or ""
    if task.kind == "output":
        return (f"What does `{call}` return? Answer with a Python literal (no expressions, "
                f"no function calls), for example [ANSWER]42[/ANSWER].")
    if task.kind == "input":
        return (f"Find arguments such that `{task.function}(...)` returns `{task.reference}`. "
                f"Answer with a single call of `{task.function}` whose arguments are "
                f"literals, for example [ANSWER]{task.function}(1, 'a')[/ANSWER].")
    if task.kind == "coverage":
        return (f"When `{call}` runs, is line {task.line} executed? Answer YES or NO, for "
                f"example [ANSWER]YES[/ANSWER].")
    if task.kind == "path":
        return (f"When `{call}` runs, which line is executed right after line {task.line}? "
                f"Answer with its line number (-1 if nothing runs after it), for example "
                f"[ANSWER]7[/ANSWER].")
    if task.kind == "state":
        return (f"When `{call}` runs, what is the value of `{task.var}` right after line "
                f"{task.line} executes? Answer `value; type` (or Nil if it has no value "
                f"then), for example [ANSWER][1, 2]; list[/ANSWER].")
    return (f"What does `{call}` return? Answer with a Python value, or with the "
            f"exception's class name if it raises, for example [ANSWER]'abc'[/ANSWER].")


def render_messages(task: RewardTask) -> list[dict[str, str]]:
    """The chat messages (system + user) asking ``task``'s question."""
    numbered = task.kind in ("coverage", "path", "state")
    code = _numbered(task.program) if numbered else task.program
    note = "Lines are numbered from 1.\n" if numbered else ""
    user = f"{note}```python\n{code}\n```\n{_question(task)}"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def render_direct_prompt(task: RewardTask, shots: list[RewardTask] | tuple[RewardTask, ...] = ()
                         ) -> str:
    """A plain-text, completion-style prompt for an ``output`` task, ending right where
    the answer literal goes (``assert f(3) == ``), after ``shots`` solved examples in
    the same form -- CRUXEval's direct output prompt without the chat.  Judge its
    completions with ``answer_format="first_line"``."""
    if task.kind != "output" or any(shot.kind != "output" for shot in shots):
        raise ValueError("direct prompts are for output-prediction tasks")
    solved = "".join(f"{shot.program.rstrip()}\nassert {shot.call} == {shot.reference}\n\n"
                     for shot in shots)
    return f"{solved}{task.program.rstrip()}\nassert {task.call} == "
