"""The ``sys.settrace`` backend: the global and per-frame trace functions.

The per-frame functions (``_local_factory``) hold the step rules of both modes; the
``sys.monitoring`` backend feeds its line events to the same functions, so the two
backends record the same steps.
"""

from __future__ import annotations

from typing import Any

from execlens.trace._recorder._core import CAPTURE_COVERAGE, _Frame, _RecorderCore

_len = len  # bound at import: the traced program may replace builtins

_YIELD_VALUE = __import__("opcode").opmap["YIELD_VALUE"]
_RESUME = __import__("opcode").opmap["RESUME"]


class _SettraceBackend(_RecorderCore):
    """Events from ``sys.settrace``; the per-frame trace functions both backends use."""

    def _is_yield(self, frame: Any) -> bool:
        # settrace's "return" event serves both returns and yields.  On a yield,
        # f_lasti is the YIELD_VALUE itself up to 3.12, and the RESUME right after it
        # from 3.13 on.
        try:
            code, last = frame.f_code.co_code, frame.f_lasti
            op = code[last]
            return op == _YIELD_VALUE or (
                op == _RESUME and last >= 2 and code[last - 2] == _YIELD_VALUE
            )
        except (IndexError, AttributeError):
            return False

    # ---------------------------------------------------------- settrace events
    def _call_event(self, frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename != self.filename or self._stopped:
            return None
        if self.capture == CAPTURE_COVERAGE:
            return self._coverage_event
        rec = self._live.get(frame)
        if rec is None:
            rec = self._enter(frame)
        return rec.local

    def _coverage_event(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            self.coverage.add(frame.f_lineno - 1)
        return self._coverage_event

    def _local_factory(self) -> Any:
        """``make(rec)``: the per-frame trace function (a closure: the hot path avoids
        attribute lookups; what all frames share is bound once, in cells they share).

        Long because it is the tracer's hot path, called on every line of the traced
        program: its names are bound once as closure cells and its cases inline, where
        helpers would add a call per event."""
        steps = self._steps
        add_step = steps.extend
        coverage_add = self.coverage.add
        max_flat = 3 * self.limits.max_steps
        recorder = self
        if self.mode == "frame-blind":

            def make_reval(rec: _Frame) -> Any:
                snap = rec.snap
                ident = rec.ident

                def local(frame: Any, event: str, arg: Any) -> Any:
                    line = frame.f_lineno - 1
                    if event == "line":
                        coverage_add(line)
                        index = snap(frame.f_locals) if snap is not None else -1
                        if steps and steps[-3] == line:
                            # REval's merge: same line as the previous state, any frame.
                            steps[-2] = ident
                            steps[-1] = index
                        elif _len(steps) >= max_flat:
                            recorder._truncate("steps")
                            return None
                        else:
                            add_step((line, ident, index))
                        return local
                    if recorder._stopped:
                        return None
                    if event == "return":
                        recorder._reval_mark(
                            frame, rec, line, "return", arg, final=not recorder._is_yield(frame)
                        )
                    elif event == "exception":
                        recorder._reval_mark(frame, rec, line, "exception", arg[0], final=False)
                    return local

                return local

            return make_reval

        line_of = self.line_map.get
        coverage_event = self._coverage_event

        def make_exact(rec: _Frame) -> Any:
            if rec.inline:
                # Comprehensions and lambdas run as part of their caller's step.
                return coverage_event
            snap = rec.snap
            ident = rec.ident

            def local(frame: Any, event: str, arg: Any) -> Any:
                if event == "line":
                    raw = frame.f_lineno
                    line = line_of(raw, raw) - 1
                    coverage_add(raw - 1)
                    if line == rec.step_line and (raw != line + 1 or rec.last_raw != raw):
                        # On a continuation line of the statement being executed, or back
                        # on its first line from one: the same step.  CPython reports the
                        # same line twice in a row only when a loop jumps back to it: a
                        # new step.
                        rec.last_raw = raw
                        return local
                    rec.last_raw = raw
                    rec.step_line = line
                    if _len(steps) >= max_flat:
                        recorder._truncate("steps")
                        return None
                    add_step((line, ident, snap(frame.f_locals) if snap is not None else -1))
                    return local
                if recorder._stopped:
                    return None
                if event == "return":
                    recorder._exact_exit(frame, rec, arg, final=not recorder._is_yield(frame))
                elif event == "exception":
                    recorder._exact_exception(rec, arg[0])
                return local

            return local

        return make_exact
