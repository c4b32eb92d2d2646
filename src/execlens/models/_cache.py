"""A persistent, content-addressed cache of model samples (sqlite, WAL).

One row per sample.  The key is the sha256 of everything that determines the sample:
endpoint kind, server identity (base URL or a stable namespace), model, the messages or
prompt, the sampling parameters (without ``n``) and the sample index.  Rows are written
as each response arrives, so a killed run loses only what was in flight.

A corrupt cache file (truncated, overwritten, not a database) is never fatal: it is
detected when opened and on any query, moved aside to ``<name>.corrupt-<timestamp>``
(one warning line names both files) and replaced by a fresh, empty cache.  Opening,
checking and moving aside happen under an exclusive ``flock`` on ``<name>.lock``, so
two processes opening one cache at once neither race on its setup nor move aside a
cache the other has just rebuilt.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ._types import Completion, GenerationRequest, SamplingParams, Usage

logger = logging.getLogger("execlens.models")
_T = TypeVar("_T")

# sqlite's primary result codes that mean the file itself is damaged, not busy.
_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26

KEY_VERSION = 1
CACHE_FILE = "requests.sqlite"
_TRUE = {"1", "true", "yes", "on"}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS samples (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    namespace TEXT NOT NULL,
    kind TEXT NOT NULL,
    sample_index INTEGER NOT NULL,
    text TEXT,
    reasoning TEXT,
    finish_reason TEXT,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    choices_in_request INTEGER NOT NULL,
    created REAL NOT NULL
)
"""


