"""A recorded trace in the host, and the ground-truth queries REval asks of it.

Line numbers: the recorder stores lines **0-indexed** (as REval does); every query method
takes and returns **1-indexed** lines, as REval's task files and path answers do, and
``-1`` means "no next line".
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from execlens.trace._expr import NIL_ENVELOPE, evaluate
from execlens.values import NIL, decode

__all__ = ["FrameInfo", "Step", "Trace", "TraceError"]


#: The trace modes, and the other names they answer to.  ``frame-blind`` says what REval's
#: reference tracer does -- one flat list of states whatever frame an event came from
#: (recursion collapsed, "next line" across frames); ``reval`` is its older name.
MODES = ("exact", "frame-blind")
MODE_ALIASES = {"reval": "frame-blind"}


def canonical_mode(mode: str) -> str:
    """The mode ``mode`` names (``"reval"`` → ``"frame-blind"``; others unchanged)."""
    return MODE_ALIASES.get(mode, mode)


class TraceError(ValueError):
    """A trace record is malformed or was recorded by an incompatible tracer."""


@dataclass(frozen=True, slots=True)
class FrameInfo:
    """One program frame: function name, depth among program frames, its parent frame."""

    ident: int
    function: str
    depth: int
    parent: int
    result: int  # value index of the return value, -1 if none
    exception: int  # value index of the exception class that left it, -1 if none
    final: int  # snapshot index of its locals at return, -1 if unknown
    inline: bool  # a comprehension/lambda frame (exact mode folds it into its caller)


@dataclass(frozen=True, slots=True)
class Step:
    """One recorded step (exact mode) or state (frame-blind mode)."""

    index: int
    line: int  # 0-indexed
    frame: int
    snapshot: int  # -1 when locals were not recorded


@dataclass
class Trace:
    """The runtime ground truth of one program run.

    ``status`` is the engine's outcome status (``"ok"``, ``"exception"``, ``"timeout"``…);
    ``output`` the decoded return value (``output_envelope`` the envelope); ``exception``
    the exception type name and message when the run raised.  ``truncated`` names the
    cap that cut the recording short (``"steps"``, ``"states"``, ``"bytes"``), or None.
    """

    mode: str
    status: str
    output_envelope: dict[str, Any] | None = None
    exception_type: str | None = None
    exception_message: str | None = None
    stdout: str = ""
    truncated: str | None = None
    message: str = ""
    data: dict[str, Any] = field(default_factory=dict, repr=False)
    tag: Any = None

    def __post_init__(self) -> None:
        self.mode = canonical_mode(self.mode)  # a record written as "reval" reads the same
        data = self.data
        if data and data.get("version") != 1:
            raise TraceError(f"unsupported trace record version {data.get('version')!r}")
        self._values: list[dict[str, Any]] = data.get("values", [])
        self._snapshots: list[dict[str, int]] = data.get("snapshots", [])
        self.steps: list[Step] = [
            Step(i, s[0], s[1], s[2]) for i, s in enumerate(data.get("steps", []))
        ]
        self.frames: list[FrameInfo] = [
            FrameInfo(i, f[0], f[1], f[2], f[3], f[4], f[5], bool(f[6]))
            for i, f in enumerate(data.get("frames", []))
        ]
        self.coverage_lines: set[int] = set(data.get("coverage", []))
        self._marks: dict[int, dict[str, int]] = {}
        for step_index, kind, value in data.get("marks", []):
            # REval overwrites: the last return/exception on a state wins.
            self._marks.setdefault(step_index, {})[kind] = value
        self._by_line: dict[int, list[int]] = {}
        for step in self.steps:
            self._by_line.setdefault(step.line, []).append(step.index)
        self._next_in_frame: list[int] = [-1] * len(self.steps)
        last_of_frame: dict[int, int] = {}
        for step in self.steps:
            previous = last_of_frame.get(step.frame)
            if previous is not None:
                self._next_in_frame[previous] = step.index
            last_of_frame[step.frame] = step.index

    # ---------------------------------------------------------------- basics
    @property
    def ok(self) -> bool:
        """Whether the program ran to completion."""
        return self.status == "ok"

    @property
    def recorded(self) -> bool:
        """Whether any trace data came back (a timeout or crash leaves none)."""
        return bool(self.data)

    @property
    def output(self) -> Any:
        """The program's return value, decoded (None when it raised)."""
        return None if self.output_envelope is None else decode(self.output_envelope)

    @property
    def lines(self) -> list[int]:
        """The recorded line sequence, 0-indexed (REval's ``trace``)."""
        return [step.line for step in self.steps]

    @property
    def coverage(self) -> list[int]:
        """The executed lines, 0-indexed and sorted (REval's ``coverage``)."""
        return sorted(self.coverage_lines)

    def value(self, index: int) -> dict[str, Any]:
        """The envelope stored at ``index`` in the value table."""
        return self._values[index]

    def locals_at(self, step: int | Step) -> dict[str, dict[str, Any]] | None:
        """The locals snapshot (envelopes) of a step, taken before its line ran."""
        index = step.snapshot if isinstance(step, Step) else self.steps[step].snapshot
        return self._expand(index)

    def _expand(self, snapshot: int) -> dict[str, dict[str, Any]] | None:
        if snapshot < 0:
            return None
        return {name: self._values[i] for name, i in self._snapshots[snapshot].items()}

    def return_value(self, step: int | Step) -> dict[str, Any] | None:
        """The return envelope attached to a state (frame-blind mode), if any."""
        index = step.index if isinstance(step, Step) else step
        value = self._marks.get(index, {}).get("return")
        return None if value is None or value < 0 else self._values[value]

    def exception_at(self, step: int | Step) -> dict[str, Any] | None:
        """The exception (class envelope) raised during a step, if any."""
        index = step.index if isinstance(step, Step) else step
        value = self._marks.get(index, {}).get("exception")
        return None if value is None or value < 0 else self._values[value]

    # -------------------------------------------------------------- queries
    def covered(self, line: int) -> bool:
        """Whether 1-indexed ``line`` ran."""
        if self.mode == "frame-blind":
            return (line - 1) in self._by_line
        return (line - 1) in self.coverage_lines

    def occurrences(self, line: int) -> list[Step]:
        """The steps recorded at 1-indexed ``line``, in order."""
        return [self.steps[i] for i in self._by_line.get(line - 1, [])]

    def next_lines(self, line: int) -> set[int]:
        """Which 1-indexed lines ran right after ``line`` (any-of); -1 when nothing did.

        ``frame-blind``: the next recorded state, whatever its frame.  ``exact``: the next step
        of the same frame, -1 when the frame ended there.  Empty when ``line`` never ran.
        """
        result: set[int] = set()
        for index in self._by_line.get(line - 1, []):
            if self.mode == "frame-blind":
                following = index + 1 if index + 1 < len(self.steps) else -1
            else:
                following = self._next_in_frame[index]
            result.add(self.steps[following].line + 1 if following >= 0 else -1)
        return result

    def _after_snapshots(self, line: int) -> Iterator[dict[str, dict[str, Any]] | None]:
        for index in self._by_line.get(line - 1, []):
            if self.mode == "frame-blind":
                after = index + 1 if index + 1 < len(self.steps) else index
                yield self._expand(self.steps[after].snapshot)
            else:
                following = self._next_in_frame[index]
                if following >= 0:
                    yield self._expand(self.steps[following].snapshot)
                else:
                    yield self._expand(self.frames[self.steps[index].frame].final)

    def state_envelopes(self, var: str, line: int) -> list[dict[str, Any]]:
        """Envelopes of ``var`` after each execution of 1-indexed ``line`` (Nil dropped).

        ``[NIL_ENVELOPE]`` when the line never ran or ``var`` is undefined after every
        execution.  Duplicates are dropped, first occurrence order kept.
        """
        found: list[dict[str, Any]] = []
        seen: set[str] = set()
        for snapshot in self._after_snapshots(line):
            if snapshot is None:
                continue
            envelope = evaluate(var, snapshot)
            if envelope is NIL_ENVELOPE:
                continue
            key = json.dumps(envelope, sort_keys=True)
            if key not in seen:
                seen.add(key)
                found.append(envelope)
        return found or [NIL_ENVELOPE]

    def states(self, var: str, line: int) -> list[Any]:
        """Decoded values of ``var`` after each execution of ``line``; ``[NIL]`` if none."""
        return [decode(e) for e in self.state_envelopes(var, line)]

    def is_nil(self, var: str, line: int) -> bool:
        """Whether ``var`` has no value after any execution of ``line``."""
        return self.states(var, line) == [NIL]

    # ---------------------------------------------------------------- export
    def reval_states(self) -> list[dict[str, Any]]:
        """The states in the JetBrains REval layout (``lineno`` 0-indexed, envelopes)."""
        out = []
        for step in self.steps:
            state: dict[str, Any] = {
                "lineno": step.line,
                "locals": self._expand(step.snapshot) or {},
            }
            returned = self.return_value(step)
            if returned is not None:
                state["return"] = returned
            exc = self.exception_at(step)
            if exc is not None:
                state["exception"] = exc
            if self.mode == "exact":
                frame = self.frames[step.frame]
                state.update(frame=step.frame, function=frame.function, depth=frame.depth)
                if self._next_in_frame[step.index] < 0:
                    state["locals_after"] = self._expand(frame.final) or {}
                    if frame.result >= 0 and frame.exception < 0:
                        state["return"] = self._values[frame.result]
            out.append(state)
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form that :meth:`from_dict` reads back."""
        return {
            "mode": self.mode,
            "status": self.status,
            "output": self.output_envelope,
            "exception_type": self.exception_type,
            "exception_message": self.exception_message,
            "stdout": self.stdout,
            "truncated": self.truncated,
            "message": self.message,
            "data": self.data,
        }

    @classmethod
    def from_dict(cls, record: dict[str, Any], tag: Any = None) -> Trace:
        """Rebuild a trace written by :meth:`to_dict`."""
        return cls(
            mode=record["mode"],
            status=record["status"],
            output_envelope=record.get("output"),
            exception_type=record.get("exception_type"),
            exception_message=record.get("exception_message"),
            stdout=record.get("stdout", ""),
            truncated=record.get("truncated"),
            message=record.get("message", ""),
            data=record.get("data") or {},
            tag=tag,
        )
