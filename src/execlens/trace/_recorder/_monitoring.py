"""The ``sys.monitoring`` backend (Python 3.12+): its events, turned into settrace's.

Line events go to the per-frame functions of the settrace backend; returns, yields,
raises and unwinds to the core's marks, replaying settrace's rules where the two APIs
differ, so both backends record exactly the same trace (``tests/trace/test_backends.py``).
"""

from __future__ import annotations

import sys
from typing import Any

from execlens.trace._recorder._core import CAPTURE_COVERAGE, _RecorderCore

_type = type  # bound at import: the traced program may replace builtins
# Bound at import too (a traced program could rebind ``sys.monitoring``), and typed as
# ``Any``: the project type-checks against Python 3.11, which has no ``sys.monitoring``;
# this backend is only chosen on 3.12+ (``_recorder.Recorder``).
_mon: Any = getattr(sys, "monitoring", None)


class _MonitoringBackend(_RecorderCore):
    """Events from ``sys.monitoring``."""

    def _start_monitoring(self) -> None:
        mon = _mon
        events = mon.events
        tool = None
        for candidate in (mon.DEBUGGER_ID, mon.COVERAGE_ID, mon.PROFILER_ID, 3, 4):
            try:
                mon.use_tool_id(candidate, "execlens-trace")
            except ValueError:
                continue
            tool = candidate
            break
        if tool is None:
            raise RuntimeError("no free sys.monitoring tool id")
        self._monitoring_tool = tool
        self._mon_codes: set[Any] = set()
        self._mon_lines: dict[Any, dict[int, int | None]] = {}
        mon.register_callback(tool, events.PY_START, self._mon_start)
        mon.register_callback(tool, events.PY_RESUME, self._mon_start)
        mon.register_callback(tool, events.LINE, self._mon_line)
        mon.register_callback(tool, events.JUMP, self._mon_jump)
        mon.register_callback(tool, events.PY_RETURN, self._mon_return)
        mon.register_callback(tool, events.PY_YIELD, self._mon_yield)
        mon.register_callback(tool, events.RAISE, self._mon_raise)
        mon.register_callback(tool, events.PY_UNWIND, self._mon_unwind)
        global_events = events.PY_START | events.PY_RESUME
        if self.capture != CAPTURE_COVERAGE:
            global_events |= events.RAISE | events.PY_UNWIND
        mon.set_events(tool, global_events)

    def _stop_monitoring(self) -> None:
        mon = _mon
        tool = self._monitoring_tool
        if tool is None:
            return
        mon.set_events(tool, 0)
        for code in self._mon_codes:
            mon.set_local_events(tool, code, 0)
        for event in (
            mon.events.PY_START,
            mon.events.PY_RESUME,
            mon.events.LINE,
            mon.events.JUMP,
            mon.events.PY_RETURN,
            mon.events.PY_YIELD,
            mon.events.RAISE,
            mon.events.PY_UNWIND,
        ):
            mon.register_callback(tool, event, None)
        mon.free_tool_id(tool)
        self._monitoring_tool = None

    def _mon_start(self, code: Any, offset: int) -> Any:
        mon = _mon
        if code.co_filename != self.filename or self._stopped:
            return mon.DISABLE
        if code not in self._mon_codes:
            self._mon_codes.add(code)
            local = mon.events.LINE
            if self.capture != CAPTURE_COVERAGE:
                local |= mon.events.PY_RETURN | mon.events.PY_YIELD | mon.events.JUMP
            mon.set_local_events(self._monitoring_tool, code, local)
        if self.capture == CAPTURE_COVERAGE:
            return None
        frame = sys._getframe(1)
        if frame not in self._live:
            self._enter(frame)
        return None

    def _mon_line(self, code: Any, line: int) -> Any:
        if self._stopped:
            return _mon.DISABLE
        if self.capture == CAPTURE_COVERAGE:
            self.coverage.add(line - 1)
            return _mon.DISABLE  # each line needs reporting once
        self._mon_line_event(sys._getframe(1))
        return None

    def _mon_line_event(self, frame: Any) -> None:
        """A line event of a program frame, handed to its settrace-style handler."""
        rec = self._live.get(frame)
        if rec is None:
            rec = self._enter(frame)
        rec.local(frame, "line", None)

    def _mon_jump(self, code: Any, source: int, destination: int) -> Any:
        # sys.settrace reports a line again on every backward jump that stays on it
        # (one-line loops, inlined comprehensions); LINE events do not, since the line
        # did not change.  Replaying that rule keeps both backends' traces identical.
        if destination > source:
            return _mon.DISABLE  # forward jumps never repeat a line
        if self._stopped:
            return _mon.DISABLE
        lines = self._mon_lines.get(code)
        if lines is None:
            lines = self._mon_lines[code] = _line_at_offset(code)
        line = lines.get(destination)
        if line is None or line != lines.get(source):
            return None  # a new line: its LINE event follows
        self._mon_line_event(sys._getframe(1))
        return None

    def _mon_return(self, code: Any, offset: int, value: Any) -> Any:
        frame = sys._getframe(1)
        self._mon_exit(frame, value, final=True)
        return None

    def _mon_yield(self, code: Any, offset: int, value: Any) -> Any:
        frame = sys._getframe(1)
        self._mon_exit(frame, value, final=False)
        return None

    def _mon_exit(self, frame: Any, value: Any, final: bool) -> None:
        if self._stopped:
            return
        rec = self._live.get(frame)
        if rec is None:
            return
        if self.mode == "frame-blind":
            self._reval_mark(frame, rec, frame.f_lineno - 1, "return", value, final)
        elif not rec.inline:
            self._exact_exit(frame, rec, value, final)
        if final:
            self._forget(frame)

    def _mon_live_frame(self, code: Any) -> tuple[Any, Any] | None:
        """The traced program frame an exception event fired in, with its record
        (``None`` for another file's frame, one not traced, or after the stop).  Called
        from the event's callback: the program frame is two calls up."""
        if code.co_filename != self.filename or self._stopped:
            return None
        frame = sys._getframe(2)
        rec = self._live.get(frame)
        return None if rec is None else (frame, rec)

    def _mon_raise(self, code: Any, offset: int, exc: BaseException) -> Any:
        live = self._mon_live_frame(code)
        if live is None:
            return None
        frame, rec = live
        if self.mode == "frame-blind":
            self._reval_mark(frame, rec, frame.f_lineno - 1, "exception", _type(exc), False)
        elif not rec.inline:
            self._exact_exception(rec, _type(exc))
        return None

    def _mon_unwind(self, code: Any, offset: int, exc: BaseException) -> Any:
        live = self._mon_live_frame(code)
        if live is None:
            return None
        frame, rec = live
        # RAISE has already reported the exception in this frame (it fires in every
        # frame the exception passes through); settrace then reports a return of None.
        if self.mode == "frame-blind":
            self._reval_mark(frame, rec, frame.f_lineno - 1, "return", None, True)
        elif not rec.inline:
            self._exact_exit(frame, rec, None, final=True)
        self._forget(frame)
        return None


def _line_at_offset(code: Any) -> dict[int, int | None]:
    """Byte offset of each instruction of ``code`` -> its line (None: no line)."""
    lines: dict[int, int | None] = {}
    for start, end, line in code.co_lines():
        for offset in range(start, end, 2):
            lines[offset] = line
    return lines
