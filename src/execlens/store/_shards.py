"""Sharded, resumable output: each shard is written whole, then marked done.

Shard ``i`` goes to ``DIR/shards/<name>/<i:05d>.<format>`` atomically, and only then is
its completion marker ``DIR/.done/<name>/<i:05d>.json`` written (with the shard's record
count, digest and the caller's stats).  A process killed mid-shard leaves no marker, so
the shard is redone on rerun; a marker whose shard is missing or altered is not trusted.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ._atomic import (
    parquet_bytes,
    read_json,
    records_table,
    write_bytes_atomic,
    write_json_atomic,
)
from ._encode import encode_lines
from ._errors import CorruptRecordError, StoreError
from ._jsonl import jsonl_lines
from ._stream import atomic_writer

if TYPE_CHECKING:
    import pyarrow

__all__ = ["ShardFormat", "ShardSet"]

ShardFormat = Literal["jsonl", "parquet"]


class ShardSet:
    """The shards of one named output of a run directory."""

    def __init__(
        self,
        root: Path,
        name: str,
        *,
        format: ShardFormat = "jsonl",
        schema: pyarrow.Schema | None = None,
    ) -> None:
        if format not in ("jsonl", "parquet"):
            raise StoreError(f"shard format {format!r} is not known; use 'jsonl' or 'parquet'")
        if not name or "/" in name or name.startswith("."):
            raise StoreError(f"shard set name {name!r} is not a plain name; use e.g. 'samples'")
        self.name = name
        self.format: ShardFormat = format
        self.schema = schema
        self.directory = root / "shards" / name
        self.markers = root / ".done" / name

    def path(self, index: int) -> Path:
        """The file of shard ``index``."""
        return self.directory / f"{_check_index(index):05d}.{self.format}"

    def marker(self, index: int) -> Path:
        """The completion marker of shard ``index``."""
        return self.markers / f"{_check_index(index):05d}.json"

    def done(self, index: int) -> bool:
        """Whether shard ``index`` was written completely (marker and file agree)."""
        return self._marker_data(index) is not None

    def stats(self, index: int) -> dict[str, Any] | None:
        """The stats recorded with finished shard ``index`` (``None`` if not done)."""
        data = self._marker_data(index)
        return None if data is None else data.get("stats")

    def write(
        self,
        index: int,
        records: Iterable[Mapping[str, Any]] | pyarrow.Table,
        stats: dict[str, Any] | None = None,
    ) -> None:
        """Write shard ``index`` whole and atomically, then its completion marker."""
        where = str(self.path(index))
        if self.format == "jsonl":
            data = encode_lines(records, where)
            count = data.count(b"\n")
        else:
            table = records_table(records, self.schema)
            data, count = parquet_bytes(table), table.num_rows
        # A stale marker must not vouch for the new file while it is being replaced.
        self.marker(index).unlink(missing_ok=True)
        write_bytes_atomic(self.path(index), data)
        write_json_atomic(
            self.marker(index),
            {
                "index": index,
                "records": count,
                "bytes": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
                "stats": stats or {},
            },
        )

    def read(self, index: int) -> list[dict[str, Any]]:
        """The records of shard ``index`` (a corrupt record is a ``CorruptRecordError``)."""
        path = self.path(index)
        if not path.is_file():
            raise StoreError(f"{path} does not exist; shard {index} has not been written")
        if self.format == "parquet":
            import pyarrow.parquet

            try:
                return pyarrow.parquet.read_table(path).to_pylist()
            except (OSError, ValueError) as error:
                raise CorruptRecordError(path, 0, f"unreadable Parquet ({error})") from None
        return _read_jsonl(path)

    def iter_records(self) -> Iterator[dict[str, Any]]:
        """Every record of the finished shards in index order, one shard in memory at a
        time (a dataset larger than memory streams through)."""
        for index in self.completed():
            yield from self.read(index)

    def completed(self) -> list[int]:
        """Indices of the finished shards, ascending."""
        if not self.markers.is_dir():
            return []
        indices = sorted(int(p.stem) for p in self.markers.glob("*.json") if p.stem.isdigit())
        return [index for index in indices if self.done(index)]

    def merge(self, dest: Path | str) -> int:
        """Concatenate the finished shards in index order into ``dest`` atomically.

        Returns the record count.  The result depends only on the shards' contents and
        indices, never on the order they finished in.
        """
        indices = self.completed()
        if self.format == "parquet":
            import pyarrow

            tables = [records_table(self.read(i), self.schema) for i in indices]
            table = (
                pyarrow.concat_tables(tables, promote_options="default")
                if tables
                else records_table([], self.schema)
            )
            write_bytes_atomic(dest, parquet_bytes(table))
            return table.num_rows
        # Shard files are copied one after another: the merged file is never in memory.
        count = 0
        with atomic_writer(dest) as out:
            for i in indices:
                with self.path(i).open("rb") as handle:
                    shutil.copyfileobj(handle, out)
                count += int((self._marker_data(i) or {}).get("records", 0))
        return count

    def _marker_data(self, index: int) -> dict[str, Any] | None:
        marker, path = self.marker(index), self.path(index)
        if not marker.is_file() or not path.is_file():
            return None
        try:
            data = read_json(marker)
        except StoreError:
            return None  # a marker torn by a crash vouches for nothing: redo the shard
        if not isinstance(data, dict) or data.get("bytes") != path.stat().st_size:
            return None
        return data


def _check_index(index: int) -> int:
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise StoreError(f"shard index {index!r} is not a non-negative integer")
    return index


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    # A shard is written whole by us: any bad line (a blank one included) is damage.
    records = []
    for line in jsonl_lines(path, skip_blank=False):
        error = line.error
        if error is None:
            records.append(line.value)
        elif error.problem == "not-object":
            raise CorruptRecordError(path, line.number, "not a JSON object")
        else:
            raise CorruptRecordError(path, line.number, f"not valid JSON ({error.reason})")
    return records
