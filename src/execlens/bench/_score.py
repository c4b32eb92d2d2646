"""The generic score runner: a generations file, both modes, one resumable run directory.

Writes into one directory (through ``execlens.store``: locked, with a manifest):

* ``shards/samples-<task>/*.jsonl`` and their completion markers while it runs;
* ``samples.jsonl``: one line per sample, in dataset order: ``id``, one verdict list per
  mode (``official`` exactly as the official scorer records it; ``strict`` one verdict
  per expected generation, a missing one counted as a failure), per-sample accuracies
  and a per-generation breakdown;
* ``results.json``: the benchmark's metrics per mode, verdict counts, and the
  generations whose verdict differs between modes, grouped by reason.

Each text goes the way ``execlens eval`` takes a model's reply (``bench._reading``): a
thought is set apart, the prompt's official stop strings cut the final part and the
benchmark's extraction reads the answer from it, for ``--prompt`` and ``--endpoint`` as
eval would; strict ground truth comes from the benchmark's ``prepare``, as in eval.  So a
file of a thinker's responses scores what eval scored on them.

Killed at any point and rerun, it redoes only unfinished shards and writes the same
bytes.  Nothing in the final files depends on time, process or completion order.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlens.tasks import Task
from execlens.tasks.prompts import read_response

from ._base import Benchmark
from ._protocol import BenchmarkError, Generations
from ._reading import (
    AS_GIVEN,
    ReadAnswer,
    flavor_of,
    read_answers,
    reading_fields,
    responses_summary,
    scored_texts,
    stops_of,
)
from ._references import attach_reference
from ._registry import get_benchmark
from ._runs import (
    RunError,
    Unit,
    pending,
    prepare_context,
    program_identity,
    record_isolation,
    run_records,
    score_shard,
    scoring_engine_for,
    sha256_json,
    summarise,
    unit_executor,
    write_samples,
)

if TYPE_CHECKING:
    from execlens.engine import Engine
    from execlens.judge import Scorer

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


def _read_unit(
    bench: Benchmark, unit: Unit, generations: Generations, style: str, endpoint: str
) -> None:
    """The unit's answers read from its texts, as eval reads a model's replies."""
    texts = list(unit.answers)
    responses = [read_response(text) for text in texts]
    if generations.responses:
        read = read_answers(
            bench,
            unit.item,
            generations.task,
            style,
            flavor_of(endpoint),
            responses,
            _stops(bench, unit.item, generations, style, endpoint),
        )
        read = [_as_given(r) for r in read]
    else:  # answers an official runner extracted: only a thought is set apart
        from execlens.tasks.prompts import Extraction

        read = [
            ReadAnswer(
                r,
                r.final,
                Extraction(r.final, ("as_given",))
                if r.answerable
                else Extraction("", (), failure=r.status.value),
            )
            for r in responses
        ]
    unit.answers = scored_texts(bench, read)
    unit.extra = reading_fields(read, texts)


def _stops(
    bench: Benchmark, item: Any, generations: Generations, style: str, endpoint: str
) -> tuple[str, ...]:
    """The official stop strings of ``item``'s prompt, as eval cuts a final part at them
    (none for a file paired with problems rather than prompts: ``Generations.prompted``,
    nor for a hand-made :class:`~execlens.tasks.Task`, which is a question, not a prompt)."""
    if not generations.prompted or isinstance(item, Task):
        return ()
    return stops_of(bench.render(item, generations.task, style), endpoint)


def _as_given(read: ReadAnswer) -> ReadAnswer:
    """A bare answer (no thought, no wrapper the extraction looks for, left whole by it)
    is labelled ``as_given`` rather than a format failure: official generations files
    hold answers their runner already extracted."""
    failure = read.extraction.failure
    text = read.extraction.text.strip()
    if failure is None or read.response.has_reasoning or not text or text != read.final.strip():
        return read
    return replace(read, extraction=replace(read.extraction, failure=AS_GIVEN))


def _units(generations: Generations) -> list[Unit]:
    return [
        Unit(
            key=str(item.sample_id if hasattr(item, "sample_id") else item.id),
            task=generations.task,
            position=index,
            item=item,
            answers=list(answers),
        )
        for index, (item, answers) in enumerate(generations.items)
    ]


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
    data_revision: str | None = None,
    prompt: str = "direct",
    endpoint: str = "chat",
) -> ScoreRunResult:
    """Score ``generations`` in every mode of ``benchmark`` into ``out_dir``, resumably.

    ``engine``: use this one (not closed here); otherwise a scoring engine is started
    when something is left to score.  ``progress(done, total)`` is called as samples
    finish.  ``model`` and ``temperature`` say who generated the file: recorded, and
    used to put a published reference beside the scores when one is known.
    ``data_revision``: the hub revision the data was loaded at, recorded in the run's
    identity beside the digest of the data (which is there either way).  ``prompt`` and
    ``endpoint`` say how the texts were asked for (the prompt style and ``chat`` or
    ``completion``): their official stops and extraction read the texts.
    """
    from execlens.store import RunDir, StoreError

    bench = get_benchmark(benchmark) if isinstance(benchmark, str) else benchmark
    spec = bench.tasks.get(generations.task)
    if spec is not None and prompt not in spec.styles:
        raise ScoreRunError(
            f"{bench.name}/{generations.task} has no prompt {prompt!r} "
            f"(use --prompt {' or '.join(spec.styles)})"
        )
    if endpoint not in ("chat", "completion"):
        raise ScoreRunError("--endpoint must be 'chat' or 'completion'")
    units = _units(generations)
    if not units:
        raise ScoreRunError("the generations file pairs no samples; nothing to score")
    n = max(len(unit.answers) for unit in units)
    if n == 0:  # pass@k of empty lists is 1.0: refuse rather than report 100 %
        raise ScoreRunError(
            f"{generations_file or 'the generations file'} holds no "
            "generation for any sample; pass a file with answers"
        )
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
    if data_revision is not None:  # absent unpinned: earlier runs still resume
        identity["data_revision"] = data_revision
    if (prompt, endpoint) != ("direct", "chat"):  # absent at the defaults, as before
        identity["read_as"] = {"prompt": prompt, "endpoint": endpoint}
    started = time.perf_counter()
    own: Engine | None = None
    scored = 0
    try:
        with RunDir.open(out_dir, identity, overwrite=overwrite) as run:
            scorers: Mapping[str, Scorer[Any]] | None = None  # asked for once something is left

            def work(task: str, shard: list[Unit]) -> list[dict[str, Any]]:
                nonlocal own, scorers, scored
                if engine is None and own is None:  # started only when something is left
                    own = scoring_engine_for(bench, workers)
                if scorers is None:
                    context = generations.context
                    if context is None:  # strict truth computed as eval computes it
                        context = prepare_context(
                            bench, [u.item for u in units], generations.task, engine or own
                        )
                    try:
                        scorers = bench.scorers(generations.task, prompt, context)
                    except BenchmarkError as exc:
                        raise ScoreRunError(str(exc)) from exc
                for unit in shard:
                    _read_unit(bench, unit, generations, prompt, endpoint)

                def advance() -> None:
                    nonlocal scored
                    scored += 1
                    if progress is not None:
                        progress(resumed + scored, len(units))

                return score_shard(shard, scorers, n=n, engine=engine or own, progress=advance)

            executor = unit_executor(run, units, work)
            resumed = len(units) - len(pending(executor))
            executor.run()
            records = run_records(executor)
            results = {
                "benchmark": bench.name,
                "task": generations.task,
                **generations.notes,
                "generations_file": generations_file,
                **summarise(bench, records, generations.task, bench.modes),
            }
            stops = _stops(bench, units[0].item, generations, prompt, endpoint)
            responses, flags = responses_summary(
                records,
                reasoning="auto",
                stops_sent=(),
                stops_applied=stops if generations.responses else (),
            )
            responses["read_as_responses"] = generations.responses
            if (prompt, endpoint) != ("direct", "chat"):
                results["prompt"], results["endpoint"] = prompt, endpoint
            results["responses"] = responses
            if flags:
                results["flags"] = [*flags, *results.get("flags", [])]
            if model is not None:
                results["model"] = model
                results["sampling"] = {"temperature": temperature}
                attach_reference(
                    results,
                    benchmark=bench.name,
                    task=str(generations.notes.get("official_task", generations.task)),
                    model=model,
                    temperature=temperature,
                    full_benchmark=True,
                )
            record_isolation(run, results, engine or own)
            write_samples(run, records)
            run.write_json("results.json", results)
    except StoreError as exc:
        raise ScoreRunError(str(exc)) from exc
    finally:
        if own is not None:
            own.close()
    return ScoreRunResult(results, Path(out_dir), scored, resumed, time.perf_counter() - started)
