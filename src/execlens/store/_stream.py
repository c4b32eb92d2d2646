"""Streaming final files: JSONL written line by line, Parquet batch by batch.

A dataset of millions of records is never one string or one table in memory: records
flow from an iterator to a temporary file, which replaces the destination atomically
once complete (a killed writer leaves the old file, or none).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._atomic import atomic_writer
from ._errors import StoreError
from ._jsonl import iter_jsonl

if TYPE_CHECKING:
    import pyarrow

__all__ = ["write_jsonl_stream", "write_parquet_from_jsonl"]

# Rows per Parquet row group: a fixed count, so the file's bytes depend on the rows only
# (never on how the records arrived in shards).
PARQUET_BATCH_ROWS = 1024


def write_jsonl_stream(
    path: Path | str, records: Iterable[Mapping[str, Any]], *, sort_keys: bool = True
) -> int:
    """Write ``records`` as JSON lines to ``path`` atomically, one at a time; the count."""
    count = 0
    with atomic_writer(path) as handle:
        for record in records:
            try:
                line = json.dumps(record, ensure_ascii=False, sort_keys=sort_keys)
            except (TypeError, ValueError) as error:
                raise StoreError(
                    f"{path}: record {count + 1} is not plain JSON ({error})"
                ) from None
            handle.write(line.encode("utf-8") + b"\n")
            count += 1
    return count


def _batches(path: Path, rows: int) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for record in iter_jsonl(path):
        batch.append(record)
        if len(batch) >= rows:
            yield batch
            batch = []
    if batch:
        yield batch


def write_parquet_from_jsonl(
    dest: Path | str,
    jsonl: Path | str,
    *,
    schema: pyarrow.Schema | None = None,
    batch_rows: int = PARQUET_BATCH_ROWS,
) -> int:
    """Convert a JSONL file to Parquet with ``pyarrow.parquet.ParquetWriter``, one batch of
    ``batch_rows`` rows in memory at a time; returns the row count.

    Without ``schema``, a first pass infers each batch's schema and unifies them (a
    column null in one batch and text in another becomes text), so every batch is
    written under one schema.
    """
    import pyarrow
    import pyarrow.parquet

    jsonl = Path(jsonl)
    if schema is None:
        schemas = [pyarrow.Table.from_pylist(batch).schema for batch in _batches(jsonl, batch_rows)]
        if not schemas:
            raise StoreError(f"{jsonl}: no records to write as Parquet")
        schema = pyarrow.unify_schemas(schemas, promote_options="permissive")
    count = 0
    with atomic_writer(dest) as handle:
        writer = pyarrow.parquet.ParquetWriter(handle, schema)
        try:
            for batch in _batches(jsonl, batch_rows):
                writer.write_table(pyarrow.Table.from_pylist(batch, schema=schema))
                count += len(batch)
        finally:
            writer.close()
    return count
