"""A run directory: locked, identified by its manifest, holding shards, logs and results."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ._atomic import write_json_atomic, write_parquet_atomic, write_text_atomic
from ._errors import ManifestMismatchError, StoreError, output_error
from ._lock import LOCK_NAME, DirectoryLock
from ._log import JsonlLog
from ._manifest import MANIFEST_NAME, Manifest, identity_differences, normalise
from ._shards import ShardFormat, ShardSet

if TYPE_CHECKING:
    import pyarrow

__all__ = ["RunDir"]

# Files the store itself keeps; ``overwrite`` clears these and the ones in MANAGED_NAME.
_STORE_DIRS = ("shards", ".done")
MANAGED_NAME = ".managed"


class RunDir:
    """One run's output directory, exclusively held while open.

    Use ``RunDir.open(path, identity)`` as a context manager.  A directory that does not
    exist yet is created; one holding no manifest is adopted; one whose manifest names
    another identity is refused (``ManifestMismatchError``) unless ``overwrite=True``,
    which first deletes every file the store wrote there (and nothing else).
    """

    def __init__(self, path: Path, lock: DirectoryLock, manifest: Manifest) -> None:
        self.path = path
        self.manifest = manifest
        self._lock = lock
        self._managed = _read_managed(path)

    @classmethod
    def open(
        cls, path: Path | str, identity: Mapping[str, Any], *, overwrite: bool = False
    ) -> RunDir:
        """Lock ``path``, then create, resume or (``overwrite``) replace its run."""
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise StoreError(
                f"{path} is a file, not a run directory; name a directory "
                f"for --out (it will be created)"
            )
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            named = output_error(path, error)  # read-only, permission, disk full: the fix
            raise named or StoreError(
                f"cannot create run directory {path} ({error.strerror}); choose another --out"
            ) from None
        lock = DirectoryLock(path)
        try:
            lock.acquire()
        except OSError as error:  # permission denied, a read-only file system, disk full
            named = output_error(path, error)
            if named is None:
                raise
            raise named from None
        try:
            manifest = _settle_manifest(path, dict(identity), overwrite)
            _sweep_temporaries(path)
        except BaseException:
            lock.release()
            raise
        return cls(path, lock, manifest)

    def __enter__(self) -> RunDir:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Release the directory (also done by the kernel if the process dies)."""
        self._lock.release()

    def shards(
        self, name: str, *, format: ShardFormat = "jsonl", schema: pyarrow.Schema | None = None
    ) -> ShardSet:
        """The shard set ``name`` (``DIR/shards/<name>/<i:05d>.<format>``)."""
        return ShardSet(self.path, name, format=format, schema=schema)

    def log(self, name: str) -> JsonlLog:
        """The append-only JSONL log ``DIR/<name>``."""
        log = JsonlLog(self.file(name))
        self._register(log.corrupt_path.name)
        return log

    def file(self, name: str) -> Path:
        """``DIR/<name>``, recorded as store-managed (``overwrite`` will clear it)."""
        path = self.path / name
        if path.parent != self.path or name.startswith("."):
            raise StoreError(f"{name!r} is not a plain file name inside {self.path}")
        self._register(name)
        return path

    def record_environment(self, key: str, value: Any) -> None:
        """Record in ``manifest.json`` what this run ran under (e.g. ``"isolation"``)."""
        self.manifest = self.manifest.with_environment(key, value)
        self.manifest.save(self.path / MANIFEST_NAME)

    def write_json(self, name: str, obj: Any) -> Path:
        """Write ``DIR/<name>`` atomically: sorted keys, indent 2, trailing newline."""
        path = self.file(name)
        write_json_atomic(path, obj)
        return path

    def write_text(self, name: str, text: str) -> Path:
        """Write ``DIR/<name>`` atomically."""
        path = self.file(name)
        write_text_atomic(path, text)
        return path

    def write_parquet(
        self, name: str, records_or_table: Any, *, schema: pyarrow.Schema | None = None
    ) -> Path:
        """Write records or a pyarrow table as ``DIR/<name>`` (Parquet) atomically."""
        path = self.file(name)
        write_parquet_atomic(path, records_or_table, schema=schema)
        return path

    def _register(self, name: str) -> None:
        if name in self._managed:
            return
        self._managed.add(name)
        # Recorded before the file exists, so an --overwrite after a kill still finds it.
        write_text_atomic(
            self.path / MANAGED_NAME, "".join(f"{entry}\n" for entry in sorted(self._managed))
        )


def _settle_manifest(path: Path, identity: dict[str, Any], overwrite: bool) -> Manifest:
    identity = normalise(identity)
    manifest_path = path / MANIFEST_NAME
    if manifest_path.exists():
        if overwrite:
            _clear(path)
        else:
            old = Manifest.load(manifest_path)
            differing = identity_differences(old.identity, identity)
            if differing:
                raise ManifestMismatchError(path, differing)
            return old
    elif overwrite:
        _clear(path)
    manifest = Manifest.new(identity)
    manifest.save(manifest_path)
    return manifest


def _clear(path: Path) -> None:
    for name in sorted(_read_managed(path)) + [MANIFEST_NAME, MANAGED_NAME]:
        target = path / name
        if target.is_file() or target.is_symlink():
            target.unlink()
    for name in _STORE_DIRS:
        if (path / name).is_dir():
            shutil.rmtree(path / name)


def _sweep_temporaries(path: Path) -> None:
    # Half-written temporaries of a killed writer; the lock guarantees none is live.
    places = [path] + [
        sub
        for name in _STORE_DIRS
        if (path / name).is_dir()
        for sub in (path / name).iterdir()
        if sub.is_dir()
    ]
    for place in places:
        for leftover in place.glob(".*.tmp"):
            leftover.unlink(missing_ok=True)


def _read_managed(path: Path) -> set[str]:
    try:
        text = (path / MANAGED_NAME).read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return set()
    return {
        line
        for line in text.splitlines()
        if line and "/" not in line and line not in (LOCK_NAME, "..", ".")
    }
