"""Shared machinery of the benchmark loaders: sources, record errors, slicing.

A loader reads either the Hugging Face hub (through ``datasets``, at the revision of an
enclosing ``_pin.data_revision`` block when there is one) or a local copy given by the
user (``--data PATH``): a JSON / JSONL / Parquet file, a directory holding one, or a
``datasets`` ``save_to_disk`` directory (optionally ``DIR@FINGERPRINT``). A malformed
record becomes a :class:`RecordError` naming file, line and field; the rest still load.
Sources that cannot be read at all (a missing path, the hub unreachable) raise
:class:`DatasetUnavailableError`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from execlens.store import JsonlError, jsonl_lines

from ._pin import active_revision, note_hub_load

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
    "read_local_rows",
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
    if path.suffix == ".json":
        return _json_records(path)
    rows: list[Row] = []
    errors: list[RecordError] = []
    try:
        for line in jsonl_lines(path):
            error = line.error
            if error is None:
                rows.append((line.number, line.value))
            elif error.problem == "undecodable":
                raise DatasetUnavailableError(
                    f"{source} is not UTF-8 text: 'utf-8' codec can't decode byte "
                    f"{error.byte:#04x} in position {error.offset}: {error.detail}"
                )
            else:
                errors.append(RecordError(source, line.number, None, _line_problem(error)))
    except OSError as exc:
        raise DatasetUnavailableError(f"cannot read {source}: {exc}") from exc
    return rows, errors


def _line_problem(error: JsonlError) -> str:
    """A bad JSONL line's :class:`RecordError` message."""
    if error.problem == "not-json":
        return f"invalid JSON ({error.detail} at column {error.column})"
    if error.problem == "too-deep":
        return "JSON nested too deeply to read"
    return f"expected a JSON object, got {type(error.value).__name__}"


