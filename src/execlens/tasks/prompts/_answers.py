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

Rendering reads a task's ``kind`` and ``reference`` (the shapes of
``execlens.tasks.Task``); nothing here evaluates anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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

#: kind -> (what to answer, an example answer), the wording every prompt uses.
ANSWER_FORMS: dict[str, tuple[str, str]] = {
    "coverage": ("YES or NO", "YES"),
    "path": ("the number of the line executed next (-1 if no line runs after it)", "7"),
    "state": (
        'the value and type in "value; type" format (a Python literal and its class '
        "name), or Nil if the line is not executed",
        "[1, 2]; list",
    ),
    "output": (
        "the returned value as a Python literal (no expressions, no function "
        "calls), or the exception's class name if the call raises",
        "'abc'",
    ),
    "input": ("a single call of the function whose arguments are literals", "f(1, 'a')"),
    "trace": (
        "the numbers of the executed lines in execution order as a Python list (a "
        "called function's def line is not listed; a loop header is listed each time "
        "it is tested, the last test included)",
        "[2, 3, 2, 4]",
    ),
}


class NoAnswerForm(ValueError):
    """A task whose reference has no answer in the format (a value without a literal)."""


def answer_instruction(kind: str, function: str | None = None) -> str:
    """How to answer a ``kind`` question, with an example in tags."""
    what, example = ANSWER_FORMS[kind]
    if kind == "input" and function:
        example = example.replace("f(", f"{function}(", 1)
    return f"Answer with {what}, for example {ANSWER_OPEN}{example}{ANSWER_CLOSE}."


def _literal(envelope: Mapping[str, Any]) -> str:
    from execlens.values import decode, literal_text

    text = literal_text(decode(dict(envelope)))
    if text is None:
        raise NoAnswerForm(f"a {envelope.get('__type__')} value has no literal form")
    return text


def _type_name(envelope: Mapping[str, Any]) -> str:
    return str(envelope.get("__type__"))


def answer_text(task: Any) -> str:
    """The answer to ``task`` in the format (without tags), from its reference.

    Raises :class:`NoAnswerForm` when the reference has none (a value that no literal
    writes, a run that recorded no output) and ``ValueError`` for an unknown kind.
    """
    kind, reference = task.kind, task.reference
    if kind == "coverage":
        return "YES" if reference else "NO"
    if kind == "path":
        return str(int(list(reference)[0]))
    if kind == "state":
        values = [e for e in reference if e.get("__type__") != "Nil"]
        if not values:
            return "Nil"
        return f"{_literal(values[0])}; {_type_name(values[0])}"
    if kind == "output":
        if isinstance(reference, str):
            return reference  # the output literal's text (CRUXEval-style tasks)
        if "status" in reference:
            if reference.get("status") != "ok":
                if not reference.get("exception"):
                    raise NoAnswerForm("the run ended without a value or an exception")
                return str(reference["exception"])
            reference = reference.get("value")
        if not isinstance(reference, Mapping):
            raise NoAnswerForm("the reference holds no value")
        return _literal(reference)
    if kind == "input":
        if getattr(task, "call", None):
            return str(task.call)
        meta = getattr(task, "meta", None) or {}
        if meta.get("input"):
            return str(meta["input"])
        raise NoAnswerForm("an input task without its reference call")
    if kind == "trace":
        return "[" + ", ".join(str(int(n)) for n in reference) + "]"
    raise ValueError(f"no answer format for kind {kind!r}; kinds: {', '.join(ANSWER_FORMS)}")


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
