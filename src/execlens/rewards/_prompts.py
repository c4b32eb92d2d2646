"""The chat prompts exported tasks carry: one question, one tagged answer asked for.

The question is its kind's (``execlens.tasks.kinds``), worded as synthesis and the
runtime benchmark word it.  Every prompt asks for reasoning first and the final answer inside ``[ANSWER]`` …
``[/ANSWER]`` (what :func:`~execlens.rewards.extract_answer` reads), in the form the
strict judge accepts for the task's kind.
"""

from __future__ import annotations

from execlens.tasks import Task, prediction_code
from execlens.tasks.kinds import task_prompt

__all__ = ["SYSTEM_PROMPT", "render_direct_prompt", "render_messages"]

SYSTEM_PROMPT = (
    "You are an expert at Python programming and code execution. Reason step "
    "by step about how the code runs, then give your final answer between "
    "[ANSWER] and [/ANSWER]."
)


def render_messages(task: Task) -> list[dict[str, str]]:
    """The chat messages (system + user) asking ``task``'s question: the user turn is
    :func:`execlens.tasks.kinds.task_prompt`, the one synthesis' ``runtime-tasks``
    records carry."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": task_prompt(task)},
    ]


def render_direct_prompt(task: Task, shots: list[Task] | tuple[Task, ...] = ()) -> str:
    """A plain-text, completion-style prompt for an ``output`` task, ending right where
    the answer literal goes (``assert f(3) == ``), after ``shots`` solved examples in
    the same form -- CRUXEval's direct output prompt without the chat.  Judge its
    completions with ``answer_format="first_line"``."""
    if task.kind != "output" or any(shot.kind != "output" for shot in shots):
        raise ValueError("direct prompts are for output-prediction tasks")
    solved = "".join(
        f"{prediction_code(shot).rstrip()}\nassert {shot.call} == {shot.reference}\n\n"
        for shot in shots
    )
    return f"{solved}{prediction_code(task).rstrip()}\nassert {task.call} == "
