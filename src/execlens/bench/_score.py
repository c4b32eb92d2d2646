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

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, ExitStack
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
from ._run import Run, RunError, records_digest, sha256_json
from ._runs import (
    Unit,
    pending,
    prepare_context,
    record_isolation,
    run_records,
    score_shard,
    scoring_engine_for,
    summarise,
    unit_steps,
    write_samples,
)

if TYPE_CHECKING:
    from execlens.engine import Engine
    from execlens.judge import Scorer
    from execlens.store import RunDir, ShardExecutor, Step

__all__ = ["ScoreRun", "ScoreRunError", "ScoreRunResult", "run_score"]


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


class ScoreRun(Run[ScoreRunResult]):
    """Score a generations file in every mode of a benchmark (the units: one per paired
    sample; one unit done: its texts read as eval reads replies, then scored)."""

    verb = "score"
    error = ScoreRunError

    def __init__(
        self,
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
    ) -> None:
        super().__init__(out_dir, overwrite=overwrite, engine=engine)
        self.bench = get_benchmark(benchmark) if isinstance(benchmark, str) else benchmark
        self.generations, self.generations_file = generations, generations_file
        self.workers, self.progress = workers, progress
        self.model, self.temperature, self.data_revision = model, temperature, data_revision
        self.prompt, self.endpoint = prompt, endpoint
        self._check()
        self.units = _units(generations)
        if not self.units:
            raise ScoreRunError("the generations file pairs no samples; nothing to score")
        self.n = max(len(unit.answers) for unit in self.units)
        if self.n == 0:  # pass@k of empty lists is 1.0: refuse rather than report 100 %
            raise ScoreRunError(
                f"{generations_file or 'the generations file'} holds no "
                "generation for any sample; pass a file with answers"
            )
        self.scorers: Mapping[str, Scorer[Any]] | None = None  # asked for once work is left
        self.scored = self.resumed = 0

    def _check(self) -> None:
        spec = self.bench.tasks.get(self.generations.task)
        if spec is not None and self.prompt not in spec.styles:
            raise ScoreRunError(
                f"{self.bench.name}/{self.generations.task} has no prompt {self.prompt!r} "
                f"(use --prompt {' or '.join(spec.styles)})"
            )
        if self.endpoint not in ("chat", "completion"):
            raise ScoreRunError("--endpoint must be 'chat' or 'completion'")

    def identity(self) -> dict[str, Any]:
        """The benchmark, task and notes, digests of the texts and the data, and how the
        texts are read when not the defaults."""
        identity: dict[str, Any] = {
            "benchmark": self.bench.name,
            "task": self.generations.task,
            "notes": self.generations.notes,
            # The same file under another path is the same run: contents, not names.
            "generations_sha256": sha256_json([[u.key, u.answers] for u in self.units]),
            "data_sha256": records_digest([u.item for u in self.units]),
        }
        if self.data_revision is not None:  # absent unpinned: earlier runs still resume
            identity["data_revision"] = self.data_revision
        if self.read_as is not None:  # absent at the defaults, as before
            identity["read_as"] = self.read_as
        return identity

    @property
    def read_as(self) -> dict[str, str] | None:
        """``prompt`` and ``endpoint`` unless they are the defaults (``direct``, ``chat``)."""
        if (self.prompt, self.endpoint) == ("direct", "chat"):
            return None
        return {"prompt": self.prompt, "endpoint": self.endpoint}

    def steps(self) -> list[Step]:
        """One keyed step over the paired samples."""
        return unit_steps(self.units)

    def start_engine(self) -> AbstractContextManager[Engine]:
        """A scoring engine sized and preloaded as the benchmark asks."""
        return scoring_engine_for(self.bench, self.workers)

    def begin(self, executor: ShardExecutor, stack: ExitStack) -> None:
        """Count what resumes."""
        self.resumed = len(self.units) - len(pending(executor))

    def work(self, step: str, chunk: list[Unit]) -> list[dict[str, Any]]:
        """One shard's samples read and scored in every mode."""
        scorers = self._scorers()
        for unit in chunk:
            _read_unit(self.bench, unit, self.generations, self.prompt, self.endpoint)
        return score_shard(chunk, scorers, n=self.n, engine=self.engine, progress=self._advance)

    def _scorers(self) -> Mapping[str, Scorer[Any]]:
        if self.scorers is None:
            context = self.generations.context
            if context is None:  # strict truth computed as eval computes it
                context = prepare_context(
                    self.bench, [u.item for u in self.units], self.generations.task, self.engine
                )
            try:
                self.scorers = self.bench.scorers(self.generations.task, self.prompt, context)
            except BenchmarkError as exc:
                raise ScoreRunError(str(exc)) from exc
        return self.scorers

    def _advance(self) -> None:
        self.scored += 1
        if self.progress is not None:
            self.progress(self.resumed + self.scored, len(self.units))

    def finish(self, run: RunDir, executor: ShardExecutor) -> ScoreRunResult:
        """``samples.jsonl`` and ``results.json``."""
        records = run_records(executor)
        results = self._results(records)
        record_isolation(run, results, self.engine_used)
        write_samples(run, records)
        run.write_json("results.json", results)
        return ScoreRunResult(results, self.out, self.scored, self.resumed, self.seconds())

    def _results(self, records: list[dict[str, Any]]) -> dict[str, Any]:
        bench, generations = self.bench, self.generations
        results = {
            "benchmark": bench.name,
            "task": generations.task,
            **generations.notes,
            "generations_file": self.generations_file,
            **summarise(bench, records, generations.task, bench.modes),
        }
        stops = _stops(bench, self.units[0].item, generations, self.prompt, self.endpoint)
        responses, flags = responses_summary(
            records,
            reasoning="auto",
            stops_sent=(),
            stops_applied=stops if generations.responses else (),
        )
        responses["read_as_responses"] = generations.responses
        if self.read_as is not None:
            results["prompt"], results["endpoint"] = self.prompt, self.endpoint
        results["responses"] = responses
        if flags:
            results["flags"] = [*flags, *results.get("flags", [])]
        if self.model is not None:
            results["model"] = self.model
            results["sampling"] = {"temperature": self.temperature}
            attach_reference(
                results,
                benchmark=bench.name,
                task=str(generations.notes.get("official_task", generations.task)),
                model=self.model,
                temperature=self.temperature,
                full_benchmark=True,
            )
        return results


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
    return ScoreRun(
        out_dir,
        benchmark,
        generations,
        generations_file=generations_file,
        engine=engine,
        workers=workers,
        overwrite=overwrite,
        progress=progress,
        model=model,
        temperature=temperature,
        data_revision=data_revision,
        prompt=prompt,
        endpoint=endpoint,
    ).execute()
