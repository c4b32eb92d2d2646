"""Writing and reading task files: JSONL for people, Parquet (pyarrow) for training."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from execlens.store import iter_jsonl
from execlens.tasks._model import RuntimeTask

__all__ = ["read_tasks", "write_tasks"]

# Columns whose values are nested JSON: Parquet keeps them as JSON strings.
_JSON_COLUMNS = ("reference", "meta")


def write_tasks(tasks: Iterable[RuntimeTask], path: str | Path, parquet: bool = False) -> int:
    """Write tasks as JSONL (or Parquet); returns how many were written.

    The file is written to a temporary name and renamed, so a killed run never leaves
    a half-written file behind.  Parquet goes only into a ``.parquet`` name (a ``.jsonl``
    name holding Parquet would fool every reader), JSONL never into ``.parquet``.
    """
    path = Path(path)
    if parquet and path.suffix == ".jsonl":
        raise ValueError(f"{path}: Parquet output needs a .parquet name, not .jsonl")
    if not parquet and path.suffix == ".parquet":
        raise ValueError(f"{path}: JSONL output needs a .jsonl name, not .parquet")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    rows = [task.to_dict() for task in tasks]
    if parquet:
        import pyarrow as pa
        import pyarrow.parquet as pq

        for row in rows:
            for column in _JSON_COLUMNS:
                row[column] = json.dumps(row[column], ensure_ascii=False)
        pq.write_table(pa.Table.from_pylist(rows), partial)
    else:
        with partial.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    # Durable before the rename: a crash never leaves the final name empty.
    with partial.open("rb+") as handle:
        os.fsync(handle.fileno())
    partial.replace(path)
    return len(rows)


def read_tasks(path: str | Path) -> list[RuntimeTask]:
    """Read tasks written by :func:`write_tasks` (JSONL or Parquet, by content); a bad
    JSONL line is a :class:`execlens.store.JsonlError`, a malformed task a ``TaskError``."""
    path = Path(path)
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic == b"PAR1":
        import pyarrow.parquet as pq

        rows = pq.read_table(path).to_pylist()
        for row in rows:
            for column in _JSON_COLUMNS:
                row[column] = json.loads(row[column])
        return [RuntimeTask.from_dict(row) for row in rows]
    # A line that is no object is the task's own error (TaskError), as from Parquet.
    return [RuntimeTask.from_dict(value) for value in iter_jsonl(path, objects=False)]
