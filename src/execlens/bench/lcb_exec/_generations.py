"""LiveCodeBench code execution for scoring: problems (as prediction tasks) and
generations files.

Problems come from a local JSON/JSONL file of ``livecodebench/execution-v2`` rows, from
the generations file itself (LiveCodeBench's evaluation output repeats ``code``,
``input`` and ``output`` in every record), or from Hugging Face by default.

Generations: LiveCodeBench's own output (a JSON list of records with ``id`` and the
extracted answers in ``pred_list``), or ``{"<id>": ["<answer>", ...]}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from execlens.bench import (
    DatasetError,
    GenerationsError,
    check_generations,
    read_generations_json,
)
from execlens.tasks import (
    ProblemError,
    Task,
    input_is_call,
    prediction_task_from_record,
)

from ._data import lcb_order, load_lcb_exec
from ._official import LCB_PRELUDE

__all__ = ["lcb_question", "lcb_row_task", "lcb_task", "load_lcb_generations", "load_lcb_problems"]

# The ``source`` of LiveCodeBench's tasks (exported reward tasks' ids start with it).
_SOURCE = "lcb_exec"


def _order(sample_id: str) -> tuple[int, str]:
    return lcb_order(sample_id)


def lcb_row_task(record: Mapping[str, Any], *, id_key: str = "id") -> Task:
    """One execution-v2 row as an output-prediction task (its ``input`` is the full
    call), with LiveCodeBench's import block as its prelude: the rows' code uses the
    names it binds (``Counter``, ``defaultdict``...) without importing them, so a task
    run without it fails with ``NameError`` (an exported input task's right answers)."""
    return prediction_task_from_record(
        record, id_key=id_key, call=True, prelude=LCB_PRELUDE, source=_SOURCE
    )


def lcb_task(sample: Any) -> Task:
    """A loaded ``bench.LCBExecSample`` as an output-prediction task, with LiveCodeBench's
    import block as its prelude (a task already is returned as it is): the loaded row's
    task, by :func:`lcb_row_task`'s rule."""
    if isinstance(sample, Task):
        return sample
    return lcb_row_task(asdict(sample))


def lcb_question(record: Mapping[str, Any]) -> Task | None:
    """The output-prediction task a LiveCodeBench-shaped row (``code``, ``output`` and an
    ``input`` that calls its ``function_name``) asks, or ``None`` for another shape.

    Raises :class:`~execlens.tasks.ProblemError` naming a missing or ill-typed field.
    """
    if not {"code", "input", "output"} <= set(record) or not input_is_call(record):
        return None
    return lcb_row_task(record, id_key="id" if "id" in record else "question_id")


def load_lcb_problems(data: str | Path | None = None) -> list[Task]:
    """The execution-v2 problems, sorted as LiveCodeBench sorts them."""
    try:
        loaded = load_lcb_exec(data)
        if loaded.errors:
            shown = "; ".join(str(error) for error in loaded.errors[:5])
            raise ProblemError(f"{len(loaded.errors)} malformed record(s): {shown}")
        samples = list(loaded.records)
    except DatasetError as exc:
        raise ProblemError(f"{exc}; pass a local file with --data") from exc
    return [lcb_task(sample) for sample in samples]


def load_lcb_generations(path: str | Path) -> tuple[dict[str, list[str]], list[Task] | None]:
    """Generations by problem id, and the problems when the file carries them."""
    file = Path(path)
    data = read_generations_json(file)
    if isinstance(data, dict):
        return check_generations(data, str(file)), None
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise GenerationsError(
            f"{file}: expected LiveCodeBench's list of records or an "
            f"object mapping ids to lists of answers"
        )
    generations: dict[str, Any] = {}
    for index, record in enumerate(data):
        if "id" not in record or "pred_list" not in record:
            raise GenerationsError(f"{file}: record {index} lacks 'id' or 'pred_list'")
        generations[str(record["id"])] = record["pred_list"]
    checked = check_generations(generations, str(file))
    embedded: list[Task] | None = None
    if all(all(k in r for k in ("code", "input", "output")) for r in data):
        embedded = sorted((lcb_row_task(r) for r in data), key=lambda p: _order(p.id))
    return checked, embedded


def sort_problems(problems: Sequence[Task]) -> list[Task]:
    """Problems in LiveCodeBench's order."""
    return sorted(problems, key=lambda p: _order(p.id))
