"""Tracing REval's inputs and exporting the traces in the JetBrains REval layout.

JetBrains-Research/REval (Hugging Face) repackages REval with precomputed traces in two
configs, ``executions`` and ``states``, one row per (problem, input) it holds.  The export
here writes the same two files:

* ``executions.jsonl``: ``task_id, idx, input_idx, problem_type, input, expected_output,
  actual_output, status, trace, coverage, num_states, code_hash, error`` (plus our
  ``mode`` and ``truncated``);
* ``states.jsonl``: ``task_id, idx, input_idx, states`` (a JSON string, as upstream).

Values are envelopes ``{"__type__", "__value__"}`` whose type names are written the way
the dataset card lists them: builtins bare (``int``, ``list``), everything else
module-qualified (``numpy.ndarray``, ``numpy.float64``, ``datetime.datetime``,
``collections.deque``).  Which rows: by default the (problem, input) pairs REval asks
questions about (``DREval_tasks.jsonl``: 690 pairs); ``rows="all"`` exports every input of
every problem (987).  JetBrains' ``executions`` config holds 694 rows: the 4 rows beyond
the 690 asked pairs could not be identified without its files (see the README).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlens.engine import Engine, Job
from execlens.trace import Trace, TraceLimits, TraceRequest, trace_many
from execlens.values import AnswerParseError, envelope_type_key, parse_literal, values_equal

if TYPE_CHECKING:
    from ._data import RevalProblem, RevalRun

__all__ = [
    "EXPORT_ROWS",
    "execution_record",
    "export_jetbrains",
    "output_matches",
    "qualified_envelope",
    "states_record",
    "trace_reval",
]

#: ``pairs``: the (problem, input) pairs REval asks about; ``all``: every input.
EXPORT_ROWS = ("pairs", "all")


def qualified_envelope(value: Any) -> Any:
    """An envelope (at any depth) with non-builtin type names module-qualified.

    ``{"__type__": "ndarray", "__kind__": "numpy", ...}`` becomes ``{"__type__":
    "numpy.ndarray", ...}``; builtins and names whose module is unknown stay as they are.
    """
    if isinstance(value, list):
        return [qualified_envelope(v) for v in value]
    if not isinstance(value, Mapping):
        return value
    out = {k: qualified_envelope(v) for k, v in value.items()}
    if isinstance(value.get("__type__"), str) and value["__type__"] != "Nil":
        module, name = envelope_type_key(value)
        if module and module != "builtins" and "." not in name:
            out["__type__"] = f"{module}.{name}"
    return out


def output_matches(trace: Trace, expected: str | None, engine: Engine | None = None) -> bool | None:
    """Whether a HumanEval trace returned the recorded output (None: nothing recorded).

    A recorded output that is an expression rather than a literal (``"(3 + 5, 3 * 5)"``)
    is evaluated in ``engine`` (never in the host); without an engine it cannot match.
    """
    if expected is None:
        return None
    if not trace.ok:
        return False
    try:
        reference = parse_literal(expected)
    except AnswerParseError:
        if engine is None:
            return False
        outcome = engine.run(Job(program="", call=expected))
        if not outcome.ok:
            return False
        reference = outcome.decoded()
    return values_equal(trace.output, reference, mode="exact")


def _selected(problems: Sequence[RevalProblem], rows: str) -> list[RevalRun]:
    if rows not in EXPORT_ROWS:
        raise ValueError(f"rows must be one of {EXPORT_ROWS}, got {rows!r}")
    selected: list[RevalRun] = []
    for problem in problems:
        asked = {pair.input_idx for pair in problem.pairs}
        selected.extend(run for run in problem.runs if rows == "all" or run.index in asked)
    return selected


def trace_reval(
    engine: Engine,
    problems: Sequence[RevalProblem],
    mode: str = "exact",
    *,
    limits: TraceLimits | None = None,
    progress: bool = False,
    hash_seed: int | None = None,
    rows: str = "all",
) -> Iterator[tuple[RevalRun, Trace | None]]:
    """Trace the inputs of the problems (``rows``: ``all``, or the asked ``pairs``);
    problems that cannot run here yield ``(run, None)``."""
    runnable: list[TraceRequest] = []
    order = _selected(problems, rows)
    for run in order:
        if run.problem.skip_reason is None:
            runnable.append(run.request(mode, limits, hash_seed))
    traces = {id(t.tag): t for t in trace_many(engine, runnable, progress=progress)}
    for run in order:
        yield run, traces.get(id(run))


def execution_record(run: RevalRun, trace: Trace | None) -> dict[str, Any]:
    """One row of the ``executions`` config."""
    problem = run.problem
    record: dict[str, Any] = {
        "task_id": problem.task_id,
        "idx": problem.idx,
        "input_idx": run.index,
        "problem_type": problem.kind,
        "input": run.text,
        "expected_output": run.expected_output,
        "code_hash": problem.code_hash,
    }
    if trace is None:
        record.update(
            actual_output=None,
            status="skipped",
            trace=[],
            coverage=[],
            num_states=0,
            error=problem.skip_reason,
            mode=None,
            truncated=None,
        )
        return record
    record.update(
        actual_output=qualified_envelope(trace.output_envelope),
        status=trace.status,
        trace=trace.lines,
        coverage=trace.coverage,
        num_states=len(trace.steps),
        error=(
            f"{trace.exception_type}: {trace.exception_message}"
            if trace.exception_type
            else (trace.message or None)
        ),
        mode=trace.mode,
        truncated=trace.truncated,
    )
    return record


def states_record(run: RevalRun, trace: Trace | None) -> dict[str, Any]:
    """One row of the ``states`` config (``states`` is a JSON string, as upstream)."""
    problem = run.problem
    states = qualified_envelope(trace.reval_states()) if trace is not None else []
    return {
        "task_id": problem.task_id,
        "idx": problem.idx,
        "input_idx": run.index,
        "states": json.dumps(states, ensure_ascii=False, separators=(",", ":")),
    }


def export_jetbrains(
    results: Iterable[tuple[RevalRun, Trace | None]], out_dir: str | Path
) -> dict[str, int]:
    """Write ``executions.jsonl`` and ``states.jsonl`` into ``out_dir``; returns counts
    (``executions``, ``ok``, ``skipped``)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    counts = {"executions": 0, "skipped": 0, "ok": 0}
    with (
        (out / "executions.jsonl").open("w", encoding="utf-8") as executions,
        (out / "states.jsonl").open("w", encoding="utf-8") as states,
    ):
        for run, trace in results:
            executions.write(json.dumps(execution_record(run, trace), ensure_ascii=False) + "\n")
            states.write(json.dumps(states_record(run, trace), ensure_ascii=False) + "\n")
            counts["executions"] += 1
            counts["skipped"] += trace is None
            counts["ok"] += bool(trace is not None and trace.ok)
    return counts
