"""Export of an exact-mode trace in the trace format of Meta's Code World Model (CWM).

The shape follows the public description in facebookresearch/cwm's ``PROMPTING_GUIDE.md``
(no reference implementation is used here).  A trace prompt is the source context
after ``<|trace_context_start|>``, the entry function's ``def`` line marked with a
``# << START_OF_TRACE`` comment, then ``<|frame_sep|>``; the trace is a series of
frames, each ended by ``<|frame_sep|>``, and ``<|end_of_text|>`` when the entry
function's scope is left::

    <|call_sep|>{locals}<|action_sep|>def line<|frame_sep|>
    <|line_sep|>{locals}<|action_sep|>source line<|frame_sep|>
    <|return_sep|><|action_sep|>source line<|arg_sep|>"value"<|frame_sep|>
    <|exception_sep|><|action_sep|>source line<|arg_sep|>"value"<|frame_sep|>

Locals are a JSON object whose values are JSON strings (the value's ``repr``-like
text); a return or exception value is one JSON string.

What our exact traces give, and where the export is knowingly short of a
``sys.settrace`` recording (tests pin each point):

* one ``line`` frame per recorded step, with the locals **before** the line ran (the
  tracer's snapshot); the source is the step's first physical line (a multi-line
  statement is one step at its first line);
* one ``call`` frame per program frame entered (its locals: the arguments), at the
  function's ``def`` line; comprehension and lambda frames are folded into the line
  that runs them (no call/return of their own, unlike ``settrace`` on 3.11);
* a frame left normally gives a ``return`` frame at its last executed line with the
  returned value; a frame an exception left gives an ``exception`` frame at that line
  and then a ``return`` with ``None``, the order ``settrace`` reports them in, so calls
  and returns always balance;
* **gap: an exception caught inside a frame** (raised by a callee or a line and
  handled by an ``except`` of the same frame) has no ``exception`` frame: the recorder
  keeps which exception passed through a frame, not at which step it was caught;
* **gap: values without a literal form** (instances of the program's classes,
  functions, opaque objects) are written ``<module.Type object>``: ``repr`` would name
  a memory address, which no run reproduces; a value the recorder could not snapshot
  is ``<unrecorded>``;
* a generator's frame is exited at each ``yield`` and entered again when resumed, as
  ``settrace`` reports it, but only its final exit carries its returned value; the
  intermediate ones carry ``<yielded>`` (the recorder does not keep yielded values);
* an exception's value is its class name, with the run's message when it is the
  exception that ended the run (``ValueError('neg')``): other frames keep the class only.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from execlens.values import decode, envelope_type_key, literal_text

__all__ = ["CWM_TOKENS", "CwmFrame", "cwm_context", "cwm_frames", "cwm_trace", "cwm_value_text"]

#: The trace-prediction tokens, by role (PROMPTING_GUIDE.md's table).
CWM_TOKENS: dict[str, str] = {
    "context": "<|trace_context_start|>",
    "frame": "<|frame_sep|>",
    "action": "<|action_sep|>",
    "return": "<|return_sep|>",
    "call": "<|call_sep|>",
    "line": "<|line_sep|>",
    "exception": "<|exception_sep|>",
    "arg": "<|arg_sep|>",
    "end": "<|end_of_text|>",
}
_START = "# << START_OF_TRACE"


@dataclass(frozen=True)
class CwmFrame:
    """One CWM trace frame: its ``kind`` (``call``/``line``/``return``/``exception``),
    source line (1-indexed ``line`` and its text), and locals (calls and lines) or
    value (returns and exceptions) as text."""

    kind: str
    line: int
    source: str
    locals: dict[str, str] | None = None
    value: str | None = None

    def render(self) -> str:
        """The frame's tokens, ``<|frame_sep|>`` included."""
        t = CWM_TOKENS
        if self.kind in ("call", "line"):
            observed = json.dumps(self.locals or {}, ensure_ascii=False)
            return f"{t[self.kind]}{observed}{t['action']}{self.source}{t['frame']}"
        value = json.dumps(self.value if self.value is not None else "None", ensure_ascii=False)
        return f"{t[self.kind]}{t['action']}{self.source}{t['arg']}{value}{t['frame']}"


def cwm_value_text(envelope: Mapping[str, Any] | None) -> str:
    """The text of one recorded value: its literal, else ``<module.Type object>``."""
    if envelope is None:
        return "<unrecorded>"
    try:
        text = literal_text(decode(dict(envelope)))
    except (ValueError, TypeError, KeyError):
        text = None
    if text is not None:
        return text
    module, name = envelope_type_key(envelope)
    return f"<{name if module in (None, 'builtins') else f'{module}.{name}'} object>"


