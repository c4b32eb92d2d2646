"""A persistent, content-addressed cache of model samples (sqlite, WAL).

One row per sample.  The key is the sha256 of everything that determines the sample:
endpoint kind, server identity (base URL or a stable namespace), model, the messages or
prompt, the sampling parameters (without ``n``) and the sample index.  Rows are written
as each response arrives, so a killed run loses only what was in flight.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ._types import Completion, GenerationRequest, SamplingParams, Usage

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
        self._busy_ms = int(busy_timeout * 1000)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._closed = False
        self._connect()  # fail early (bad path, unwritable dir) rather than mid-run

    def _connect(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        if self._closed:
            raise RuntimeError(f"request cache {self.path} is closed")
        conn = sqlite3.connect(
            self.path, timeout=self._busy_ms / 1000, isolation_level=None,
            check_same_thread=False,
        )
        conn.execute(f"PRAGMA busy_timeout={self._busy_ms}")
        conn.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode: a committed row survives a killed process (only an OS
        # crash could lose the last commits), and commits stay cheap enough for one each.
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(_SCHEMA)
        self._local.conn = conn
        with self._lock:
            self._connections.append(conn)
        return conn

    def get_many(self, keys: Sequence[str]) -> dict[str, Completion]:
        """The cached samples among ``keys`` (missing keys are simply absent)."""
        if not keys:
            return {}
        conn = self._connect()
        found: dict[str, Completion] = {}
        # sqlite limits bound parameters per statement; stay well below it.
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(
                "SELECT key, sample_index, text, reasoning, finish_reason, prompt_tokens,"
                f" completion_tokens, choices_in_request FROM samples WHERE key IN ({marks})",
                chunk,
            ).fetchall()
            for key, index, text, reasoning, finish, ptok, ctok, choices in rows:
                found[key] = Completion(
                    index=index, text=text, reasoning=reasoning, finish_reason=finish,
                    usage=Usage(prompt_tokens=ptok, completion_tokens=ctok),
                    choices_in_request=choices, cached=True,
                )
        return found

    def put_many(
        self, rows: Iterable[tuple[str, Completion]], *, model: str, namespace: str, kind: str
    ) -> int:
        """Store successful samples in one transaction; failed samples are never stored."""
        now = time.time()
        values = [
            (
                key, model, namespace, kind, c.index, c.text, c.reasoning, c.finish_reason,
                c.usage.prompt_tokens, c.usage.completion_tokens, c.choices_in_request, now,
            )
            for key, c in rows
            if c.ok
        ]
        if not values:
            return 0
        conn = self._connect()
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(
                "INSERT OR REPLACE INTO samples VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", values
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return len(values)

    def __len__(self) -> int:
        """How many samples are stored."""
        return int(self._connect().execute("SELECT COUNT(*) FROM samples").fetchone()[0])

    def clear(self) -> None:
        """Delete every stored sample."""
        self._connect().execute("DELETE FROM samples")

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
