"""Length-prefixed JSON frames, used host↔server and child→server.

A frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON.  JSON
only: nothing that crosses the sandbox wall is ever unpickled.
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any

__all__ = [
    "RESULT_FRAME_LIMIT",
    "FrameError",
    "FrameReader",
    "decode_json",
    "encode_frame",
    "read_frame",
    "read_frame_bytes",
    "write_bytes",
    "write_frame",
]

_HEADER = struct.Struct(">I")
MAX_FRAME = 256 * 1024 * 1024
# The largest result frame a child may send its server (Limits.output_bytes is bounded
# so that captured output always fits in one).
RESULT_FRAME_LIMIT = 64 * 1024 * 1024


# Bound at import, as module globals: sandboxed code may replace these in builtins
# before our code encodes and reports its result.
bytes = bytes  # noqa: PLW0127
len = len  # noqa: PLW0127
memoryview = memoryview  # noqa: PLW0127
min = min  # noqa: PLW0127
type = type  # noqa: PLW0127
isinstance = isinstance  # noqa: PLW0127
dict = dict  # noqa: PLW0127


class FrameError(Exception):
    """A malformed or oversized frame: the peer broke the protocol."""


def _unserialisable(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _make_encoder() -> Any:
    # The C encoder, built once: json.dumps would rebuild it (in Python) on every call,
    # which in a freshly forked child means copy-on-write faults on every page it touches.
    try:
        from json.encoder import (  # type: ignore[attr-defined]  # CPython's C half
            c_make_encoder,
            encode_basestring,
        )
    except ImportError:  # pragma: no cover - CPython always has _json
        c_make_encoder = None
    if c_make_encoder is None:  # pragma: no cover
        return lambda message: json.dumps(
            message, ensure_ascii=False, separators=(",", ":"), allow_nan=False
        )
    encoder = c_make_encoder(
        {}, _unserialisable, encode_basestring, None, ":", ",", False, False, False
    )
    return lambda message: "".join(encoder(message, 0))


_encode_json = _make_encoder()


def encode_frame(message: Any) -> bytes:
    """Serialise one message into a frame (compact JSON, NaN/inf rejected)."""
    body = _encode_json(message).encode("utf-8", "surrogatepass")
    return _HEADER.pack(len(body)) + body


_os_write = os.write  # bound at import: sandboxed code may replace os.write


def write_frame(fd: int, message: Any) -> None:
    """Write one frame to a file descriptor, retrying short writes."""
    write_bytes(fd, encode_frame(message))


def write_bytes(fd: int, frame: bytes) -> None:
    """Write an encoded frame to a file descriptor, retrying short writes."""
    data = memoryview(frame)
    while data:
        written = _os_write(fd, data)
        data = data[written:]


def decode_json(body: bytes) -> Any:
    """``json.loads`` that fails only with :class:`FrameError`, whatever the bytes.

    ``RecursionError`` (a frame nested 100,000 deep) and ``MemoryError`` are the peer's
    doing as much as a syntax error is, and must not take the reader down with them.
    """
    try:
        return json.loads(body)
    except (UnicodeDecodeError, ValueError) as exc:
        raise FrameError(f"frame is not JSON: {exc}") from exc
    except RecursionError:
        raise FrameError("frame is nested too deeply to decode") from None
    except MemoryError:
        raise FrameError("frame is too large to decode") from None


def _read_exact(fd: int, size: int) -> bytes | None:
    chunks = []
    remaining = size
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            if remaining == size:
                return None
            raise FrameError("connection closed inside a frame")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame_bytes(fd: int) -> bytes | None:
    """Read one frame's body undecoded (blocking); ``None`` on a clean end of stream."""
    header = _read_exact(fd, _HEADER.size)
    if header is None:
        return None
    (length,) = _HEADER.unpack(header)
    if length > MAX_FRAME:
        raise FrameError(f"frame of {length} bytes exceeds the {MAX_FRAME}-byte limit")
    body = _read_exact(fd, length)
    if body is None:
        raise FrameError("connection closed inside a frame")
    return body


def read_frame(fd: int) -> Any:
    """Read one frame (blocking); ``None`` on a clean end of stream."""
    body = read_frame_bytes(fd)
    if body is None:
        return None
    return decode_json(body)


class FrameReader:
    """Incremental frame parser for non-blocking reads (the server's poll loop).

    Whatever bytes it is fed, it returns messages or raises :class:`FrameError`
    (never ``RecursionError`` or ``MemoryError``): a hostile peer breaks only its own
    channel.
    """

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self._max = max_frame
        self.total = 0

    def feed(self, data: bytes) -> list[Any]:
        """Add bytes; return every complete message now available."""
        return [message for message, _ in self.feed_sized(data)]

    def feed_sized(self, data: bytes) -> list[tuple[Any, int]]:
        """Add bytes; return every complete message now available with its frame's size."""
        self._buffer += data
        self.total += len(data)
        messages: list[tuple[Any, int]] = []
        while len(self._buffer) >= _HEADER.size:
            (length,) = _HEADER.unpack_from(self._buffer)
            if length > self._max:
                raise FrameError(f"frame of {length} bytes exceeds the {self._max}-byte limit")
            end = _HEADER.size + length
            if len(self._buffer) < end:
                break
            body = bytes(self._buffer[_HEADER.size : end])
            del self._buffer[:end]
            messages.append((decode_json(body), end))
        return messages

    @property
    def pending(self) -> int:
        """Bytes received that do not yet form a complete frame."""
        return len(self._buffer)
