"""Progress of long verbs: bars on a terminal, plain lines when the output is piped.

A run started from a terminal shows rich bars on stderr.  A run whose output is piped
(CI logs, ``| tee``, a job scheduler) cannot draw bars, but a person reading the log
still needs to see that it moves: it gets one plain line per stage now and then on
stdout (stderr stays for the one ``error:`` line a failed run ends with).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO, Any, Self

__all__ = ["StageProgress"]

# A piped line at most this often per stage, and at each tenth of the way: enough to
# see a run move without filling a log.
_PLAIN_EVERY_SECONDS = 10.0
_PLAIN_STEPS = 10


class StageProgress:
    """One progress display with a bar (or plain lines) per stage.

    ``enabled=False`` shows nothing; otherwise a terminal on ``stderr`` gets rich bars and
    anything else gets plain lines on ``stdout`` -- unless ``plain=False`` (a verb whose
    stdout is one JSON document).
    """

    def __init__(
        self,
        enabled: bool,
        *,
        plain: bool = True,
        stderr: IO[str] | None = None,
        stdout: IO[str] | None = None,
    ) -> None:
        self._stderr = stderr or sys.stderr
        self._stdout = stdout or sys.stdout
        self.bar: Any = None
        self.plain = False
        if not enabled:
            return
        if self._stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(file=self._stderr),
                transient=True,
            )
        else:
            self.plain = plain

    def __enter__(self) -> Self:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def stage(self, name: str, total: int, done: int = 0) -> Callable[[int], None]:
        """A callback setting the stage's completed count (absolute, not a delta)."""
        if self.bar is not None:
            task = self.bar.add_task(name, total=total, completed=done)
            bar = self.bar
            return lambda count: bar.update(task, completed=count)
        if not self.plain:
            return lambda count: None
        return _PlainStage(name, total, done, self._stdout)


class _PlainStage:
    """Plain ``name: done/total (seconds)`` lines, throttled."""

    def __init__(self, name: str, total: int, done: int, out: IO[str]) -> None:
        self.name, self.total, self.out = name, max(total, 0), out
        self.started = time.monotonic()
        self.last_time = self.started
        self.last_step = self._step(done)
        self.finished = done >= total > 0

    def _step(self, count: int) -> int:
        return count * _PLAIN_STEPS // self.total if self.total else _PLAIN_STEPS

    def __call__(self, count: int) -> None:
        if self.finished:
            return
        now = time.monotonic()
        step = self._step(count)
        done = count >= self.total
        if done or step > self.last_step or now - self.last_time >= _PLAIN_EVERY_SECONDS:
            self.out.write(f"{self.name}: {count}/{self.total} ({now - self.started:.0f} s)\n")
            self.out.flush()
            self.last_time, self.last_step, self.finished = now, step, done
