"""Atomic file writes (temporary file + fsync + rename + directory fsync) and safe reads.

A reader never sees half a file: it sees the old content or the new, whatever moment
the writer is killed at.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ._errors import StoreError, output_error

if TYPE_CHECKING:
    import pyarrow

__all__ = [
    "atomic_writer",
    "fsync_dir",
    "read_json",
    "write_bytes_atomic",
    "write_json_atomic",
    "write_parquet_atomic",
    "write_text_atomic",
]


def fsync_dir(directory: Path) -> None:
    """Make a rename or creation inside ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _temporary(path: Path) -> Path:
    # The pid keeps two writers of one name apart; the leading dot keeps globs away.
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


@contextlib.contextmanager
def atomic_writer(path: Path | str) -> Iterator[IO[bytes]]:
    """A binary handle on a temporary beside ``path``; renamed over it (fsynced) when the
    block ends without an error, removed otherwise (creating parent directories)."""
    path = Path(path)
    if path.is_dir():
        raise StoreError(f"{path} is a directory; name a file to write")
    if path.parent.exists() and not path.parent.is_dir():
        raise StoreError(f"{path.parent} is a file, not a directory; choose another --out")
    temp = _temporary(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with temp.open("wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
        fsync_dir(path.parent)
    except BaseException as error:
        # Disk full mid-write leaves the old file (or none) in place: never half a file.
        _unlink_quietly(temp)
        named = output_error(path, error) if isinstance(error, OSError) else None
        if named is not None:
            raise named from None
        raise


def write_bytes_atomic(path: Path | str, data: bytes) -> None:
    """Replace ``path`` by ``data`` atomically (creating its parent directories)."""
    with atomic_writer(path) as handle:
        handle.write(data)


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass  # a read-only directory where the temporary never got made


def write_text_atomic(path: Path | str, text: str) -> None:
    """Replace ``path`` by UTF-8 ``text`` atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))


def dump_json(obj: Any) -> str:
    """The store's JSON document form: sorted keys, indent 2, trailing newline."""
    return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_json_atomic(path: Path | str, obj: Any) -> None:
    """Write ``obj`` as JSON (sorted keys, indent 2, trailing newline) atomically."""
    write_text_atomic(path, dump_json(obj))


def read_json(path: Path | str) -> Any:
    """Read a JSON document; a missing or unreadable file is a ``StoreError``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StoreError(f"{path} does not exist; check the path") from None
    except IsADirectoryError:
        raise StoreError(f"{path} is a directory; name a JSON file") from None
    except UnicodeDecodeError as error:
        raise StoreError(
            f"{path} is not UTF-8 text ({error.reason} at byte "
            f"{error.start}); delete it or restore it"
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise StoreError(
            f"{path} is not valid JSON (line {error.lineno}: {error.msg}); delete it or restore it"
        ) from None


def records_table(
    records: Iterable[Mapping[str, Any]] | pyarrow.Table, schema: pyarrow.Schema | None = None
) -> pyarrow.Table:
    """A pyarrow table from a table or from records (dicts)."""
    import pyarrow

    if isinstance(records, pyarrow.Table):
        return records if schema is None else records.cast(schema)
    return pyarrow.Table.from_pylist([dict(record) for record in records], schema=schema)


def parquet_bytes(table: pyarrow.Table) -> bytes:
    """``table`` serialised as one Parquet file (deterministic for equal tables)."""
    import pyarrow
    import pyarrow.parquet

    sink = pyarrow.BufferOutputStream()
    pyarrow.parquet.write_table(table, sink)
    return sink.getvalue().to_pybytes()


def write_parquet_atomic(
    path: Path | str,
    records_or_table: Iterable[Mapping[str, Any]] | pyarrow.Table,
    *,
    schema: pyarrow.Schema | None = None,
) -> int:
    """Write records (dicts) or a pyarrow table as a Parquet file atomically; row count."""
    table = records_table(records_or_table, schema)
    write_bytes_atomic(path, parquet_bytes(table))
    return table.num_rows
