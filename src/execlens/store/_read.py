"""Read records from data files as users have them, streaming.

One reader for every input file a long job starts from: JSON Lines (``.jsonl``), one
JSON array of objects (``.json``; pretty-printed is fine), either of them gzipped
(``.gz``), and Parquet.  For JSON text the content decides, not the name: a file whose
first character is ``[`` is read as one array, any other as JSON Lines (a lone
pretty-printed object is then one broken record per line).  Records come one at a time, so
reading the first ``limit``
records of a large file reads only what it needs.

A record that is not one JSON object (a broken line, a number inside the array) is
yielded as a :class:`SourceRow` with ``problem`` set, at its own index, so the caller can
keep it as a named rejection and the other records keep their indices.  What makes the
whole file unreadable (not UTF-8, a broken gzip stream, a JSON file that is not an
array) raises :class:`UnreadableSourceError` naming the file and the fix.
"""

from __future__ import annotations

import gzip
import io
import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import IO, Any

from ._errors import StoreError
from ._jsonl import jsonl_lines

__all__ = ["RECORD_SUFFIXES", "SourceRow", "UnreadableSourceError", "iter_records"]

#: The file names :func:`iter_records` reads.
RECORD_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz", ".parquet")

_CHUNK = 1 << 16


class UnreadableSourceError(StoreError):
    """A data file that cannot be read at all; the message names the file and the fix."""


@dataclass(frozen=True, slots=True)
class SourceRow:
    """One record of a data file: its 0-based ``index`` among the file's records, the
    ``record`` (a dict) or, when it is not one JSON object, ``problem``."""

    index: int
    record: dict[str, Any] | None
    problem: str | None = None


def _suffix(path: Path) -> str:
    name = path.name.lower()
    for suffix in RECORD_SUFFIXES:
        if name.endswith(suffix):
            return suffix
    raise UnreadableSourceError(
        f"{path}: unknown file type; give one of {', '.join(RECORD_SUFFIXES)}"
    )


def iter_records(
    path: str | Path, *, offset: int = 0, limit: int | None = None
) -> Iterator[SourceRow]:
    """The records of ``path`` from index ``offset``, at most ``limit`` of them, in file
    order; reading stops as soon as they are out (the rest of the file is never read)."""
    path = Path(path)
    suffix = _suffix(path)
    if not path.is_file():
        raise UnreadableSourceError(f"{path}: no such file")
    if suffix == ".parquet":
        rows = _parquet_rows(path)
    else:
        rows = _json_rows(path, suffix)
    stop = None if limit is None else offset + limit
    yield from islice(rows, offset, stop)


def _open_text(path: Path, gzipped: bool) -> IO[str]:
    # Closed with the wrapper the caller closes.
    raw: IO[bytes] = (
        gzip.open(path, "rb")
        if gzipped  # type: ignore[assignment]
        else path.open("rb")
    )  # noqa: SIM115
    return io.TextIOWrapper(raw, encoding="utf-8")


def _first_char(path: Path, gzipped: bool) -> str | None:
    with _open_text(path, gzipped) as handle:
        while chunk := handle.read(4096):
            stripped = chunk.lstrip(" \t\r\n\ufeff")
            if stripped:
                return stripped[0]
    return None


def _json_rows(path: Path, suffix: str) -> Iterator[SourceRow]:
    gzipped = suffix.endswith(".gz")
    try:
        # The content decides, not the name: files named .jsonl(.gz) that hold one JSON
        # array exist in the wild (reasoning-gym's codeio-hq.jsonl.gz).
        if _first_char(path, gzipped) != "[":
            yield from _line_rows(path)
        else:
            with _open_text(path, gzipped) as handle:
                yield from _array_rows(path, handle)
    except UnicodeDecodeError as exc:
        raise UnreadableSourceError(
            f"{path}: not UTF-8 text (byte {exc.start}); convert it to UTF-8"
        ) from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise UnreadableSourceError(
            f"{path}: not a readable gzip file ({exc}); give the "
            f"uncompressed file or fix the archive"
        ) from None


def _line_rows(path: Path) -> Iterator[SourceRow]:
    for index, line in enumerate(jsonl_lines(path)):
        error = line.error
        if error is None:
            yield SourceRow(index, line.value)
        elif error.problem == "undecodable":
            raise UnreadableSourceError(
                f"{path}: not UTF-8 text (byte {error.offset}); convert it to UTF-8"
            )
        else:
            yield SourceRow(index, None, f"{path.name}:{line.number}: not a JSON object")


def _array_rows(path: Path, handle: IO[str]) -> Iterator[SourceRow]:
    """The items of one top-level JSON array, decoded one at a time from a buffer."""
    decoder = json.JSONDecoder()
    buffer, at, done = "", 0, False

    def fill() -> bool:
        nonlocal buffer, at, done
        chunk = handle.read(_CHUNK)
        if not chunk:
            done = True
            return False
        buffer, at = buffer[at:] + chunk, 0
        return True

    def skip_space() -> str | None:
        nonlocal at
        while True:
            while at < len(buffer) and buffer[at] in " \t\r\n":
                at += 1
            if at < len(buffer):
                return buffer[at]
            if not fill():
                return None

    skip_space()
    at += 1  # the "[" the caller saw
    index = 0
    while True:
        char = skip_space()
        if char is None:
            raise UnreadableSourceError(
                f"{path}: the JSON array is cut off after "
                f"{index} records; fix or re-export the file"
            )
        if char == "]":
            return
        if index:
            if char != ",":
                raise UnreadableSourceError(
                    f"{path}: records {index - 1} and {index} are "
                    f"not separated by a comma; fix the file"
                )
            at += 1
            if skip_space() in (None, "]"):
                raise UnreadableSourceError(f"{path}: a comma after the last record; fix the file")
        while True:
            try:
                item, end = decoder.raw_decode(buffer, at)
            except RecursionError:
                raise UnreadableSourceError(
                    f"{path}: record {index} is nested too deeply to read"
                ) from None
            except json.JSONDecodeError:
                # Maybe the item runs past the buffer: read more; at the end it is broken.
                if not done and fill():
                    continue
                raise UnreadableSourceError(
                    f"{path}: record {index} is not valid JSON; fix or re-export the file"
                ) from None
            # A number at the buffer's end may go on in the next chunk ("12" + "34").
            if end == len(buffer) and not done and fill():
                continue
            break
        at = end
        if isinstance(item, dict):
            yield SourceRow(index, item)
        else:
            yield SourceRow(index, None, f"{path.name}: item {index}: not a JSON object")
        index += 1


def _parquet_rows(path: Path) -> Iterator[SourceRow]:
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for bad files
        raise UnreadableSourceError(f"{path}: not a readable Parquet file ({exc})") from None
    index = 0
    for batch in parquet.iter_batches(batch_size=256):
        for record in batch.to_pylist():
            yield SourceRow(index, record)
            index += 1
