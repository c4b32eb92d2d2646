"""Source records: raw code files or functions (with or without stored pairs), read as
users have them.

* files through :func:`execlens.store.iter_records` (``.jsonl``, ``.json`` arrays,
  either gzipped, ``.parquet``), streamed: ``offset``/``limit`` read only what they
  need;
* ``datasets``: a directory written by ``save_to_disk`` (``path:``), a local dataset
  folder or a hub name at a pinned ``revision`` (``dataset:``);
* ``columns`` renames the source's columns to execlens' fields
  (:data:`~execlens.synth._config.SOURCE_FIELDS`);
* input generators under any of the conventions of :func:`generator_convention`.

A record that cannot enter is kept with a named rejection (``not_json``,
``no_content_or_refcode``, ``no_input_generator``, ``generator_syntax_error``); a
source whose *every* record is rejected is a :class:`ConfigError` naming the missing
fields and the ``columns`` mapping that would fix it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from execlens.synth._config import SOURCE_FIELDS, ConfigError, SourceConfig
from execlens.synth._programs import GENERATOR_NAMES, generator_convention

__all__ = ["entry_stage", "iter_source", "load_function_records", "load_source"]

Record = dict[str, Any]

# Column names other datasets use for our fields: only to suggest a ``columns`` mapping
# in the error of a source nothing could be read from (never applied silently).
_ALIASES: dict[str, tuple[str, ...]] = {
    "refcode": ("code_sample", "main_solution", "reference_code", "solution", "code"),
    "content": ("code", "text", "source", "file_content"),
    "problem_description": ("task_description", "problem", "question", "description"),
    "io_requirements": ("input_output_spec", "io_spec", "io_description"),
    "input_generator": ("generator", "input_generator_code", "gen"),
    "ios": ("pairs", "io_pairs", "examples"),
}


def _rows(source: SourceConfig) -> Iterator[tuple[int, dict[str, Any] | None, str | None]]:
    """``(index, row or None, problem)`` from ``offset``, at most ``limit`` rows."""
    from execlens.store import UnreadableSourceError, iter_records

    if source.path is not None:
        path = source.path
        if path.is_dir():
            yield from _dataset_rows(source, _load_from_disk(source, path))
            return
        if not path.is_file():
            raise ConfigError(f"sources: {path}: no such file; fix sources[].path")
        try:
            for row in iter_records(path, offset=source.offset, limit=source.limit):
                yield row.index, row.record, row.problem
        except UnreadableSourceError as exc:
            raise ConfigError(f"sources: {exc}") from None
        return
    yield from _dataset_rows(source, _load_dataset(source))


def _load_from_disk(source: SourceConfig, path: Path) -> Any:
    import datasets

    try:
        loaded = datasets.load_from_disk(str(path))
    except Exception as exc:  # noqa: BLE001 - any loader failure is the user's fix
        raise ConfigError(
            f"sources: {path}: a directory that `datasets.load_from_disk` "
            f"cannot read ({type(exc).__name__}: {exc}); give a data file "
            f"or a directory written by save_to_disk"
        ) from None
    if isinstance(loaded, datasets.DatasetDict):
        if source.split not in loaded:
            raise ConfigError(
                f"sources: {path}: no split {source.split!r} (it has "
                f"{', '.join(loaded)}); set sources[].split"
            )
        loaded = loaded[source.split]
    return loaded


def _load_dataset(source: SourceConfig) -> Any:
    import datasets

    name = str(source.dataset)
    local = Path(name).exists()
    if not local and source.revision is None:
        raise ConfigError(
            f"sources: dataset {name!r} comes from the hub: pin it with "
            f"`revision:` (a commit sha or tag) so reruns read the same data"
        )
    try:
        if local:
            return datasets.load_dataset(name, split=source.split)
        # The hub: streamed, so a limit downloads only the rows it reads.
        return datasets.load_dataset(
            name, split=source.split, revision=source.revision, streaming=True
        )
    except Exception as exc:  # noqa: BLE001 - any loader failure is the user's fix
        raise ConfigError(
            f"sources: dataset {name!r} (split {source.split!r}) could not "
            f"be loaded: {type(exc).__name__}: {exc}"
        ) from None


def _dataset_rows(
    source: SourceConfig, loaded: Any
) -> Iterator[tuple[int, dict[str, Any] | None, str | None]]:
    from itertools import islice

    stop = None if source.limit is None else source.offset + source.limit
    for index, row in enumerate(islice(iter(loaded), source.offset, stop), source.offset):
        yield index, dict(row), None


def _mapped(row: dict[str, Any], columns: dict[str, str]) -> dict[str, Any]:
    """``row`` with the mapped columns under execlens' names (a mapped field is taken
    only from its column, never from a same-named column of the source)."""
    if not columns:
        return row
    out = {k: v for k, v in row.items() if k not in columns}
    for field, column in columns.items():
        if column in row:
            out[field] = row[column]
    return out


def entry_stage(row: dict[str, Any]) -> str | None:
    """Where a row enters the pipeline: ``transform`` (raw code) or ``collect``."""
    if isinstance(row.get("refcode"), str):
        return "collect"
    if isinstance(row.get("content"), str):
        return "transform"
    return None


def _generator_problem(row: dict[str, Any]) -> str | None:
    """Why a function record without stored pairs cannot be collected, or ``None``."""
    if isinstance(row.get("ios"), list) and row["ios"]:
        return None
    generator = row.get("input_generator")
    if not isinstance(generator, str) or not generator.strip():
        return "no_input_generator"
    try:
        compile(generator, "<input_generator>", "exec")
    except (SyntaxError, ValueError):
        return "generator_syntax_error"
    return None if generator_convention(generator) else "no_input_generator"


def iter_source(source: SourceConfig) -> Iterator[Record]:
    """The source's records (after ``offset``/``limit``), in file order, each with a
    stable ``id`` (``<source>/<row>``) and ``entry`` (the stage it enters at); rows that
    cannot enter carry a ``reject``.  Streams: a limit reads only the rows it needs.

    Raises :class:`ConfigError` when the source is unreadable, or when it held records
    and every one was rejected (the message names the missing fields and the fix)."""
    reasons: Counter[str] = Counter()
    columns_seen: dict[str, None] = {}
    total = 0
    for index, raw, problem in _rows(source):
        total += 1
        rid = f"{source.label}/{index}"
        row = _mapped(raw, source.columns) if raw is not None else None
        entry = entry_stage(row) if row is not None else None
        if raw is not None:
            columns_seen.update(dict.fromkeys(raw))
        reason = None
        if row is None:
            reason = "not_json"
        elif entry is None:
            reason = "no_content_or_refcode"
        elif entry == "collect":
            reason = _generator_problem(row)
        if reason is not None:
            reasons[reason] += 1
            reject: dict[str, Any] = {"stage": "load", "reason": reason}
            if problem:
                reject["detail"] = problem
            yield {"id": rid, "source": source.label, "entry": None, "reject": reject}
            continue
        assert row is not None
        if entry == "transform":
            meta = {k: v for k, v in row.items() if k != "content"}
            yield {
                "id": rid,
                "source": source.label,
                "entry": entry,
                "content": row["content"],
                "keep": source.pairs_per_function,
                "meta": meta,
            }
            continue
        ios = row.get("ios") if isinstance(row.get("ios"), list) else None
        yield {
            "id": rid,
            "source": source.label,
            "entry": entry,
            "refcode": row["refcode"],
            "funcname": row.get("funcname") or "main_solution",
            "io_requirements": row.get("io_requirements") or "",
            "problem_description": row.get("problem_description") or "",
            "input_generator": row.get("input_generator"),
            "stored_ios": ios,
            "keep": source.pairs_per_function,
            "meta": row.get("meta") if isinstance(row.get("meta"), dict) else {},
        }
    if total and sum(reasons.values()) == total:
        raise ConfigError(_nothing_enters(source, total, reasons, list(columns_seen)))


def _nothing_enters(
    source: SourceConfig, total: int, reasons: Counter[str], columns: list[str]
) -> str:
    """The one-line error of a source none of whose records can enter."""
    where = f"sources: {source.path or source.dataset}"
    counts = ", ".join(f"{n} {reason}" for reason, n in reasons.most_common())
    head = f"{where}: none of its {total} records can enter ({counts})"
    if reasons.most_common(1)[0][0] == "not_json":
        return (
            f"{head}: it is not JSON records; give .jsonl (one object per line), "
            f".json (one array), either gzipped, or .parquet"
        )
    if reasons.most_common(1)[0][0] in ("no_input_generator", "generator_syntax_error"):
        mapped = source.columns.get("input_generator", "input_generator")
        return (
            f"{head}: its functions have no stored `ios` pairs and no input generator "
            f"defining {', '.join(n + '()' for n in GENERATOR_NAMES)} in column "
            f"{mapped!r}; map the generator's column with columns: {{input_generator: "
            f"<column>}}"
        )
    # One column per field, the first alias found.
    chosen: dict[str, str] = {}
    for field, names in _ALIASES.items():
        for alias in names:
            if (
                alias in columns
                and field not in columns
                and alias not in SOURCE_FIELDS
                and alias not in chosen.values()
            ):
                chosen.setdefault(field, alias)
    if "refcode" in chosen:
        chosen.pop("content", None)
    hint = (
        (
            "; map them in the source: columns: {"
            + ", ".join(f"{k}: {v}" for k, v in chosen.items())
            + "}"
        )
        if chosen
        else ("; add a `columns:` mapping naming your columns")
    )
    shown = ", ".join(columns[:12]) + (" ..." if len(columns) > 12 else "")
    return (
        f"{head}: a record needs `refcode` (a function with main_solution) or "
        f"`content` (raw code); its columns are {shown or 'none'}{hint}"
    )


def load_source(source: SourceConfig) -> list[Record]:
    """:func:`iter_source` as a list."""
    return list(iter_source(source))


def load_function_records(
    path: str | Path,
    *,
    keep: int = 3,
    limit: int | None = None,
    columns: dict[str, str] | None = None,
) -> list[Record]:
    """The function records of a CodeI/O file (``refcode`` + stored ``ios`` or an input
    generator), as the ``collect`` stage receives them."""
    source = SourceConfig(
        path=Path(path), limit=limit, pairs_per_function=keep, columns=columns or {}
    )
    records = [r for r in load_source(source) if r.get("entry") == "collect"]
    for record in records:
        record.pop("entry")
    return records
