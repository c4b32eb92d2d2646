"""The one answer format: how each question kind is answered, rendered and read back.

The runtime benchmark (``bench/runtime``), synthesis' ``runtime-tasks`` (the assistant
turns it trains on) and the RL rewards' prompts all ask -- and the strict judges all
read -- the same forms, so SFT on synthesized data and GRPO on execlens rewards teach
one thing.  The answer sits inside ``[ANSWER]`` … ``[/ANSWER]``:

=========  ================================================================  ==============
kind       answer                                                            example
=========  ================================================================  ==============
coverage   ``YES`` or ``NO``                                                 ``YES``
path       the number of the line that runs next (``-1``: none)             ``7``
state      ``value; type`` (a Python literal; its class name), or ``Nil``   ``[1, 2]; list``
output     the returned value as a Python literal (the exception's class    ``'abc'``
           name when the call raises)
input      one call of the function with literal arguments                   ``f(1, 'a')``
trace      the executed line numbers in order, as a Python list              ``[2, 3, 2, 4]``
=========  ================================================================  ==============

Readers stay lenient where the benchmarks they reproduce were (a path answer may be the
line's code, an output or input answer a completed ``assert f(x) == y``), but what is
*asked* and what synthesis *writes* is the one form above.  REval's and CRUXEval's
official prompts are not these: ``bench/reval`` and ``bench/cruxeval`` keep theirs to
reproduce published numbers.

Each form is its kind's (``execlens.tasks.kinds``: a plug-in kind brings its own).
Rendering reads a task's ``kind`` and ``reference`` (the shapes of
``execlens.tasks.Task``); nothing here evaluates anything.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from execlens.tasks.kinds._protocol import NoAnswerForm

__all__ = [
    "ANSWER_CLOSE",
    "ANSWER_FORMS",
    "ANSWER_OPEN",
    "NoAnswerForm",
    "answer_block",
    "answer_instruction",
    "answer_text",
    "render_answer",
]

ANSWER_OPEN = "[ANSWER]"
ANSWER_CLOSE = "[/ANSWER]"


class _AnswerForms(Mapping[str, tuple[str, str]]):
    """kind -> (what to answer, an example answer): each registered kind's
    ``answer_form`` (``execlens.tasks.kinds``), read when asked."""

    def __getitem__(self, kind: str) -> tuple[str, str]:
        from execlens.tasks.kinds import get_kind

        return get_kind(kind).answer_form

    def __iter__(self) -> Iterator[str]:
        from execlens.tasks.kinds import kind_names

        return iter(kind_names())

    def __len__(self) -> int:
        from execlens.tasks.kinds import kind_names

        return len(kind_names())


#: kind -> (what to answer, an example answer), the wording every prompt uses.
ANSWER_FORMS: Mapping[str, tuple[str, str]] = _AnswerForms()


def answer_instruction(kind: str, function: str | None = None) -> str:
    """How to answer a ``kind`` question, with an example in tags."""
    what, example = ANSWER_FORMS[kind]
    if kind == "input" and function:
        example = example.replace("f(", f"{function}(", 1)
    return f"Answer with {what}, for example {ANSWER_OPEN}{example}{ANSWER_CLOSE}."


def answer_text(task: Any) -> str:
    """The answer to ``task`` in the format (without tags), from its reference: its
    kind's ``answer_text``.

    Raises :class:`NoAnswerForm` when the reference has none (a value that no literal
    writes, a run that recorded no output) and ``ValueError`` for an unknown kind.
    """
    from execlens.tasks.kinds import get_kind

    try:
        kind = get_kind(task.kind)
    except KeyError:
        raise ValueError(
            f"no answer format for kind {task.kind!r}; kinds: {', '.join(ANSWER_FORMS)}"
        ) from None
    return kind.answer_text(task)


def render_answer(task: Any) -> str:
    """The answer to ``task`` as an assistant writes it: ``[ANSWER]...[/ANSWER]``."""
    return f"{ANSWER_OPEN}{answer_text(task)}{ANSWER_CLOSE}"


def answer_block(text: str) -> str | None:
    """The text of the last ``[ANSWER]`` block of ``text`` (up to ``[/ANSWER]`` or the
    end; stripped), or None when there is none."""
    if ANSWER_OPEN not in text:
        return None
    block = text.rsplit(ANSWER_OPEN, 1)[1]
    return block.split(ANSWER_CLOSE, 1)[0].strip()
