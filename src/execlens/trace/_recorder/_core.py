"""The recorder's core: what a trace keeps, frame bookkeeping, returns and exceptions.

Two modes share one recorder:

* ``frame-blind`` (alias ``reval``) reproduces REval's reference tracer, which does not
  tell frames apart: every event of a program frame goes into one flat list of *states*;
  an event on the same line as the previous state is merged into it whatever frame it
  came from; a ``return``/``exception`` on another line than the previous state appends
  a state with empty locals.
* ``exact`` keeps one step per executed statement per frame: recursion and one-line loops
  stay separate steps, continuation lines of a multi-line statement are folded into the
  statement, comprehension/lambda frames are inlined into the frame that runs them, and
  each frame's locals at its return are kept, so "the state after line N" never reads
  another frame.

Steps are stored flat and the GC is paced while recording (the recorder's own per-line
containers would otherwise set off its full passes).  The events themselves come from a
backend built on this core: ``_settrace`` (whose per-frame trace functions both backends
feed) and ``_monitoring``; ``Recorder`` (the package) joins them.
"""

from __future__ import annotations

import gc as _gc
import sys
from collections.abc import Callable
from typing import Any

from execlens.trace._recorder._fingerprint import _SkipCache
from execlens.trace._recorder._values import _envelopes, _ValueTable

CAPTURE_COVERAGE = "coverage"  # the set of executed lines only
CAPTURE_LINES = "lines"  # the step sequence, without locals
CAPTURE_FULL = "full"  # steps with locals, returns, exceptions

PROGRAM_FILENAME = "<program>"

# Bound at import: the traced program may replace builtins.
_len = len
_iter = iter
_list = list
_map = map
_zip = zip

_INLINE_CODE_NAMES = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>", "<lambda>"})
_GC_PACE = 10  # the GC's first threshold is this many times higher while recording


class Limits:
    """Caps on what one trace may record; past any of them the trace is truncated."""

    __slots__ = ("max_bytes", "max_states", "max_steps")

    def __init__(
        self, max_steps: int = 200_000, max_states: int = 50_000, max_bytes: int = 32 * 1024 * 1024
    ) -> None:
        self.max_steps = max_steps
        self.max_states = max_states
        self.max_bytes = max_bytes


class _Frame:
    """What the recorder keeps about one program frame."""

    __slots__ = (
        "cache",
        "depth",
        "exception",
        "final",
        "ident",
        "inline",
        "last_raw",
        "local",
        "name",
        "parent",
        "release",
        "result",
        "snap",
        "step_line",
    )

    def __init__(self, ident: int, name: str, depth: int, parent: int, inline: bool) -> None:
        self.ident = ident
        self.name = name
        self.depth = depth
        self.parent = parent
        self.inline = inline
        self.cache: dict[str, tuple[Any, Any, int]] = {}
        self.snap: Any = None
        self.release: Any = None  # drops what ``snap`` holds once the frame has ended
        self.step_line = -1
        self.last_raw = -1
        self.result = -1
        self.exception = -1
        self.final = -1
        self.local: Any = None


