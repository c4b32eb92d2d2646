"""The store's errors: each message is one line naming the file and the fix."""

from __future__ import annotations

import errno
from pathlib import Path

__all__ = [
    "CorruptRecordError",
    "ManifestMismatchError",
    "OutputWriteError",
    "RunLockedError",
    "StoreError",
    "output_error",
]


class StoreError(Exception):
    """Base class of every store error; ``str(error)`` is one line naming file and fix."""


class RunLockedError(StoreError):
    """Another live process holds the run directory."""

    def __init__(self, path: Path, pid: int | None) -> None:
        self.path = path
        self.pid = pid
        holder = f"pid {pid}" if pid is not None else "a process whose pid is unknown"
        super().__init__(
            f"{path} is in use by another run ({holder}); wait for it to finish, "
            f"or write to another --out"
        )


class ManifestMismatchError(StoreError):
    """The run directory holds a different run (its identity differs)."""

    def __init__(self, path: Path, keys: list[str]) -> None:
        self.path = path
        self.keys = keys
        super().__init__(
            f"{path} holds a different run (differs in: {', '.join(keys)}); "
            f"use another --out, or --overwrite to replace it"
        )


class CorruptRecordError(StoreError):
    """An unreadable record in a shard."""

    def __init__(self, path: Path, line: int, reason: str) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        super().__init__(
            f"{path} line {line}: {reason}; delete this shard (and its marker) to have it redone"
        )


# Why an output write failed, as the fix the user can make (errno -> message tail).
_OUTPUT_ERRNOS = {
    errno.ENOSPC: "no space left on the device; free some space and rerun (finished work "
    "is kept), or choose another --out",
    errno.EDQUOT: "disk quota exceeded; free some space and rerun (finished work is kept), "
    "or choose another --out",
    errno.EFBIG: "the file grew past the file system's size limit; choose another --out",
    errno.EROFS: "the file system is read-only; choose another --out",
    errno.EACCES: "permission denied; choose another --out, or make it writable",
    errno.EPERM: "operation not permitted; choose another --out, or make it writable",
}


class OutputWriteError(StoreError):
    """An output could not be written for a reason outside the program: the disk is full,
    the file system read-only, or the directory not writable."""

    def __init__(self, path: Path | str, error: OSError) -> None:
        self.path = Path(path)
        self.errno = error.errno
        fix = _OUTPUT_ERRNOS.get(error.errno or 0, f"{error.strerror or error}")
        super().__init__(f"cannot write {path}: {fix}")


def output_error(path: Path | str, error: OSError) -> OutputWriteError | None:
    """The named error for a failed write of ``path``, or ``None`` when ``error`` is not
    one the user fixes outside the program (disk full, read-only, permission)."""
    if error.errno not in _OUTPUT_ERRNOS:
        return None
    return OutputWriteError(path, error)
