"""Shared machinery of the benchmark loaders: sources, record errors, slicing.

A loader reads either the Hugging Face hub (through ``datasets``) or a local JSON / JSONL
file or directory given by the user (``--data PATH``). A malformed record becomes a
:class:`RecordError` naming file, line and field; the rest still load. Sources that cannot
be read at all (a missing path, the hub unreachable) raise :class:`DatasetUnavailableError`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

__all__ = [
    "DatasetError",
    "DatasetUnavailableError",
    "FieldError",
    "LoadResult",
    "MalformedRecordError",
    "RecordError",
    "Row",
    "check_int",
    "check_str",
    "check_str_list",
    "hub_rows",
    "load_single_file_dataset",
    "parse_samples",
    "read_records",
    "select",
]

T = TypeVar("T")


class DatasetError(Exception):
    """Base class of the loaders' errors."""


class DatasetUnavailableError(DatasetError):
    """The source cannot be read at all (missing path, hub unreachable, ``datasets`` unusable)."""


@dataclass(frozen=True)
class RecordError:
    """One malformed record: where it is and what is wrong with it."""

    source: str
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        what = f"field {self.field!r}: " if self.field else ""
        return f"{where}: {what}{self.message}"


class MalformedRecordError(DatasetError):
    """Raised by :meth:`LoadResult.raise_for_errors` when some records were malformed."""

    def __init__(self, errors: Sequence[RecordError]) -> None:
        self.errors = list(errors)
        shown = "\n  ".join(str(e) for e in self.errors[:10])
        more = f"\n  ... and {len(self.errors) - 10} more" if len(self.errors) > 10 else ""
        super().__init__(f"{len(self.errors)} malformed record(s):\n  {shown}{more}")


@dataclass
class LoadResult(Generic[T]):
    """The records that loaded, the errors of those that did not, and where they came from."""

    records: list[T]
    errors: list[RecordError] = field(default_factory=list)
    source: str = ""

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[T]:
        return iter(self.records)

    def raise_for_errors(self) -> None:
        """Raise :class:`MalformedRecordError` if any record failed to load."""
        if self.errors:
            raise MalformedRecordError(self.errors)


Row = tuple[int, dict[str, Any]]


