"""One on-disk cache of computed ground truth, keyed by content and the program interpreter.

Truth a benchmark computes by running or tracing its programs (REval's traced questions,
the runtime benchmark's tasks, the strict truth runs of ``bench.build_truths``) depends
on the programs and questions, on the code that computes it (the benchmark's truth
version), on the host's Python and on the *program* interpreter with its packages (NumPy
1 or 2 changes REval's truth).  :class:`TruthCache` keys one JSON document by all of
them, so any run over the same content under the same program environment reuses it,
and another interpreter is another key, never served.  A torn or stale file reads as a
miss and is rebuilt, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from execlens.store import StoreError, read_json, write_text_atomic

__all__ = ["TRUTH_CACHE_VARIABLE", "TruthCache", "truth_cache_dir"]

#: The environment variable that moves the truth cache (tests point it at a tmp dir).
TRUTH_CACHE_VARIABLE = "EXECLENS_TRUTH_CACHE_DIR"

T = TypeVar("T")


def truth_cache_dir(default_name: str = "truth") -> Path:
    """``$EXECLENS_TRUTH_CACHE_DIR``, else ``default_name`` beside the request cache."""
    configured = os.environ.get(TRUTH_CACHE_VARIABLE)
    if configured:
        return Path(configured)
    from execlens.models import default_cache_dir

    return default_cache_dir() / default_name


@dataclass(frozen=True)
class TruthCache:
    """Truth documents under ``directory``, one ``<namespace>-<key>.json`` file each."""

    namespace: str
    directory: Path

    @staticmethod
    def program_of(engine: Any) -> dict[str, Any]:
        """The program environment a truth run in ``engine`` depends on (its interpreter
        with its packages; the default interpreter's when ``engine`` is None, as a tracing
        engine started later would get): NumPy 1 or 2 is another truth, never served."""
        from execlens.engine import program_fingerprint

        return program_fingerprint(getattr(engine, "python", None)).key()

    @staticmethod
    def key(content: Any, program: Mapping[str, Any]) -> str:
        """A content hash of ``content`` (canonical JSON: what the truth is computed
        from), the host's Python version and ``program`` (the program environment's
        ``engine.ProgramFingerprint.key()``)."""
        digest = hashlib.sha256()
        digest.update(
            json.dumps([list(sys.version_info[:2]), dict(program)], sort_keys=True).encode()
        )
        digest.update(json.dumps(content, sort_keys=True, default=repr).encode())
        return digest.hexdigest()[:32]

    def path(self, key: str) -> Path:
        """The file holding the document of ``key``."""
        return self.directory / f"{self.namespace}-{key}.json"

    def get(self, key: str, parse: Callable[[Any], T]) -> T | None:
        """``parse(document)`` of ``key``, or None when there is none or it does not
        parse (a torn write, an older truth version: ``parse`` raises ``ValueError``,
        ``KeyError`` or ``TypeError``)."""
        path = self.path(key)
        if not path.is_file():
            return None
        try:
            return parse(read_json(path))
        except (StoreError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, document: Any) -> None:
        """Write ``document`` for ``key`` atomically (a reader never sees half of it).

        Compact JSON, non-finite floats allowed (a truth may hold one), sorted keys.
        """
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, json.dumps(document, ensure_ascii=False, sort_keys=True))
