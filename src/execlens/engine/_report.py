"""The child's side of its channels to the server: the inputs it is told to run, and the
one result frame it sends for each.

Every child has three pipes of its own, made by the server for that child alone
(:mod:`execlens.engine._watch`): results (``RESULT_FD``), raw output (fds 1 and 2) and
control (``CONTROL_FD``, server to child).  The server *starts* each input by writing
its index and a fresh random *nonce* on the control pipe; the child's result frame for
that input must carry the nonce.  The server starts input *i + 1* only once it has
accepted the result of input *i*, so the child learns nonce *i + 1* only then.  The
first start message also names where the child stops (the end of its run of one
origin, see ``Job.origin``), so a child never runs an input of another origin.  To
keep the channel from costing a round trip per input, the child begins input *i + 1*
as soon as it has sent result *i* and reads its nonce only when it has a result to
send: the server's answer travels while the program runs.

What code inside the child can and cannot forge -- and why that is enough:

* It **can** forge the result of the input it is running: it shares the process with
  the reporting code, so it can read the nonce and write a frame (or patch this
  module).  That is one origin speaking about its own code: a program decides what its
  own executions return anyway.
* It **cannot** pre-write the result of a later input: that input's nonce does not
  exist until the server has accepted every result before it.  Nor can it write two
  results for one input (the server takes a second frame with a known nonce as proof
  of forgery and marks that input ``crashed``), speak for another child (other
  children's pipes are not in its process) or break the server (the server checks
  every frame, :mod:`execlens.engine._frames`).
* Code that *outlives* its input could answer for later inputs as the server starts
  them.  Left behind -- a thread, a timer, a hook -- it retires the child before the
  next nonce is sent (:mod:`execlens.engine._guard`).  A program that never returns on
  purpose, reading the control pipe itself, is not stopped by anything in-process; but
  code of another origin is never in its process (``Job.origin``), so all it can forge
  is more verdicts on its own code, which it decides anyway.
"""

from __future__ import annotations

import os
import time
from typing import Any

from execlens.engine._protocol import RESULT_FRAME_LIMIT, encode_frame

__all__ = [
    "CONTROL_FD",
    "GO_SIZE",
    "RESULT_FD",
    "STATE",
    "ChildState",
    "elapsed",
    "emit",
    "go_message",
    "read_go",
]

RESULT_FD = 199
CONTROL_FD = 198
#: A start message: input index (4 bytes), nonce (8 bytes), flags (1 byte), stop (4).
GO_SIZE = 17
GO_LAST = 1  # flag: no input follows this one in this child (skip the state guard)

# Bound at import: sandboxed code may replace these in builtins before we report.
bytes = bytes  # noqa: PLW0127
int = int  # noqa: PLW0127
len = len  # noqa: PLW0127
memoryview = memoryview  # noqa: PLW0127
_os_read = os.read
_os_write = os.write
_set_blocking = os.set_blocking


class ChildState:
    """Mutable per-child state, reachable from the output capture on overflow.

    An instance, not class attributes: assigning to a class attribute invalidates the
    type's version tag, and every specialised instruction that read it then rewrites
    itself -- in a forked child, each such write is a copy-on-write page fault.
    """

    __slots__ = (
        "index",
        "last",
        "limit",
        "nonce",
        "result_fd",
        "seed",
        "started",
        "stderr",
        "stdout",
        "used",
    )

    def __init__(self) -> None:
        self.nonce = ""
        self.result_fd = RESULT_FD
        self.index = 0
        self.last = True
        self.used = 0
        self.limit = 0
        self.started = 0.0
        self.seed: int | None = None  # the running input's Job.seed
        self.stdout: Any = None  # the running input's captures (_capture.Capture)
        self.stderr: Any = None


STATE = ChildState()


def read_go(fd: int = CONTROL_FD) -> tuple[int, str, bool, int] | None:
    """The next start message: ``(index, nonce, last, stop)``; ``None`` when the server
    closed the control pipe (no more inputs for this child)."""
    data = b""
    while len(data) < GO_SIZE:
        try:
            chunk = _os_read(fd, GO_SIZE - len(data))
        except BlockingIOError:  # the program set O_NONBLOCK on it: wait all the same
            _set_blocking(fd, True)
            continue
        if not chunk:
            return None
        data += chunk
    return (
        int.from_bytes(data[:4], "big"),
        data[4:12].hex(),
        bool(data[12] & GO_LAST),
        int.from_bytes(data[13:17], "big"),
    )


def go_message(index: int, nonce: bytes, last: bool, stop: int) -> bytes:
    """The start message for input ``index`` (built by the server): ``stop`` is where
    the child's run ends, ``last`` whether ``index`` is the last input it will run."""
    flags = (GO_LAST if last else 0).to_bytes(1, "big")
    return index.to_bytes(4, "big") + nonce + flags + stop.to_bytes(4, "big")


def emit(record: dict[str, Any]) -> None:
    """Send ``record`` as the result of the running input (index and nonce added)."""
    record["i"] = STATE.index
    record["n"] = STATE.nonce
    frame = encode_frame(record)
    if len(frame) > RESULT_FRAME_LIMIT:
        frame = _within_frame_limit(record, len(frame))
    data = memoryview(frame)
    while data:
        try:
            data = data[_os_write(STATE.result_fd, data) :]
        except BlockingIOError:
            # The program set O_NONBLOCK on its own pipe: the result still goes out.
            _set_blocking(STATE.result_fd, True)


def _within_frame_limit(record: dict[str, Any], size: int) -> bytes:
    """A frame the server accepts for a result too large for one (the value or runner
    data is what overflows: captured output alone always fits, see Limits.output_bytes)."""
    message = (
        f"the result ({size} bytes encoded) exceeds the {RESULT_FRAME_LIMIT}-byte "
        "result frame; its value and runner data were dropped"
    )
    slim: dict[str, Any] = {
        key: record[key] for key in ("i", "n", "duration", "peak_memory_mb") if key in record
    }
    slim.update(status="sandbox_error", message=message)
    for key in ("stdout", "stderr", "stdout_truncated", "stderr_truncated", "retire"):
        if key in record:
            slim[key] = record[key]
    frame = encode_frame(slim)
    if len(frame) > RESULT_FRAME_LIMIT:
        slim.update(stdout="", stderr="", stdout_truncated=True, stderr_truncated=True)
        frame = encode_frame(slim)
    return frame


def elapsed() -> float:
    """Seconds since the running input started."""
    return time.perf_counter() - STATE.started