class _RecorderCore(_ValueTable):
    """Everything but the event sources (see ``execlens.trace._recorder.Recorder``).

    The backends supply ``_call_event``, ``_local_factory`` and ``_is_yield``
    (``_settrace``), ``_start_monitoring`` and ``_stop_monitoring`` (``_monitoring``).
    """

    # Declared, not defined: the backend classes supply them (annotations only, so the
    # method resolution order is untouched).
    _call_event: Callable[[Any, str, Any], Any]
    _local_factory: Callable[[], Any]
    _is_yield: Callable[[Any], bool]
    _start_monitoring: Callable[[], None]
    _stop_monitoring: Callable[[], None]

    def __init__(
        self,
        mode: str = "exact",
        capture: str = CAPTURE_FULL,
        limits: Limits | None = None,
        line_map: dict[int, int] | None = None,
        filename: str = PROGRAM_FILENAME,
        backend: str = "auto",
    ) -> None:
        # "reval" is the old name of frame-blind (what REval's reference tracer does).
        mode = "frame-blind" if mode == "reval" else mode
        if mode not in ("exact", "frame-blind"):
            raise ValueError(f"unknown trace mode {mode!r} (exact or frame-blind)")
        if capture not in (CAPTURE_FULL, CAPTURE_LINES, CAPTURE_COVERAGE):
            raise ValueError(f"unknown capture {capture!r}")
        if backend == "auto":
            backend = "monitoring" if hasattr(sys, "monitoring") else "settrace"
        if backend == "monitoring" and not hasattr(sys, "monitoring"):
            raise ValueError("sys.monitoring needs Python 3.12 or newer")
        self.mode = mode
        self.capture = capture
        self.limits = limits or Limits()
        self.filename = filename
        self.backend = backend
        self.line_map = line_map or {}
        self.values: list[Any] = []  # envelopes, or atoms still to encode
        self.snapshots: list[dict[str, int]] = []
        # Steps, flat: line (0-indexed), frame id, snapshot index, line, ...  A list per
        # step would be a long-lived container per line: the cyclic GC's full passes
        # over them cost more than the recording itself.
        self._steps: list[int] = []
        self.marks: list[list[Any]] = []  # [step index, "return"|"exception", value index]
        self.frames: list[_Frame] = []
        self.coverage: set[int] = set()
        self.truncated: str | None = None
        self.value_bytes = 0
        self._live: dict[Any, _Frame] = {}
        self._skip = _SkipCache()
        self._stopped = False
        self._active = False
        # id -> value index of each atom stored raw in ``values`` (which keeps it alive,
        # so the id stays its own); ints only, so the GC never looks at it.
        self._atom_index: dict[int, int] = {}
        self._monitoring_tool: int | None = None
        self._make_snap: Any = None  # set by start(): see _snapshot_factory
        self._gc_saved: tuple[tuple[int, ...], tuple[int, ...]] | None = None  # _pace_gc
        # [True] once the states or bytes cap is reached (both only grow): one test per
        # line instead of two, and the caps are only looked at again then.
        self._capped = [False]
        # id -> (object, state, envelope, size) of numpy scalars and matrices: _renumpy
        self._numpy_envelopes: dict[int, tuple[Any, Any, Any, int]] = {}
        self._make_local: Any = None  # set by start(): see _local_factory

    @property
    def steps(self) -> list[list[int]]:
        """The steps so far: ``[line (0-indexed), frame id, snapshot index]`` each."""
        triples = _iter(self._steps)
        return _list(_map(_list, _zip(triples, triples, triples)))

    # ------------------------------------------------------------------ control
    def start(self) -> None:
        """Begin recording (the calling frame itself is not recorded)."""
        self._active = True
        if self._make_local is None:
            if self.capture == CAPTURE_FULL:
                self._make_snap = self._snapshot_factory()
            self._make_local = self._local_factory()
        if self.capture == CAPTURE_FULL:
            self._pace_gc()
        if self.backend == "monitoring":
            self._start_monitoring()
        else:
            sys.settrace(self._call_event)

    def stop(self) -> None:
        """Stop recording; safe to call twice."""
        if not self._active:
            return
        self._active = False
        if self.backend == "monitoring":
            self._stop_monitoring()
        else:
            sys.settrace(None)
        self._unpace_gc()

    def _pace_gc(self) -> None:
        """Raise the youngest GC generation's threshold while recording.

        The recorder keeps about one container per traced line (a snapshot, an
        envelope), many times what most programs allocate per line, and the cyclic GC
        counts them all: left alone it would run its collections (full ones walk every
        live object) ten times as often as for the untraced program.  A threshold ten
        times higher keeps it near the program's own pace; the old one is put back by
        ``stop()`` unless the program set its own meanwhile.
        """
        threshold = _gc.get_threshold()
        if threshold[0] > 0 and self._gc_saved is None:
            paced = (threshold[0] * _GC_PACE, *threshold[1:])
            _gc.set_threshold(*paced)
            self._gc_saved = (threshold, paced)

    def _unpace_gc(self) -> None:
        if self._gc_saved is not None:
            saved, paced = self._gc_saved
            self._gc_saved = None
            if _gc.get_threshold() == paced:
                _gc.set_threshold(*saved)

    def _truncate(self, reason: str) -> None:
        if self.truncated is None:
            self.truncated = reason
        if reason == "steps":
            self._stopped = True
            if self.backend == "settrace":
                sys.settrace(None)

    # ------------------------------------------------------------ frame records
    def _enter(self, frame: Any) -> _Frame:
        back = frame.f_back
        parent = None
        live = self._live
        while back is not None:
            parent = live.get(back)
            if parent is not None:
                break
            back = back.f_back
        code = frame.f_code
        rec = _Frame(
            _len(self.frames),
            code.co_name,
            0 if parent is None else parent.depth + 1,
            -1 if parent is None else parent.ident,
            code.co_name in _INLINE_CODE_NAMES,
        )
        self.frames.append(rec)
        live[frame] = rec
        if self._make_snap is not None:
            rec.snap = self._make_snap(rec)
        rec.local = self._make_local(rec)
        return rec

    def _forget(self, frame: Any) -> None:
        """A program frame has ended: stop tracking it and release what it holds."""
        rec = self._live.pop(frame, None)
        if rec is not None and rec.release is not None:
            rec.release()

    def _reval_mark(
        self, frame: Any, rec: _Frame, line: int, kind: str, value: Any, final: bool
    ) -> None:
        """A return/exception event in reval mode: onto the last state if it is on the
        same line, else onto a new state with empty locals (as REval's tracer does)."""
        steps = self._steps
        index = self._intern(value) if self.capture == CAPTURE_FULL else -1
        if final:
            self._forget(frame)
        if not (steps and steps[-3] == line):
            if _len(steps) >= 3 * self.limits.max_steps:
                self._truncate("steps")
                return
            steps.extend((line, rec.ident, self._empty_snapshot()))
        self.marks.append([_len(steps) // 3 - 1, kind, index])

    def _empty_snapshot(self) -> int:
        if self.capture != CAPTURE_FULL:
            return -1
        index = _len(self.snapshots)
        self.snapshots.append({})
        if index + 1 >= self.limits.max_states:
            self._capped[0] = True
        return index

    def _exact_exit(self, frame: Any, rec: _Frame, value: Any, final: bool) -> None:
        if self.capture == CAPTURE_FULL:
            rec.final = self._snapshot(rec, frame.f_locals)
            rec.result = self._intern(value)
        if final:
            self._forget(frame)
        else:
            rec.step_line = -1  # a generator resumes later: its next line is a new step

    def _exact_exception(self, rec: _Frame, exc_type: Any) -> None:
        if self.capture == CAPTURE_FULL:
            rec.exception = self._intern(exc_type)
            if self._steps:
                self.marks.append([_len(self._steps) // 3 - 1, "exception", rec.exception])

    # ------------------------------------------------------------------ result
    def result(self) -> dict[str, Any]:
        """Everything recorded, as JSON-ready data (see ``execlens.trace.Trace``)."""
        self.stop()
        # Building the record allocates a list per step and a dict per value, all kept:
        # left on, the cyclic GC would walk the whole recording again and again.  None of
        # it can form a cycle, and no program code runs meanwhile.
        collecting = _gc.isenabled()
        _gc.disable()
        try:
            frames = [
                [f.name, f.depth, f.parent, f.result, f.exception, f.final, 1 if f.inline else 0]
                for f in self.frames
            ]
            return {
                "version": 1,
                "mode": self.mode,
                "capture": self.capture,
                "backend": self.backend,
                "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
                "coverage": sorted(self.coverage),
                "steps": self.steps,
                "frames": frames,
                "marks": self.marks,
                "snapshots": self.snapshots,
                "values": _envelopes(self.values),
                "truncated": self.truncated,
                "events": _len(self._steps) // 3,
            }
        finally:
            if collecting:
                _gc.enable()
