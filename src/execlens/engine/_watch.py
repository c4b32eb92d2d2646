"""The server's side of one child: its own pipes, the inputs it starts, the frames it reads.

Each child gets three fresh pipes (:class:`ChildPipes`); nothing a child does to its
descriptors (``O_NONBLOCK``, a grandchild holding one open, bytes left unread) can reach
the next child.  :class:`ChildWatch` starts the child's inputs one at a time, each with
a fresh nonce, and reads at most one result per input: a frame that does not carry the
nonce of an input this child was told to run, or that breaks a bound
(:func:`execlens.engine._frames.check_result`), or a second frame for one input, marks
the input it speaks for ``crashed`` -- and only that input: every result already read
from this child and every other child's stays.  See :mod:`execlens.engine._report` for
what code inside the child can still forge.
"""

from __future__ import annotations

import fcntl
import os
from typing import Any

from execlens.engine._frames import check_result
from execlens.engine._protocol import (
    MAX_FRAME,
    RESULT_FRAME_LIMIT,
    FrameError,
    FrameReader,
)
from execlens.engine._report import go_message

__all__ = ["REQUEST_BUDGET", "ChildPipes", "ChildWatch"]

_READ_CHUNK = 1 << 16
#: What the results of one request may add up to, so that the server's answer always
#: fits the frame the host accepts (``MAX_FRAME``), with room for raw output.
REQUEST_BUDGET = MAX_FRAME - 32 * 1024 * 1024


class ChildPipes:
    """The three pipes of one child: results and raw output (child to server) and
    control (server to child).  The server keeps the read ends of the first two
    (non-blocking) and the write end of the third; the other ends go to the child."""

    def __init__(self) -> None:
        self.result_r, self.result_w = os.pipe2(os.O_CLOEXEC)
        self.output_r, self.output_w = os.pipe2(os.O_CLOEXEC)
        self.control_r, self.control_w = os.pipe2(os.O_CLOEXEC)
        # Read ends only (the child's writes block, as a pipe's should); one syscall
        # each: their flags are known.
        fcntl.fcntl(self.result_r, fcntl.F_SETFL, os.O_RDONLY | os.O_NONBLOCK)
        fcntl.fcntl(self.output_r, fcntl.F_SETFL, os.O_RDONLY | os.O_NONBLOCK)
        self._child_ends: tuple[int, ...] = (self.result_w, self.output_w, self.control_r)

    def child_ends(self) -> tuple[int, int, int]:
        """The ends the child gets: results to write, raw output to write, control to read."""
        return self.result_w, self.output_w, self.control_r

    def close_child_ends(self) -> None:
        """Drop the server's copies of the child's ends (once the child holds them)."""
        for fd in self._child_ends:
            os.close(fd)
        self._child_ends = ()

    def close(self) -> None:
        """Close every end still open."""
        self.close_child_ends()
        for fd in (self.result_r, self.output_r, self.control_w):
            try:
                os.close(fd)
            except OSError:
                pass


