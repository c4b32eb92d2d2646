"""The store's errors: each message is one line naming the file and the fix."""

from __future__ import annotations

from pathlib import Path

__all__ = ["CorruptRecordError", "ManifestMismatchError", "RunLockedError", "StoreError"]


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
            f"or write to another --out")


class ManifestMismatchError(StoreError):
    """The run directory holds a different run (its identity differs)."""

    def __init__(self, path: Path, keys: list[str]) -> None:
        self.path = path
        self.keys = keys
        super().__init__(
            f"{path} holds a different run (differs in: {', '.join(keys)}); "
            f"use another --out, or --overwrite to replace it")


class CorruptRecordError(StoreError):
    """An unreadable record in a shard."""

    def __init__(self, path: Path, line: int, reason: str) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        super().__init__(
            f"{path} line {line}: {reason}; delete this shard (and its marker) "
            f"to have it redone")
