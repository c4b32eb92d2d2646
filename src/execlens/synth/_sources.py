"""Source records: raw code files or functions (with or without stored pairs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from execlens.synth._config import ConfigError, SourceConfig

__all__ = ["entry_stage", "load_function_records", "load_source"]

Record = dict[str, Any]


def _rows(source: SourceConfig) -> list[dict[str, Any]]:
    if source.path is not None:
        path = source.path
        if not path.is_file():
            raise ConfigError(f"sources: {path}: no such file; fix sources[].path")
        if path.suffix == ".parquet":
            import pyarrow.parquet as pq

            return pq.read_table(path).to_pylist()
        rows: list[dict[str, Any]] = []
        try:
            with path.open(encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    if not line.strip():
                        continue
                    try:
                        row = json.loads(line)
                    except (json.JSONDecodeError, RecursionError):  # too deep is unreadable
                        row = None
                    # A line that is not one JSON object is kept as a rejected record.
                    rows.append(row if isinstance(row, dict) else
                                {"__malformed__": f"{path.name}:{number}: not a JSON object"})
        except UnicodeDecodeError as exc:
            raise ConfigError(f"sources: {path}: not UTF-8 text (byte {exc.start}); "
                              f"convert it to UTF-8") from None
        return rows
    import datasets

    try:
        loaded = datasets.load_dataset(source.dataset, split=source.split)
    except Exception as exc:  # noqa: BLE001 - any loader failure is the user's fix
        raise ConfigError(f"sources: dataset {source.dataset!r} (split {source.split!r}) "
                          f"could not be loaded: {type(exc).__name__}: {exc}") from exc
    return [dict(row) for row in loaded]


def entry_stage(row: dict[str, Any]) -> str | None:
    """Where a row enters the pipeline: ``transform`` (raw code) or ``collect``."""
    if isinstance(row.get("refcode"), str):
        return "collect"
    if isinstance(row.get("content"), str):
        return "transform"
    return None


def load_source(source: SourceConfig) -> list[Record]:
    """The source's records (after ``offset``/``limit``), in file order, each with a
    stable ``id`` (``<source>/<row>``) and ``entry`` (the stage it enters at); rows that
    are neither raw code nor a function carry a ``reject``."""
    rows = _rows(source)
    end = None if source.limit is None else source.offset + source.limit
    out: list[Record] = []
    for index, row in enumerate(rows[source.offset:end], start=source.offset):
        rid = f"{source.label}/{index}"
        entry = entry_stage(row)
        if entry is None:
            reason = "not_json" if "__malformed__" in row else "no_content_or_refcode"
            out.append({"id": rid, "source": source.label, "entry": None,
                        "reject": {"stage": "load", "reason": reason}})
        elif entry == "transform":
            meta = {k: v for k, v in row.items() if k != "content"}
            out.append({"id": rid, "source": source.label, "entry": entry,
                        "content": row["content"], "keep": source.pairs_per_function,
                        "meta": meta})
        else:
            ios = row.get("ios") if isinstance(row.get("ios"), list) else None
            out.append({
                "id": rid, "source": source.label, "entry": entry,
                "refcode": row["refcode"], "funcname": row.get("funcname") or "main_solution",
                "io_requirements": row.get("io_requirements") or "",
                "problem_description": row.get("problem_description") or "",
                "input_generator": row.get("input_generator"),
                "stored_ios": ios, "keep": source.pairs_per_function,
                "meta": row.get("meta") if isinstance(row.get("meta"), dict) else {},
            })
    return out


def load_function_records(path: str | Path, *, keep: int = 3, limit: int | None = None
                          ) -> list[Record]:
    """The function records of a parsed CodeI/O file (``refcode`` + stored ``ios``), as
    the ``collect`` stage receives them."""
    source = SourceConfig(path=Path(path), limit=limit, pairs_per_function=keep)
    records = [r for r in load_source(source) if r.get("entry") == "collect"]
    for record in records:
        record.pop("entry")
    return records