def _json_records(path: Path) -> tuple[list[Row], list[RecordError]]:
    """:func:`read_records` for one JSON list of objects (or ``{"test": [...]}``)."""
    source = str(path)
    rows: list[Row] = []
    errors: list[RecordError] = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DatasetUnavailableError(f"cannot read {source}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise DatasetUnavailableError(f"{source} is not UTF-8 text: {exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetUnavailableError(f"{source} is not valid JSON: {exc}") from exc
    except RecursionError:
        raise DatasetUnavailableError(
            f"{source}: JSON nested too deeply to read; is this the right file?"
        ) from None
    if isinstance(data, dict) and isinstance(data.get("test"), list):
        data = data["test"]  # {"test": [...]}, a split-keyed export
    if not isinstance(data, list):
        raise DatasetUnavailableError(f"{source}: expected a JSON list of records")
    for pos, obj in enumerate(data, 1):
        if isinstance(obj, dict):
            rows.append((pos, obj))
        else:
            errors.append(
                RecordError(source, pos, None, f"expected a JSON object, got {type(obj).__name__}")
            )
    return rows, errors


def hub_rows(
    name: str, config: str | None = None, split: str = "test", *, revision: str | None = None
) -> tuple[str, list[Row]]:
    """Load ``name`` (``config``, ``split``) from the Hugging Face hub through ``datasets``.

    ``revision`` (a commit hash, tag or branch; default: the enclosing
    ``data_revision`` block's, else the hub's current version) is passed to
    ``datasets.load_dataset``.  Returns a source label (``hf://name[/config]:split[@rev]``)
    and ``(row number, row)`` pairs.  Any failure (``datasets`` missing or broken,
    offline, unknown dataset or revision) becomes a :class:`DatasetUnavailableError` that
    names the revision and says how to load a local copy instead.
    """
    revision = revision if revision is not None else active_revision()
    where = f"hf://{name}" + (f"/{config}" if config else "") + f":{split}"
    label = where + (f"@{revision}" if revision else "")
    hint = (
        "pass a local copy with --data PATH (a .jsonl/.json/.parquet file, a directory, "
        "or a datasets save_to_disk directory)"
    )
    try:
        import datasets  # imported here: heavy, and only the hub path needs it
    except Exception as exc:  # ImportError, or a broken binary dependency (pyarrow/numpy)
        raise DatasetUnavailableError(
            f"cannot load {label}: the `datasets` package failed to import "
            f"({type(exc).__name__}: {exc}); {hint}"
        ) from exc
    pinned = {"revision": revision} if revision else {}
    try:
        dataset = datasets.load_dataset(name, config, split=split, **pinned)
    except Exception as exc:  # offline, not found, auth, ... all leave nothing to load
        at = f" at revision {revision}" if revision else ""
        raise DatasetUnavailableError(
            f"cannot load {where}{at} from the Hugging Face hub ({type(exc).__name__}: "
            f"{exc}); if this machine is offline, {hint}"
        ) from exc
    note_hub_load(label)
    return label, [(i, dict(row)) for i, row in enumerate(dataset, 1)]


def select(
    records: Sequence[T],
    *,
    limit: int | None = None,
    offset: int = 0,
    ids: Iterable[str] | None = None,
    # The default fits the records every loader builds (each has a ``sample_id``); T has
    # no bound to say so, as a record type without one passes ``id_of``.
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
    revision: str | None = None,
) -> LoadResult[T]:
    """Rows of a one-table dataset from ``data`` or the hub (at ``revision``), parsed.

    ``data`` is a ``.jsonl``/``.json``/``.parquet`` file, a directory holding one (a name
    of ``local_names``, or ``<split>*.parquet`` there or under ``data/``), or a
    ``datasets`` ``save_to_disk`` directory (a ``Dataset``, or a ``DatasetDict`` read at
    ``split``), optionally pinned as ``DIR@FINGERPRINT``.  Unreadable lines and malformed
    records end up together in ``errors``, in file order; when no record loaded because
    every one lacks the same field, that is one error saying the data is not ``what``'s.
    """
    if data is None:
        source, rows = hub_rows(hub, None, split, revision=revision)
        return _not_this_dataset(parse(rows, source), what)
    if revision is not None:
        raise DatasetUnavailableError(
            f"a revision ({revision}) pins a hub load, but {data} is a local copy: drop the "
            "revision, or load the hub"
        )
    rows, errors, source = read_local_rows(data, local_names, what, split)
    result = parse(rows, source)
    result.errors = sorted(errors + result.errors, key=lambda e: e.line or 0)
    return _not_this_dataset(result, what)


def _not_this_dataset(result: LoadResult[T], what: str) -> LoadResult[T]:
    """One error, naming the fix, for data of which no record has a required field."""
    errors = result.errors
    if result.records or not errors:
        return result
    first = errors[0]
    if first.field and all(e.field == first.field and e.message == "missing" for e in errors):
        result.errors = [
            RecordError(
                result.source,
                None,
                first.field,
                f"missing from every record: this is not {what} data; pass --data a file or "
                f"datasets directory with {what}'s fields",
            )
        ]
    return result


def read_local_rows(
    data: str | Path, local_names: Sequence[str], what: str, split: str
) -> tuple[list[Row], list[RecordError], str]:
    """``(rows, unreadable-line errors, source label)`` of the local copy ``data``
    (see :func:`load_single_file_dataset` for what it may be)."""
    saved = _saved_dataset(data)
    if saved is not None:
        source, rows = _saved_rows(saved[0], saved[1], split)
        return rows, [], source
    paths = resolve_local(data, local_names, what, split)
    if paths[0].suffix == ".parquet":
        return (
            _parquet_rows(paths),
            [],
            str(paths[0] if len(paths) == 1 else paths[0].parent / f"{split}*.parquet"),
        )
    rows, errors = read_records(paths[0])
    return rows, errors, str(paths[0])


def _saved_dataset(data: str | Path) -> tuple[Path, str | None] | None:
    """``(folder, pinned fingerprint)`` when ``data`` names a ``save_to_disk`` folder,
    optionally as ``PATH@FINGERPRINT``."""
    text = str(data)
    pin = None
    if "@" in Path(text).name:
        text, _, pin = text.rpartition("@")
    folder = Path(text).expanduser()
    if folder.is_dir() and (
        (folder / "state.json").is_file() or (folder / "dataset_dict.json").is_file()
    ):
        return folder, pin or None
    return None


def _saved_rows(folder: Path, pin: str | None, split: str) -> tuple[str, list[Row]]:
    """A ``datasets`` folder (``save_to_disk``), checked against ``pin``.

    The source label records the dataset's fingerprint; pinning it in ``--data``
    (``PATH@FINGERPRINT``) puts it in the run identity and refuses any other version.
    """
    try:
        import datasets  # heavy: only this path needs it
    except Exception as exc:  # ImportError, or a broken binary dependency
        raise DatasetUnavailableError(
            f"cannot load {folder}: the `datasets` package failed to "
            f"import ({type(exc).__name__}: {exc})"
        ) from exc
    try:
        loaded = datasets.load_from_disk(str(folder))
    except Exception as exc:  # a damaged or foreign folder
        raise DatasetUnavailableError(
            f"cannot load the saved dataset {folder} ({type(exc).__name__}: {exc})"
        ) from exc
    if isinstance(loaded, datasets.DatasetDict):
        if split not in loaded:
            raise DatasetUnavailableError(f"{folder}: no split {split!r} (has {', '.join(loaded)})")
        loaded = loaded[split]
    fingerprint = str(loaded._fingerprint)
    if pin is not None and pin != fingerprint:
        raise DatasetUnavailableError(
            f"{folder}: the saved dataset's fingerprint is {fingerprint}, not the pinned {pin}"
        )
    source = f"{folder} (saved dataset, fingerprint {fingerprint})"
    return source, [(i, dict(row)) for i, row in enumerate(loaded, 1)]


def _parquet_rows(paths: Sequence[Path]) -> list[Row]:
    """Every row of the Parquet files ``paths``, numbered across them (1-indexed), read
    by the store's one record reader."""
    from execlens.store import UnreadableSourceError, iter_records

    rows: list[Row] = []
    for path in paths:
        base = len(rows)
        try:
            rows.extend((base + row.index + 1, row.record or {}) for row in iter_records(path))
        except UnreadableSourceError as exc:
            raise DatasetUnavailableError(str(exc)) from None
    return rows


def parse_samples(
    rows: list[Row],
    source: str,
    build: Callable[[dict[str, Any]], T],
    *,
    key: Callable[[T], str] | None = None,
    key_field: str = "id",
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
        # No ``key``: the sample is a loader's record, which has a ``sample_id`` (see select).
        ident = key(sample) if key is not None else sample.sample_id  # type: ignore[attr-defined]
        if ident in seen:
            errors.append(
                RecordError(
                    source,
                    line,
                    key_field,
                    f"duplicate {key_field} {ident!r} (first at {seen[ident]})",
                )
            )
            continue
        seen[ident] = line
        out.append(sample)
    return LoadResult(out, errors, source)


def resolve_local(
    path: str | Path, candidates: Sequence[str], what: str, split: str = "test"
) -> list[Path]:
    """The file(s) to read for ``--data PATH``: the path itself; in a directory, the first
    of ``candidates`` there, else its ``<split>*.parquet`` files (or those under
    ``data/``, the hub's layout), in name order."""
    root = Path(path).expanduser()
    if root.is_file():
        return [root]
    if root.is_dir():
        for name in candidates:
            if (root / name).is_file():
                return [root / name]
        for folder in (root, root / "data"):
            shards = sorted(folder.glob(f"{split}*.parquet"))
            if shards:
                return shards
        raise DatasetUnavailableError(
            f"no {what} file in {root} (looked for {', '.join(candidates)}, "
            f"{split}*.parquet, and a datasets save_to_disk directory's dataset_dict.json "
            "or state.json): pass --data the data file itself, or a directory written by "
            "datasets' save_to_disk"
        )
    raise DatasetUnavailableError(f"{what}: no such file or directory: {root}")
