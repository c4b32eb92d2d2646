"""What a data source hands the task builder: :class:`RuntimeProgram`, and the kit
every source reader uses (JSONL records, field checks, named :class:`SourceError`).

The readers themselves live with their data: each benchmark's folder reads its own
(``execlens.bench.load_programs`` asks them), and CodeI/O's parsed samples, which are no
benchmark, are read by ``_codeio``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlens.store import json_kind, jsonl_lines

if TYPE_CHECKING:
    from execlens.trace import TraceRequest

__all__ = [
    "RuntimeProgram",
    "SourceError",
    "duplicate_ids",
    "require_field",
    "source_rows",
    "source_warnings",
]


class SourceError(ValueError):
    """A source file is not one of the supported datasets, or is malformed."""


@dataclass(frozen=True)
class RuntimeProgram:
    """One program run: source, how it is called, and the questions its data asks (if any)."""

    source: str
    problem_id: str
    input_index: int
    program: str
    call: str | None = None
    test: str | None = None
    test_class: str | None = None
    test_method: str | None = None
    questions: tuple[tuple[int, str], ...] | None = None
    skip_reason: str | None = None
    meta: tuple[tuple[str, Any], ...] = ()

    def trace_request(self, **options: Any) -> TraceRequest:
        """The request that traces this run (its program with its call, or its test
        method); ``options`` are the request's other fields (``mode``, ``tag``...)."""
        from execlens.trace import TraceRequest

        return TraceRequest(
            program=self.program,
            call=self.call,
            test=self.test,
            test_class=self.test_class,
            test_method=self.test_method,
            **options,
        )


def source_rows(path: str | Path) -> list[dict[str, Any]]:
    """Every record of a JSONL file; a record that is not a JSON object is a
    :class:`SourceError` naming the record and the fix (as are unreadable files)."""
    path = Path(path)
    rows = []
    try:
        for line in jsonl_lines(path):
            error = line.error
            if error is None:
                rows.append(line.value)
            elif error.problem == "undecodable":
                raise SourceError(
                    f"{path}: not UTF-8 text (byte {error.offset}); convert it to UTF-8"
                )
            elif error.problem == "not-json":
                raise SourceError(
                    f"{path} record {line.number}: not JSON ({error.detail}); "
                    f"fix or remove that line"
                )
            elif error.problem == "too-deep":
                raise SourceError(
                    f"{path} record {line.number}: JSON nested too deeply to "
                    f"read; fix or remove that line"
                )
            else:
                raise SourceError(
                    f"{path} record {line.number}: expected a JSON object, got "
                    f"{error.value_kind}; each line must be one record {{...}}"
                )
    except IsADirectoryError:
        raise SourceError(f"{path}: is a directory; name a JSONL file") from None
    except FileNotFoundError:
        raise SourceError(f"{path}: no such file") from None
    return rows


def require_field(
    path: str | Path,
    number: int,
    row: dict[str, Any],
    field: str,
    expected: str,
    ok: Callable[[Any], bool],
    optional: bool = False,
) -> None:
    """Raise a :class:`SourceError` naming record, field and expectation unless
    ``ok(row[field])``; an ``optional`` field may be missing or null."""
    if field not in row or (optional and row[field] is None):
        if optional:
            return
        raise SourceError(f"{path} record {number}: missing field {field!r} ({expected})")
    if not ok(row[field]):
        raise SourceError(
            f"{path} record {number}: field {field!r} must be {expected}, "
            f"got {json_kind(row[field])}"
        )


def duplicate_ids(path: str | Path, ids: list[str]) -> list[str]:
    """One warning naming the ids that occur more than once (none: no warning)."""
    repeated = sorted(ident for ident, count in Counter(ids).items() if count > 1)
    if not repeated:
        return []
    shown = ", ".join(repeated[:10]) + (
        f" and {len(repeated) - 10} more" if len(repeated) > 10 else ""
    )
    return [f"{path}: duplicate ids {shown}; their tasks share ids (deduplicate the data)"]


def source_warnings(programs: list[RuntimeProgram]) -> list[str]:
    """Warnings about loaded programs: runs (problem id, input) that occur twice."""
    runs = Counter((program.problem_id, program.input_index) for program in programs)
    repeated = sorted({problem for (problem, _), count in runs.items() if count > 1})
    source = programs[0].source if programs else "data"
    return duplicate_ids(source, [ident for ident in repeated for _ in (0, 1)])
