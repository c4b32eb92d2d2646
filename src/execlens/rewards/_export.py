"""Export reward tasks to the dataset shapes trainers read.

* TRL (``trl.parquet``): ``prompt`` (chat messages), ``ground_truth`` (the task's JSON
  string -- the column :class:`~execlens.rewards.ExeclensReward` reads), ``kind``,
  ``task_id``, ``data_source``.  Load with ``datasets.load_dataset("parquet",
  data_files=...)``.
* verl (``verl.parquet``): ``data_source``, ``prompt`` (messages), ``ability``,
  ``reward_model: {style: "rule", ground_truth}`` and ``extra_info: {split, index,
  kind, task_id}`` -- the row shape of verl's ``examples/data_preprocess``.

Ground truth is a JSON string in both, so both trainers hand it back to the same judge.
Tasks whose program matches an evaluation program (:class:`Decontaminator`) are dropped
and counted; ``export.json`` records what was written and dropped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from execlens.rewards._decontam import Decontaminator
from execlens.rewards._prompts import render_messages
from execlens.tasks import Task, prediction_code

__all__ = ["FORMATS", "ExportResult", "export_tasks", "trl_row", "verl_row"]

FORMATS = ("trl", "verl")
ABILITY = "code_execution"


@dataclass
class ExportResult:
    """What :func:`export_tasks` did."""

    written: int = 0
    dropped: int = 0
    duplicates: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "written": self.written,
            "dropped_contaminated": self.dropped,
            "duplicates": self.duplicates,
            "by_kind": dict(self.by_kind),
            "files": dict(self.files),
        }


def trl_row(task: Task) -> dict[str, Any]:
    """One TRL prompt-dataset row."""
    return {
        "prompt": render_messages(task),
        "ground_truth": task.to_json(),
        "kind": task.kind,
        "task_id": task.id,
        "data_source": task.source or "execlens",
    }


def verl_row(task: Task, index: int, *, split: str = "train") -> dict[str, Any]:
    """One verl Parquet row."""
    return {
        "data_source": f"execlens/{task.source or 'tasks'}",
        "prompt": render_messages(task),
        "ability": ABILITY,
        "reward_model": {"style": "rule", "ground_truth": task.to_json()},
        "extra_info": {"split": split, "index": index, "kind": task.kind, "task_id": task.id},
    }


def export_tasks(
    tasks: Iterable[Task],
    out_dir: str | Path,
    *,
    formats: Iterable[str] = FORMATS,
    decontaminator: Decontaminator | None = None,
    split: str = "train",
) -> ExportResult:
    """Write ``tasks`` as TRL and/or verl Parquet files under ``out_dir`` (atomically).

    Exact duplicate ground truths are written once; contaminated programs are dropped.
    A ``ValueError`` (nothing written) when no task is left to write.
    """
    from execlens.store import write_json_atomic, write_parquet_atomic

    chosen = tuple(formats)
    unknown = [f for f in chosen if f not in FORMATS]
    if unknown or not chosen:
        raise ValueError(f"formats are {FORMATS}, got {list(chosen)}")
    result = ExportResult()
    kept: list[Task] = []
    seen: set[str] = set()
    verdicts: dict[str, bool] = {}
    for task in tasks:
        key = task.to_json()
        if key in seen:
            result.duplicates += 1
            continue
        seen.add(key)
        if decontaminator is not None:
            # The code without its prelude: an import block in front must not hide a copy.
            code = prediction_code(task)
            if code not in verdicts:
                verdicts[code] = decontaminator.contaminated(code)
            if verdicts[code]:
                result.dropped += 1
                continue
        kept.append(task)
    if not kept:  # an empty training set is never what was meant: say why, write nothing
        read = len(seen) + result.duplicates
        raise ValueError(
            f"nothing to export: of {read} tasks, {result.dropped} match an "
            f"evaluation program and {result.duplicates} repeat another"
        )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if "trl" in chosen:
        path = out / "trl.parquet"
        write_parquet_atomic(path, [trl_row(t) for t in kept])
        result.files["trl"] = str(path)
    if "verl" in chosen:
        path = out / "verl.parquet"
        write_parquet_atomic(path, [verl_row(t, i, split=split) for i, t in enumerate(kept)])
        result.files["verl"] = str(path)
    result.written = len(kept)
    result.by_kind = dict(Counter(t.kind for t in kept))
    summary = result.to_dict()
    summary["decontaminated_against"] = list(decontaminator.sources) if decontaminator else []
    write_json_atomic(out / "export.json", summary)
    return result