def default_cache_dir() -> Path:
    """``$EXECLENS_CACHE_DIR``, else ``$XDG_CACHE_HOME/execlens``, else ``~/.cache/execlens``."""
    configured = os.environ.get("EXECLENS_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "execlens"


def cache_disabled_by_env() -> bool:
    """True when ``EXECLENS_DISABLE_CACHE`` is set to a true value."""
    return os.environ.get("EXECLENS_DISABLE_CACHE", "").strip().lower() in _TRUE


def sample_key(
    *,
    kind: str,
    namespace: str,
    model: str,
    request: GenerationRequest,
    params: SamplingParams,
    sample_index: int,
) -> str:
    """The sha256 hex key of one sample (``namespace`` is the base URL unless overridden)."""
    payload: dict[str, Any] = {
        "v": KEY_VERSION,
        "kind": kind,
        "namespace": namespace.rstrip("/"),
        "model": model,
        "params": params.key_fields(),
        "sample": sample_index,
    }
    if request.messages is not None:
        payload["messages"] = [m.model_dump() for m in request.messages]
    else:
        payload["prompt"] = request.prompt
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class RequestCache:
    """The sqlite sample cache; safe to share across threads and processes.

    Each thread gets its own connection (sqlite connections are not thread-safe);
    WAL mode lets readers and one writer work at once across processes, and a busy
    timeout makes concurrent writers wait instead of failing.
    """

    def __init__(self, path: str | Path | None = None, *, busy_timeout: float = 60.0) -> None:
        """Open (creating if needed) the cache at ``path`` or in the default directory."""
        if path is None:
            path = default_cache_dir() / CACHE_FILE
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self._busy_ms = int(busy_timeout * 1000)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._closed = False
        # Bumped when a corrupt file is replaced: threads then drop their old connection.
        self._generation = 0
        self.recovered: list[Path] = []  # where corrupt files were moved, in order
        self._connect()  # fail early (bad path, unwritable dir) rather than mid-run

    def _connect(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None and self._local.generation == self._generation:
            return conn
        if conn is not None:
            self._forget(conn)
        if self._closed:
            raise RuntimeError(f"request cache {self.path} is closed")
        with self._file_lock():
            try:
                conn = self._open_checked()
            except sqlite3.DatabaseError as error:
                if not _is_corruption(error):
                    raise
                self._move_aside(error)
                conn = self._open_checked()
        self._local.conn = conn
        self._local.generation = self._generation
        with self._lock:
            self._connections.append(conn)
        return conn

    def _open_checked(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path,
            timeout=self._busy_ms / 1000,
            isolation_level=None,
            check_same_thread=False,
        )
        try:
            conn.execute(f"PRAGMA busy_timeout={self._busy_ms}")
            conn.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a committed row survives a killed process (only an OS
            # crash could lose the last commits), and commits stay cheap enough for one each.
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(_SCHEMA)
            # Touch the table's first and last pages: a truncated file fails here, at
            # open, not in the middle of a run (a full integrity check would read it all).
            conn.execute("SELECT key FROM samples ORDER BY rowid LIMIT 1").fetchall()
            conn.execute("SELECT key FROM samples ORDER BY rowid DESC LIMIT 1").fetchall()
        except BaseException:
            conn.close()
            raise
        return conn

    @contextlib.contextmanager
    def _file_lock(self) -> Iterator[None]:
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing drops the flock

    def _move_aside(self, error: sqlite3.DatabaseError) -> None:
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        suffix = 1
        while target.exists():
            suffix += 1
            target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}-{suffix}")
        os.replace(self.path, target)
        # The write-ahead log and shared memory belong to the moved file, not the new one.
        for extra in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + extra)
            if side.exists():
                os.replace(side, target.with_name(target.name + extra))
        self.recovered.append(target)
        logger.warning(
            "request cache %s is corrupt (%s); moved it to %s and started an empty cache",
            self.path,
            error,
            target,
        )

    def _recover(self, conn: sqlite3.Connection, error: sqlite3.DatabaseError) -> None:
        """Replace the corrupt file under the lock unless another opener already did."""
        self._forget(conn)
        self._local.conn = None
        with self._file_lock():
            try:
                self._open_checked().close()
                healthy = self._probe_all()
            except sqlite3.DatabaseError as again:
                if not _is_corruption(again):
                    raise
                healthy = False
            if not healthy:
                self._move_aside(error)
            self._generation += 1

    def _probe_all(self) -> bool:
        # Only after a query failed: now reading the whole file is worth it.
        probe = sqlite3.connect(self.path, timeout=self._busy_ms / 1000)
        try:
            return bool(probe.execute("PRAGMA quick_check").fetchone()[0] == "ok")
        finally:
            probe.close()

    def _forget(self, conn: sqlite3.Connection) -> None:
        with self._lock:
            if conn in self._connections:
                self._connections.remove(conn)
        with contextlib.suppress(sqlite3.Error):
            conn.close()

    def _guarded(self, operation: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run ``operation``; a corrupt file is replaced once and the operation retried."""
        conn = self._connect()
        try:
            return operation(conn)
        except sqlite3.DatabaseError as error:
            if not _is_corruption(error):
                raise
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            self._recover(conn, error)
            return operation(self._connect())

    def get_many(self, keys: Sequence[str]) -> dict[str, Completion]:
        """The cached samples among ``keys`` (missing keys are simply absent)."""
        if not keys:
            return {}

        def query(conn: sqlite3.Connection) -> dict[str, Completion]:
            found: dict[str, Completion] = {}
            # sqlite limits bound parameters per statement; stay well below it.
            for start in range(0, len(keys), 500):
                chunk = list(keys[start : start + 500])
                marks = ",".join("?" * len(chunk))
                rows = conn.execute(
                    "SELECT key, sample_index, text, reasoning, finish_reason, prompt_tokens,"
                    " completion_tokens, choices_in_request FROM samples"
                    f" WHERE key IN ({marks})",
                    chunk,
                ).fetchall()
                for key, index, text, reasoning, finish, ptok, ctok, choices in rows:
                    found[key] = Completion(
                        index=index,
                        text=text,
                        reasoning=reasoning,
                        finish_reason=finish,
                        usage=Usage(prompt_tokens=ptok, completion_tokens=ctok),
                        choices_in_request=choices,
                        cached=True,
                    )
            return found

        return self._guarded(query)

    def put_many(
        self, rows: Iterable[tuple[str, Completion]], *, model: str, namespace: str, kind: str
    ) -> int:
        """Store successful samples in one transaction; failed samples are never stored."""
        now = time.time()
        values = [
            (
                key,
                model,
                namespace,
                kind,
                c.index,
                c.text,
                c.reasoning,
                c.finish_reason,
                c.usage.prompt_tokens,
                c.usage.completion_tokens,
                c.choices_in_request,
                now,
            )
            for key, c in rows
            if c.ok
        ]
        if not values:
            return 0

        def insert(conn: sqlite3.Connection) -> int:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(
                    "INSERT OR REPLACE INTO samples VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", values
                )
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return len(values)

        return self._guarded(insert)

    def __len__(self) -> int:
        """How many samples are stored."""
        return self._guarded(
            lambda conn: int(conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0])
        )

    def clear(self) -> None:
        """Delete every stored sample."""
        self._guarded(lambda conn: conn.execute("DELETE FROM samples"))

    def close(self) -> None:
        """Close every connection this object opened (in any thread)."""
        with self._lock:
            self._closed = True
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._local = threading.local()

    def __enter__(self) -> RequestCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RequestCache({str(self.path)!r})"


def _is_corruption(error: sqlite3.DatabaseError) -> bool:
    """Whether ``error`` says the file is damaged (not merely busy or locked)."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB)
    text = str(error).lower()
    return "malformed" in text or "not a database" in text