def _def_lines(program: str) -> dict[int, int]:
    """``{1-indexed body line: 1-indexed def line}`` of the innermost function holding it."""
    owner: dict[int, int] = {}
    functions = [
        node
        for node in ast.walk(ast.parse(program))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    # Outer functions first, so an inner function's lines are claimed last (innermost).
    for node in sorted(functions, key=lambda n: (n.lineno, -(n.end_lineno or n.lineno))):
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
            owner[line] = node.lineno
    return owner


def cwm_context(program: str, entry_line: int) -> str:
    """``program`` with its 1-indexed ``entry_line`` (the entry's ``def``) marked."""
    lines = program.splitlines()
    lines[entry_line - 1] = f"{lines[entry_line - 1]}  {_START}"
    return "\n".join(lines)


def _exception_text(trace: Any, envelope: Mapping[str, Any] | None) -> str:
    name = str(envelope.get("__value__")) if isinstance(envelope, Mapping) else "Exception"
    if trace.exception_type == name and trace.exception_message is not None:
        return f"{name}({trace.exception_message!r})"
    return name


def cwm_frames(trace: Any, program: str) -> list[CwmFrame]:
    """The CWM frames of an exact-mode ``trace`` of ``program`` (see the module docstring).

    ``ValueError`` for a frame-blind trace (it merges frames) or one without steps.

    Long because it is one walk over the trace's steps keeping a stack of open frames:
    the call, line, return and exception cases share that stack and the frame being
    built, and as separate functions they would hand the whole walk's state around.
    """
    if trace.mode != "exact":
        raise ValueError(f"a CWM export needs an exact-mode trace, not {trace.mode!r}")
    if not trace.steps:
        raise ValueError("the trace recorded no steps")
    source = program.splitlines()
    owner = _def_lines(program)
    frames = trace.frames

    def text(line: int) -> str:
        return source[line - 1] if 0 < line <= len(source) else ""

    def real(ident: int) -> int:
        # Steps of a folded comprehension/lambda belong to the frame that runs it.
        while ident >= 0 and frames[ident].inline:
            ident = frames[ident].parent
        return ident

    last_step = {real(step.frame): step.index for step in trace.steps}
    last_line: dict[int, int] = {}
    out: list[CwmFrame] = []
    stack: list[int] = []

    def leave(ident: int, final: bool) -> None:
        line = last_line[ident]
        info = frames[ident]
        if not final:
            out.append(CwmFrame("return", line, text(line), value="<yielded>"))
            return
        raised = info.exception >= 0 and trace.exception_at(last_step[ident]) is not None
        if raised:
            out.append(
                CwmFrame(
                    "exception",
                    line,
                    text(line),
                    value=_exception_text(trace, trace.value(info.exception)),
                )
            )
            out.append(CwmFrame("return", line, text(line), value="None"))
            return
        value = trace.value(info.result) if info.result >= 0 else None
        out.append(
            CwmFrame(
                "return",
                line,
                text(line),
                value=cwm_value_text(value) if value is not None else "None",
            )
        )

    def observed(step: Any) -> dict[str, str] | None:
        snapshot = trace.locals_at(step)
        if snapshot is None:
            return None
        return {name: cwm_value_text(envelope) for name, envelope in snapshot.items()}

    for step in trace.steps:
        ident, line = real(step.frame), step.line + 1
        if ident not in stack:
            parent = real(frames[ident].parent) if frames[ident].parent >= 0 else -1
            while stack and stack[-1] != parent:
                gone = stack.pop()
                leave(gone, final=_is_last(gone, step.index, last_step))
            def_line = owner.get(line, line)
            out.append(CwmFrame("call", def_line, text(def_line), locals=observed(step)))
            stack.append(ident)
        else:
            while stack[-1] != ident:
                gone = stack.pop()
                leave(gone, final=_is_last(gone, step.index, last_step))
        out.append(CwmFrame("line", line, text(line), locals=observed(step)))
        last_line[ident] = line
    while stack:
        gone = stack.pop()
        leave(gone, final=True)
    return out


def _is_last(ident: int, now: int, last_step: Mapping[int, int]) -> bool:
    """Whether frame ``ident`` runs no step from ``now`` on (a final exit, not a yield)."""
    return last_step[ident] < now


def cwm_trace(trace: Any, program: str) -> str:
    """The whole CWM text of ``trace``: the context prompt, every frame, the end token."""
    frames = cwm_frames(trace, program)
    entry = frames[0].line
    t = CWM_TOKENS
    return (
        f"{t['context']}{cwm_context(program, entry)}{t['frame']}"
        + "".join(frame.render() for frame in frames)
        + t["end"]
    )
