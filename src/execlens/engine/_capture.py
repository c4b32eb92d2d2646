"""The program's ``sys.stdout``/``sys.stderr`` in the child: capped text captures."""

from __future__ import annotations

import io
import os
from typing import Any, NoReturn

from execlens.engine._report import STATE, elapsed, emit

__all__ = ["BytesCapture", "Capture", "captured", "overflow"]

# Bound at import: sandboxed code may replace these in builtins before we report.
bool = bool  # noqa: PLW0127
bytes = bytes  # noqa: PLW0127
isinstance = isinstance  # noqa: PLW0127
len = len  # noqa: PLW0127
str = str  # noqa: PLW0127
type = type  # noqa: PLW0127


class Capture:
    """A capped text stream standing in for ``sys.stdout``/``sys.stderr``.

    stdout and stderr share one budget.  Past it, the input is reported as
    ``output_limit`` and the child exits at once: the program cannot catch that.
    A plain class rather than an ``io`` subclass: it is created after every fork, and
    the less interpreter state a child touches, the fewer pages it copies.
    """

    encoding = "utf-8"
    errors = "strict"
    closed = False
    newlines = None

    def __init__(self, name: str) -> None:
        self.name = name
        self.parts: list[str] = []
        self.truncated = False

    def writable(self) -> bool:
        """Always: it is an output stream."""
        return True

    def readable(self) -> bool:
        """Never."""
        return False

    def seekable(self) -> bool:
        """Never."""
        return False

    def isatty(self) -> bool:
        """Never."""
        return False

    def fileno(self) -> int:
        """None: a capture is no file."""
        raise io.UnsupportedOperation("captured stream has no file descriptor")

    def flush(self) -> None:
        """Nothing to flush."""
        return None

    def close(self) -> None:
        """Closing is a no-op: the next write must still be captured."""
        return None

    @property
    def buffer(self) -> BytesCapture:
        """A bytes view for programs that write bytes."""
        return BytesCapture(self)

    def writelines(self, lines: Any) -> None:
        """Write each line."""
        for line in lines:
            self.write(line)

    def write(self, text: str) -> int:
        """Capture ``text``; past the shared budget, report ``output_limit`` and exit."""
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        STATE.used += len(text)
        if STATE.used > STATE.limit:
            room = len(text) - (STATE.used - STATE.limit)
            if room > 0:
                self.parts.append(text[:room])
            self.truncated = True
            overflow()
        self.parts.append(text)
        return len(text)

    def text(self) -> str:
        """Everything captured."""
        return "".join(self.parts)


class BytesCapture:
    """``sys.stdout.buffer`` for programs that write bytes."""

    def __init__(self, capture: Capture) -> None:
        self._capture = capture

    def write(self, data: bytes) -> int:
        """Capture ``data`` as UTF-8 text (undecodable bytes replaced)."""
        self._capture.write(bytes(data).decode("utf-8", "replace"))
        return len(data)

    def flush(self) -> None:
        """Nothing to flush."""
        return None


def captured() -> dict[str, Any]:
    """The running input's captured text, as result fields."""
    out, err = STATE.stdout, STATE.stderr
    return {
        "stdout": out.text() if out else "",
        "stderr": err.text() if err else "",
        "stdout_truncated": bool(out and out.truncated),
        "stderr_truncated": bool(err and err.truncated),
    }


def overflow() -> NoReturn:
    """Report the running input as ``output_limit`` and end the child (retiring it)."""
    record = {
        "status": "output_limit",
        "duration": elapsed(),
        "message": f"stdout+stderr exceeded {STATE.limit} characters",
        "retire": "the output limit",
    }
    record.update(captured())
    try:
        emit(record)
    finally:
        os._exit(0)
