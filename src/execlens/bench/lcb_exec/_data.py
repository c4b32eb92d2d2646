"""LiveCodeBench code execution (HF ``livecodebench/execution-v2``, split ``test``, 479 rows).

Fields as lcb_runner/benchmarks/code_execution.py's ``CodeExecutionProblem``; ``input``
is a full call with keyword arguments (``f(a = 1)``). Records are ordered as the official
runner orders them: by the number in ``id`` (``sample_<n>``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from execlens.bench import (
    FieldError,
    LoadResult,
    Row,
    check_int,
    check_str,
    load_single_file_dataset,
    parse_samples,
)
from execlens.tasks.prompts import RenderedPrompt

from ._prompts import render_lcb

__all__ = ["LCB_EXEC_HUB", "LCBExecSample", "lcb_order", "load_lcb_exec"]

LCB_EXEC_HUB = "livecodebench/execution-v2"
_LOCAL_NAMES = (
    "execution-v2.jsonl",
    "test.jsonl",
    "code_execution.jsonl",
    "execution-v2.json",
    "test.json",
)


@dataclass(frozen=True)
class LCBExecSample:
    """One LiveCodeBench code-execution problem."""

    question_id: str
    contest_id: str
    contest_date: datetime
    difficulty: str
    function_name: str
    code: str
    input: str
    output: str
    id: str
    problem_id: str
    numsteps: int

    @property
    def sample_id(self) -> str:
        """The stable id: the dataset's ``id`` (``sample_<n>``)."""
        return self.id

    def render(self, style: str) -> RenderedPrompt:
        """The official code-execution prompt in ``style`` (``direct``/``cot``)."""
        return render_lcb(style, code=self.code, input=self.input, sample_id=self.id)


def _date(row: dict[str, Any]) -> datetime:
    if "contest_date" not in row:
        raise FieldError("contest_date", "missing")
    value = row["contest_date"]
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise FieldError("contest_date", f"not an ISO date: {value!r}") from None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        # a JSON export of a timestamp column: milliseconds since the epoch
        return datetime.fromtimestamp(value / 1000, UTC).replace(tzinfo=None)
    raise FieldError("contest_date", f"expected a date, got {type(value).__name__}")


def lcb_order(sample_id: str) -> tuple[int, str]:
    """LiveCodeBench's order: by the number after the last underscore (``sample_12``)."""
    _, _, number = sample_id.rpartition("_")
    return (int(number), sample_id) if number.isdigit() else (1 << 62, sample_id)


def _order(sample: LCBExecSample) -> tuple[int, str]:
    return lcb_order(sample.id)


def _sample(row: dict[str, Any]) -> LCBExecSample:
    return LCBExecSample(
        question_id=check_str(row, "question_id"),
        contest_id=check_str(row, "contest_id"),
        contest_date=_date(row),
        difficulty=check_str(row, "difficulty"),
        function_name=check_str(row, "function_name"),
        code=check_str(row, "code"),
        input=check_str(row, "input"),
        output=check_str(row, "output"),
        id=check_str(row, "id"),
        problem_id=check_str(row, "problem_id"),
        numsteps=check_int(row, "numsteps"),
    )


def _parse(rows: list[Row], source: str) -> LoadResult[LCBExecSample]:
    result = parse_samples(rows, source, _sample)
    result.records.sort(key=_order)  # lcb_runner sorts by int(id.split("_")[1])
    return result


def load_lcb_exec(
    data: str | Path | None = None, *, split: str = "test", revision: str | None = None
) -> LoadResult[LCBExecSample]:
    """Load LiveCodeBench execution from ``data`` -- a .jsonl/.json/.parquet file, a
    directory holding one, or a ``datasets`` ``save_to_disk`` directory, optionally
    pinned as ``PATH@FINGERPRINT`` -- or the hub (at ``revision``, else the revision of
    an enclosing ``data_revision`` block, else the hub's current version)."""
    return load_single_file_dataset(
        data,
        hub=LCB_EXEC_HUB,
        split=split,
        local_names=_LOCAL_NAMES,
        what="LiveCodeBench execution",
        parse=_parse,
        revision=revision,
    )
