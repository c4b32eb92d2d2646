"""Reading training data: an ``execlens export`` folder, Parquet or JSONL files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from execlens.train._config import ConfigError

__all__ = ["load_rows", "resolve_data_path"]


def resolve_data_path(data: str, preferred: str) -> Path:
    """The file ``data`` names: itself, or in an export folder ``preferred`` (else the
    usual names); a :class:`ConfigError` naming the fix when there is none."""
    path = Path(data)
    if path.is_dir():
        for name in (preferred, "trl.parquet", "chains.jsonl", "sft.jsonl"):
            if (path / name).is_file():
                return path / name
        raise ConfigError(f"{path} holds no {preferred}; write one with `execlens export`")
    if not path.is_file():
        raise ConfigError(f"training data {path} does not exist; check `data` in the config")
    return path


def load_rows(
    data: str,
    *,
    preferred: str = "trl.parquet",
    max_samples: int | None = None,
    required: tuple[str, ...] = (),
) -> Any:
    """A ``datasets.Dataset`` of the file's rows (first ``max_samples``), checked for the
    ``required`` columns."""
    from datasets import Dataset
    from datasets.utils.logging import disable_progress_bar

    # Its "Generating train split" bars would sit on stderr above a config error's one line.
    disable_progress_bar()
    path = resolve_data_path(data, preferred)
    if path.suffix in (".jsonl", ".json") and not path.read_bytes().strip():
        # datasets fails on an empty file with a traceback about JSON schemas.
        raise ConfigError(
            f"training data {path} is empty; write rows into it first (e.g. "
            f"`execlens train chains` or `execlens export`)"
        )
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        dataset = Dataset(pq.read_table(path))
    elif path.suffix in (".jsonl", ".json"):
        dataset = Dataset.from_json(str(path))
    else:
        raise ConfigError(f"training data {path}: use .parquet or .jsonl")
    missing = [c for c in required if c not in dataset.column_names]
    if missing:
        raise ConfigError(
            f"training data {path} lacks column(s) {missing} (has {dataset.column_names})"
        )
    if max_samples is not None:
        dataset = dataset.select(range(min(max_samples, len(dataset))))
    if len(dataset) == 0:
        raise ConfigError(f"training data {path} holds no rows; there is nothing to train on")
    return dataset
