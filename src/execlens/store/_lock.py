"""An exclusive, crash-safe lock on a run directory.

``fcntl.flock`` on ``DIR/.lock``: the kernel drops it when its holder dies (SIGKILL
included), so a killed run's lock is free again with no stale-lock guessing; the
holder's pid is written into the file only to name it in the refusal.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from ._errors import RunLockedError

__all__ = ["LOCK_NAME", "DirectoryLock"]

LOCK_NAME = ".lock"


class DirectoryLock:
    """Held from ``acquire`` until ``release`` (or the holder's death)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock now or raise ``RunLockedError`` naming the holder's pid."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_pid(fd)
            os.close(fd)
            raise RunLockedError(self.directory, holder) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Let go (the file stays: removing it would race with a waiting opener)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._fd is not None


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None
