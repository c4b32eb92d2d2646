"""The runtime benchmark's items: one runtime task each, with a readable, unique id.

Items wrap ``execlens.tasks.RuntimeTask`` (the generic judges read it as it is) and add
what the runners need: a ``sample_id`` unique within its kind.  The CRUXEval-style input
question is derived here from an output task, since ``tasks`` builds only the four
REval kinds (and full traces when asked): same program and reference, the answer is a
call instead of a value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from execlens.tasks import RuntimeTask
from execlens.tasks.kinds import get_kind, kinds
from execlens.values import AnswerParseError, decode, literal_text, parse_call

__all__ = [
    "COMPOSITE",
    "KINDS",
    "RuntimeItem",
    "composite_kinds",
    "input_task",
    "items_by_kind",
    "runtime_kinds",
]


def runtime_kinds() -> tuple[str, ...]:
    """Every question kind, in the order a run lists them: the registered kinds
    (``execlens.tasks.kinds``: the built-in six, then plug-ins'), less the ``given``
    ones (a benchmark folder's own kinds: their truth comes with its rows, never from a
    trace)."""
    return tuple(k.name for k in kinds() if k.scope != "given")


def composite_kinds() -> tuple[str, ...]:
    """The kinds ``all`` asks: every ``default`` kind.  A full trace (``trace``) is asked
    only when named, as ``tasks.build_tasks`` builds it: one long answer per run."""
    return tuple(k.name for k in kinds() if k.default)


#: The built-in kinds, in the order a run lists them (:func:`runtime_kinds` adds
#: plug-ins').
KINDS = ("coverage", "path", "state", "output", "input", "trace")
#: The built-in kinds ``all`` asks (:func:`composite_kinds` adds plug-ins').
COMPOSITE = ("coverage", "path", "state", "output", "input")


@dataclass(frozen=True)
class RuntimeItem:
    """One question: the runtime task (program, call, line/var, ground truth) and its id."""

    task: RuntimeTask
    sample_id: str
    function: str | None = None
    """The called function's name (input and output questions)."""
    output_text: str | None = None
    """The run's output as a literal (input questions show it)."""

    @property
    def kind(self) -> str:
        """The question kind (``coverage`` ... ``input``)."""
        return self.task.kind


def _readable_id(task: RuntimeTask) -> str:
    ident = f"{task.problem_id}#{task.input_index}"
    if task.line is not None:
        ident += f"@L{task.line}"
    if task.var is not None:
        ident += f"[{task.var}]"
    return ident


def _function(task: RuntimeTask) -> str | None:
    if not task.call or task.test:
        return None
    try:
        return parse_call(task.call).name
    except (AnswerParseError, SyntaxError, ValueError):
        return None  # not a literal call (CodeI/O's ``f(**{...})`` is, most others too)


def _output_text(reference: Mapping[str, Any]) -> str | None:
    envelope = reference.get("value")
    if reference.get("status") != "ok" or not isinstance(envelope, Mapping):
        return None
    return literal_text(decode(dict(envelope)))


def input_task(output: RuntimeTask) -> RuntimeTask | None:
    """The input-prediction task of an output task, or None when none can be asked (the
    input kind's ``derive``: a plain literal call whose run returned a value that has a
    literal; the prompt shows it, the judge compares what the answer's call returns
    with it)."""
    return get_kind("input").derive(output)


def items_by_kind(tasks: Iterable[RuntimeTask]) -> dict[str, list[RuntimeItem]]:
    """``{kind: items}`` in build order.  Output questions of unittest drivers are left
    out (they return nothing to predict); a derived kind's question (input) follows the
    task it derives from.  A repeated run (the data holds an id twice) keeps its first
    question under each id."""
    out: dict[str, list[RuntimeItem]] = {kind: [] for kind in runtime_kinds()}
    derived = [k for k in kinds() if k.scope == "derived"]
    seen: set[tuple[str, str]] = set()

    def add(task: RuntimeTask) -> None:
        ident = _readable_id(task)
        if (task.kind, ident) in seen:
            return
        seen.add((task.kind, ident))
        function = _function(task)
        text = _output_text(task.reference) if task.kind == "input" else None
        out.setdefault(task.kind, []).append(RuntimeItem(task, ident, function, text))

    for task in tasks:
        if task.kind == "output" and (not task.call or task.test):
            continue  # a unittest driver returns nothing to predict
        add(task)
        for kind in derived:
            twin = kind.derive(task)
            if twin is not None:
                add(twin)
    return out