def read_records(path: Path) -> tuple[list[Row], list[RecordError]]:
    """Read a ``.jsonl`` (one object a line) or ``.json`` (a list of objects) file.

    Returns ``(line_or_position, object)`` pairs (1-indexed) and the errors of lines that
    are not JSON objects. Blank lines are skipped.
    """
    source = str(path)
    rows: list[Row] = []
    errors: list[RecordError] = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DatasetUnavailableError(f"cannot read {source}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise DatasetUnavailableError(f"{source} is not UTF-8 text: {exc}") from exc
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DatasetUnavailableError(f"{source} is not valid JSON: {exc}") from exc
        except RecursionError:
            raise DatasetUnavailableError(f"{source}: JSON nested too deeply to read; "
                                          "is this the right file?") from None
        if isinstance(data, dict) and isinstance(data.get("test"), list):
            data = data["test"]  # {"test": [...]}, a split-keyed export
        if not isinstance(data, list):
            raise DatasetUnavailableError(f"{source}: expected a JSON list of records")
        items: Iterable[tuple[int, Any]] = enumerate(data, 1)
        for pos, obj in items:
            if isinstance(obj, dict):
                rows.append((pos, obj))
            else:
                errors.append(
                    RecordError(
                        source, pos, None, f"expected a JSON object, got {type(obj).__name__}"
                    )
                )
        return rows, errors
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(
                RecordError(source, lineno, None, f"invalid JSON ({exc.msg} at column {exc.colno})")
            )
            continue
        except RecursionError:
            errors.append(RecordError(source, lineno, None, "JSON nested too deeply to read"))
            continue
        if not isinstance(obj, dict):
            errors.append(
                RecordError(
                    source, lineno, None, f"expected a JSON object, got {type(obj).__name__}"
                )
            )
            continue
        rows.append((lineno, obj))
    return rows, errors


def hub_rows(name: str, config: str | None = None, split: str = "test") -> tuple[str, list[Row]]:
    """Load ``name`` (``config``, ``split``) from the Hugging Face hub through ``datasets``.

    Returns a source label (``hf://name[/config]:split``) and ``(row number, row)`` pairs.
    Any failure (``datasets`` missing or broken, offline, unknown dataset) becomes a
    :class:`DatasetUnavailableError` that says how to load a local copy instead.
    """
    label = f"hf://{name}" + (f"/{config}" if config else "") + f":{split}"
    hint = "pass a local copy with --data PATH (a .jsonl/.json file or a directory)"
    try:
        import datasets  # imported here: heavy, and only the hub path needs it
    except Exception as exc:  # ImportError, or a broken binary dependency (pyarrow/numpy)
        raise DatasetUnavailableError(
            f"cannot load {label}: the `datasets` package failed to import "
            f"({type(exc).__name__}: {exc}); {hint}"
        ) from exc
    try:
        dataset = datasets.load_dataset(name, config, split=split)
    except Exception as exc:  # offline, not found, auth, ... all leave nothing to load
        raise DatasetUnavailableError(
            f"cannot load {label} from the Hugging Face hub ({type(exc).__name__}: {exc}); "
            f"if this machine is offline, {hint}"
        ) from exc
    return label, [(i, dict(row)) for i, row in enumerate(dataset, 1)]


def select(
    records: Sequence[T],
    *,
    limit: int | None = None,
    offset: int = 0,
    ids: Iterable[str] | None = None,
    id_of: Callable[[T], str] = lambda record: record.sample_id,  # type: ignore[attr-defined]
) -> list[T]:
    """Pick records the way ``--limit`` / ``--offset`` / ``--ids`` do.

    ``ids`` keeps only records whose stable id is listed (in dataset order; an unknown id
    raises ``KeyError``); then ``offset`` records are skipped and at most ``limit`` kept.
    The selection depends only on the dataset, never on run order, so a resumed run picks
    the same records.
    """
    if offset < 0 or (limit is not None and limit < 0):
        raise ValueError(f"limit and offset must be >= 0 (got limit={limit}, offset={offset})")
    chosen = list(records)
    if ids is not None:
        wanted = list(ids)
        known = {id_of(r) for r in chosen}
        missing = [i for i in wanted if i not in known]
        if missing:
            raise KeyError(
                f"unknown sample id(s): {', '.join(missing[:5])}"
                + (" ..." if len(missing) > 5 else "")
            )
        keep = set(wanted)
        chosen = [r for r in chosen if id_of(r) in keep]
    chosen = chosen[offset:]
    return chosen if limit is None else chosen[:limit]


def check_str(row: dict[str, Any], name: str, *, empty_ok: bool = False) -> str:
    """The string field ``name`` of ``row``; raises :class:`FieldError` if absent or mistyped."""
    if name not in row:
        raise FieldError(name, "missing")
    value = row[name]
    if not isinstance(value, str):
        raise FieldError(name, f"expected a string, got {type(value).__name__}")
    if not empty_ok and not value.strip():
        raise FieldError(name, "is empty")
    return value


def check_str_list(row: dict[str, Any], name: str) -> tuple[str, ...]:
    """The list-of-strings field ``name`` of ``row``."""
    if name not in row:
        raise FieldError(name, "missing")
    value = row[name]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FieldError(name, "expected a list of strings")
    return tuple(value)


def check_int(row: dict[str, Any], name: str) -> int:
    """The integer field ``name`` of ``row`` (bools are not integers here)."""
    if name not in row:
        raise FieldError(name, "missing")
    value = row[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise FieldError(name, f"expected an integer, got {type(value).__name__}")
    return value


class FieldError(Exception):
    """A field check failed; loaders turn it into a :class:`RecordError`."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name
        self.message = message


_FieldError = FieldError  # the name the REval loader still imports


def load_single_file_dataset(
    data: str | Path | None,
    *,
    hub: str,
    split: str,
    local_names: Sequence[str],
    what: str,
    parse: Callable[[list[Row], str], LoadResult[T]],
) -> LoadResult[T]:
    """Rows of a one-file dataset from ``data`` (file or directory) or the hub, parsed.

    Unreadable lines and malformed records end up together in ``errors``, in file order.
    """
    if data is None:
        source, rows = hub_rows(hub, None, split)
        return parse(rows, source)
    path = resolve_local(data, local_names, what)
    rows, errors = read_records(path)
    result = parse(rows, str(path))
    result.errors = sorted(errors + result.errors, key=lambda e: e.line or 0)
    return result


def parse_samples(rows: list[Row], source: str, build: Callable[[dict[str, Any]], T],
                  *, key: Callable[[T], str] | None = None, key_field: str = "id",
                  ) -> LoadResult[T]:
    """``build(row)`` for every row, in file order: a ``FieldError`` it raises, or a
    key seen before (``key(sample)``, default its ``sample_id``; reported under the
    record's ``key_field``), is that record's :class:`RecordError` and the rest load."""
    out: list[T] = []
    errors: list[RecordError] = []
    seen: dict[str, int] = {}
    for line, row in rows:
        try:
            sample = build(row)
        except FieldError as exc:
            errors.append(RecordError(source, line, exc.field, exc.message))
            continue
        ident = key(sample) if key is not None else sample.sample_id  # type: ignore[attr-defined]
        if ident in seen:
            errors.append(RecordError(source, line, key_field,
                                      f"duplicate {key_field} {ident!r} (first at {seen[ident]})"))
            continue
        seen[ident] = line
        out.append(sample)
    return LoadResult(out, errors, source)


def resolve_local(path: str | Path, candidates: Sequence[str], what: str) -> Path:
    """The file to read for ``--data PATH``: the path, or the first candidate in a directory."""
    root = Path(path).expanduser()
    if root.is_file():
        return root
    if root.is_dir():
        for name in candidates:
            if (root / name).is_file():
                return root / name
        raise DatasetUnavailableError(
            f"no {what} file in {root} (looked for {', '.join(candidates)})"
        )
    raise DatasetUnavailableError(f"{what}: no such file or directory: {root}")
