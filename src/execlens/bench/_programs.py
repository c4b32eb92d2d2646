"""Which data a file is, and its programs: the benchmarks are asked, CodeI/O is the rest.

``execlens tasks build`` and the runtime benchmark take any file of programs with inputs.
Each registered benchmark that reads such data declares the two optional hooks
``recognises(path, first)`` and ``programs(path)`` (see ``_protocol``); the first one
that recognises the path reads it.  What no benchmark recognises is read as CodeI/O's
parsed samples when its first record has their fields, and is otherwise an error naming
the datasets that can be read.  No benchmark is named here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from execlens.tasks import (
    RuntimeProgram,
    SourceError,
    is_codeio_record,
    programs_from_codeio,
    source_rows,
)

from ._registry import benchmark_names, get_benchmark

__all__ = ["load_programs"]


def _program_readers() -> list[Any]:
    """The registered benchmarks that read programs (``recognises`` and ``programs``),
    in registry order: the order they are asked in."""
    readers = []
    for name in benchmark_names():
        benchmark = get_benchmark(name)
        if benchmark.reads_programs:
            readers.append(benchmark)
    return readers


def _either(names: list[str]) -> str:
    """``a, b or c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def load_programs(path: str | Path) -> list[RuntimeProgram]:
    """Load programs from any supported dataset file (or a benchmark's data directory).

    Every record is validated: a malformed one is a ``SourceError`` naming the record
    number, the field and what was expected; a file no reader knows is one naming the
    datasets that can be read.
    """
    path = Path(path)
    first: dict[str, Any] = {}
    if not path.is_dir():
        if not path.is_file():
            raise SourceError(f"{path}: no such file")
        # Every record is read (not just the first) so a broken line anywhere is named
        # before a reader is chosen.
        rows = source_rows(path)
        first = rows[0] if rows else {}
    readers = _program_readers()
    for benchmark in readers:
        if benchmark.recognises(path, first):
            return list(benchmark.programs(path))
    names = [benchmark.name for benchmark in readers]
    if path.is_dir():
        raise SourceError(f"{path}: no {_either(names)} data in this directory; name the data file")
    if is_codeio_record(first):
        return programs_from_codeio(path)
    raise SourceError(
        f"{path}: not {_either([*names, 'CodeI/O'])} data (fields of the first "
        f"record: {sorted(first)})"
    )
