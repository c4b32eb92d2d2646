"""An append-only JSONL log for streaming results, readable after any crash.

Appends are one write per batch, flushed and fsync'd.  A process killed mid-append can
leave a torn last line: reading cuts it off (and counts it in ``torn``), and the next
append first truncates it away, so it never glues onto a new record.  A corrupt line in
the middle (a disk or a careless editor, not a crash) never hides the valid lines after
it: those are kept, the bad line is reported in ``problems`` with its line number and
moved aside to ``<file>.corrupt``.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ._atomic import write_bytes_atomic
from ._encode import encode_lines
from ._errors import output_error
from ._jsonl import read_lines

__all__ = ["JsonlLog"]


class JsonlLog:
    """One append-only JSONL file (the run directory's lock keeps writers single)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.corrupt_path = self.path.with_name(self.path.name + ".corrupt")
        self.problems: list[str] = []
        self.torn = 0
        self._repaired = False

    def append(self, records: Iterable[Mapping[str, Any]]) -> None:
        """Append ``records`` (one JSON object per line), flushed and fsync'd."""
        data = encode_lines(records, str(self.path))
        if not data:
            return
        if not self._repaired:
            self._cut_torn_tail()
            self._repaired = True
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as error:
            # A torn tail (disk full mid-batch) is cut off by the next append or read.
            named = output_error(self.path, error)
            if named is None:
                raise
            raise named from None

    def read(self) -> list[dict[str, Any]]:
        """Every complete, valid record, in file order (see the module doc for damage)."""
        self.problems = []
        if not self.path.is_file():
            return []
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        complete, tail = data[:end], data[end:]
        if tail:
            self.torn = 1
            where = complete.count(b"\n") + 1
            self.problems.append(
                f"{self.path} line {where}: torn last line (the run was killed mid-write); cut off"
            )
        records: list[dict[str, Any]] = []
        bad_numbers: set[int] = set()
        kept_numbers: set[int] = set()
        for line in read_lines(self.path, io.BytesIO(complete)):
            if line.error is None:
                records.append(line.value)
                kept_numbers.add(line.number)
                continue
            bad_numbers.add(line.number)
            self.problems.append(
                f"{self.path} line {line.number}: not a JSON object; moved aside to "
                f"{self.corrupt_path.name}"
            )
        if bad_numbers:
            lines = dict(enumerate(io.BytesIO(complete), 1))
            bad = [lines[n] for n in sorted(bad_numbers)]
            kept = [lines[n] for n in sorted(kept_numbers)]
            self._move_aside(bad, b"".join(kept) + tail)
        return records

    def keys(self, field: str = "id") -> set[str]:
        """``str(record[field])`` of every record that has ``field``."""
        return {str(record[field]) for record in self.read() if field in record}

    def _cut_torn_tail(self) -> None:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return
        if size == 0:
            return
        with self.path.open("rb+") as handle:
            handle.seek(size - 1)
            if handle.read(1) == b"\n":
                return
            # Scan back for the last newline: everything after it is the torn record.
            position = size
            block = 1 << 16
            while position > 0:
                start = max(0, position - block)
                handle.seek(start)
                chunk = handle.read(position - start)
                cut = chunk.rfind(b"\n")
                if cut >= 0:
                    position = start + cut + 1
                    break
                position = start
            handle.truncate(position)
            handle.flush()
            os.fsync(handle.fileno())
        self.torn += 1

    def _move_aside(self, bad: list[bytes], remaining: bytes) -> None:
        # Keep the bad lines for a human first, then drop them from the log: a crash
        # between the two leaves them in both places, never in neither.
        with self.corrupt_path.open("ab") as handle:
            handle.write(b"".join(bad))
            handle.flush()
            os.fsync(handle.fileno())
        write_bytes_atomic(self.path, remaining)
