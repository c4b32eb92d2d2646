"""The generic score runner: a generations file, both modes, one resumable run directory.

Writes into one directory (through ``execlens.store``: locked, with a manifest):

* ``shards/samples-<task>/*.jsonl`` and their completion markers while it runs;
* ``samples.jsonl``: one line per sample, in dataset order: ``id``, one verdict list per
  mode (``official`` exactly as the official scorer records it; ``strict`` one verdict
  per expected generation, a missing one counted as a failure), per-sample accuracies
  and a per-generation breakdown;
* ``results.json``: the benchmark's metrics per mode, verdict counts, and the
  generations whose verdict differs between modes, grouped by reason.

Killed at any point and rerun, it redoes only unfinished shards and writes the same
bytes.  Nothing in the final files depends on time, process or completion order.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlens.tasks.prompts import read_response

from ._protocol import Benchmark, Generations
from ._references import attach_reference
from ._registry import get_benchmark
from ._runs import (
    RunError,
    Unit,
    final_records,
    pending_units,
    program_identity,
    score_units,
    sha256_json,
    summarise,
    write_samples,
)

if TYPE_CHECKING:
    from execlens.engine import Engine

__all__ = ["ScoreRunError", "ScoreRunResult", "run_score"]


class ScoreRunError(RunError):
    """The output directory holds a different run, is locked by another, or is unusable."""


@dataclass
class ScoreRunResult:
    """A finished run: its results, where they are, and what this invocation did."""

    results: dict[str, Any]
    out_dir: Path
    scored_now: int
    resumed: int
    seconds: float


def _final_answer(answer: str) -> str:
    """The part of a generation that answers: a reasoning model's thought set apart.

    A generation with no thought (every official generations file) is returned whole; one
    whose thought never closed has no answer.
    """
    response = read_response(answer)
    return response.final if response.answerable else ""


def _units(generations: Generations) -> list[Unit]:
    return [Unit(key=str(item.sample_id if hasattr(item, "sample_id") else item.id),
                 task=generations.task, position=index, item=item,
                 answers=[_final_answer(answer) for answer in answers])
            for index, (item, answers) in enumerate(generations.items)]


def run_score(
    out_dir: str | Path,
    benchmark: str | Benchmark,
    generations: Generations,
    *,
    generations_file: str = "",
    engine: Engine | None = None,
    workers: int | None = None,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
    model: str | None = None,
    temperature: float | None = None,
) -> ScoreRunResult:
    """Score ``generations`` in every mode of ``benchmark`` into ``out_dir``, resumably.

    ``engine``: use this one (not closed here); otherwise a scoring engine is started
    when something is left to score.  ``progress(done, total)`` is called as samples
    finish.  ``model`` and ``temperature`` say who generated the file: recorded, and
    used to put a published reference beside the scores when one is known.
    """
    from execlens.store import RunDir, StoreError

    bench = get_benchmark(benchmark) if isinstance(benchmark, str) else benchmark
    units = _units(generations)
    if not units:
        raise ScoreRunError("the generations file pairs no samples; nothing to score")
    n = max(len(unit.answers) for unit in units)
    if n == 0:  # pass@k of empty lists is 1.0: refuse rather than report 100 %
        raise ScoreRunError(f"{generations_file or 'the generations file'} holds no "
                            "generation for any sample; pass a file with answers")
    identity = {
        "verb": "score",
        "benchmark": bench.name,
        "task": generations.task,
        "notes": generations.notes,
        # The same file under another path is the same run: contents, not names.
        "generations_sha256": sha256_json([[u.key, u.answers] for u in units]),
        "data_sha256": sha256_json([repr(u.item) for u in units]),
        "program": program_identity(engine),
    }
    started = time.perf_counter()
    try:
        with RunDir.open(out_dir, identity, overwrite=overwrite) as run:
            todo, resumed = pending_units(run, units)
            if todo:
                scorers = {generations.task: bench.scorers(generations.task, "direct",
                                                           generations.context)}
                score_units(run, bench, todo, scorers=scorers, n=n, engine=engine,
                            workers=workers, order={u.key: u.position for u in units},
                            progress=(lambda done: progress(resumed + done, len(units)))
                            if progress else None)
            records = final_records(run, units)
            results = {"benchmark": bench.name, "task": generations.task,
                       **generations.notes, "generations_file": generations_file,
                       **summarise(bench, records, generations.task, bench.modes)}
            if model is not None:
                results["model"] = model
                results["sampling"] = {"temperature": temperature}
                attach_reference(results, benchmark=bench.name,
                                 task=str(generations.notes.get("official_task",
                                                                generations.task)),
                                 model=model, temperature=temperature, full_benchmark=True)
            write_samples(run, records)
            run.write_json("results.json", results)
    except StoreError as exc:
        raise ScoreRunError(str(exc)) from exc
    return ScoreRunResult(results, Path(out_dir), len(todo), resumed,
                          time.perf_counter() - started)