class ChildWatch:
    """One child's run: which input it runs, its results and raw output, how it ended."""

    def __init__(
        self,
        pipes: ChildPipes,
        start: int,
        stop: int,
        results: list[dict[str, Any] | None],
        cap: int,
        budget: list[int],
    ) -> None:
        self.pipes = pipes
        self.current = start
        self.stop = stop
        self.results = results
        self.cap = cap
        self.budget = budget  # [bytes the request's results may still take]
        self.reader = FrameReader(max_frame=RESULT_FRAME_LIMIT)
        self.nonces: dict[str, int] = {}  # the nonce of every input this child was given
        self.accepted: set[int] = set()  # inputs this child returned a result for
        self.raw_output: dict[int, bytearray] = {}
        self.raw_total = 0
        self.done = False  # every input given to it has its result, or it retired
        self.retired: str | None = None
        self.exited = False
        self.failure: tuple[str, str] | None = None
        # Every nonce this child may need, drawn at once: each is sent only when its
        # input starts, so the child never sees one early.
        self._entropy = os.urandom(8 * max(1, stop - start))

    @property
    def running(self) -> bool:
        """Whether the child is still expected to send something."""
        return self.failure is None and not self.exited and not self.done

    def fail(self, status: str, message: str) -> None:
        """End the running input with ``status`` (the first failure wins)."""
        if self.failure is None:
            self.failure = (status, message)

    def begin(self, index: int) -> None:
        """Start input ``index`` in the child: a fresh nonce on its control pipe (with
        the child's stop: it never runs past it)."""
        nonce = self._entropy[8 * len(self.nonces) : 8 * len(self.nonces) + 8]
        if len(nonce) < 8:  # past the planned stop (never, unless asked twice)
            nonce = os.urandom(8)
        self.nonces[nonce.hex()] = index
        self.current = index
        message = go_message(index, nonce, index + 1 >= self.stop, self.stop)
        try:
            os.write(self.pipes.control_w, message)
        except OSError:  # the child closed its end: it has exited, the pidfd will say so
            pass

    def read(self, fd: int) -> int:
        """Read what is available on ``fd``; returns bytes read (-1 when none)."""
        try:
            data = os.read(fd, _READ_CHUNK)
        except BlockingIOError:
            return -1
        if fd == self.pipes.output_r:
            self._raw(data)
        else:
            self._frames(data)
        return len(data)

    def drain(self) -> None:
        """Read everything the child wrote before it died."""
        for fd in (self.pipes.result_r, self.pipes.output_r):
            while self.failure is None and self.read(fd) > 0:
                pass

    def _raw(self, data: bytes) -> None:
        self.raw_total += len(data)
        buffer = self.raw_output.setdefault(self.current, bytearray())
        if len(buffer) < self.cap:
            buffer += data[: self.cap - len(buffer)]
        if self.raw_total > self.cap:
            self.fail("output_limit", f"raw output exceeded {self.cap} bytes")

    def _frames(self, data: bytes) -> None:
        try:
            messages = self.reader.feed_sized(data)
        except FrameError as exc:
            self.fail("crashed", f"the child broke the result channel: {exc}")
            return
        for message, size in messages:
            if self.failure is not None:
                return
            self._accept(message, size)

    def _accept(self, message: Any, size: int) -> None:
        nonce = message.get("n") if type(message) is dict else None
        index = self.nonces.get(nonce) if type(nonce) is str else None
        if index is None:
            self.fail(
                "crashed",
                "the child broke the result channel (a frame without the nonce of an "
                "input it was given)",
            )
            return
        if index in self.accepted or index != self.current:
            self._convict(index)
            return
        retire = message.get("retire")
        if retire is None and index + 1 < self.stop:
            # Start the child's next input before checking this result: the child has
            # already begun running it and is waiting for nothing else.  Should the
            # check fail, that input never counts (the child is killed).
            self.begin(index + 1)
        try:
            record = check_result(message, self.cap)
            if record.get("i") != index:
                raise FrameError("a frame for another input")
        except FrameError as exc:
            self.current = index
            self.fail("crashed", f"the child broke the result channel: {exc}")
            return
        del record["i"], record["n"]
        record.pop("retire", None)
        self.budget[0] -= size
        if self.budget[0] < 0:
            record = _over_budget(record)
        self.results[index] = record
        self.accepted.add(index)
        if retire is not None:
            self.retired = retire
            self.done = True
        elif index + 1 >= self.stop:
            self.done = True

    def _convict(self, index: int) -> None:
        """A second result for input ``index``: one of them was written by the program.
        That input is ``crashed``; what this child reported after it runs again."""
        for later in sorted(self.accepted):
            if later > index:
                self.results[later] = None
                self.accepted.discard(later)
        self.accepted.discard(index)
        self.results[index] = None
        self.current = index
        self.done = False
        self.fail(
            "crashed",
            "the child sent a second result for this input (the program wrote one itself)",
        )

    def attach_raw_output(self, index: int, record: dict[str, Any]) -> None:
        """Append fd-level output (os.write, subprocesses) to an input's stdout, within
        what the request's answer may still carry (JSON may write a byte as six)."""
        extra = self.raw_output.get(index)
        if not extra:
            return
        room = max(0, self.budget[0] // 6)
        text = extra[:room].decode("utf-8", "replace")
        self.budget[0] -= 6 * min(len(extra), room)
        record["stdout"] = record.get("stdout", "") + text
        if self.raw_total > self.cap or room < len(extra):
            record["stdout_truncated"] = True


def _over_budget(record: dict[str, Any]) -> dict[str, Any]:
    """A result past what one request may carry to the host: its status and timing kept,
    its value, runner data and text dropped."""
    slim: dict[str, Any] = {
        key: record[key] for key in ("duration", "peak_memory_mb") if key in record
    }
    slim["status"] = "sandbox_error"
    slim["message"] = (
        f"the results of this request exceed the {MAX_FRAME}-byte answer the host accepts; "
        "this one's value, output and runner data were dropped"
    )
    return slim
