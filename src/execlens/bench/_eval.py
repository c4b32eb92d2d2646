"""``execlens eval``: inference + scoring of one benchmark task, resumable, with a report.

A run is a pipeline of small steps over plain records, each one a method of the
benchmark's declaration (``Benchmark``, found in the registry):

1. **load** the benchmark's records (hub or ``--data``) and **plan** the items to ask;
2. **render** each item's official prompt (chat messages or a plain completion);
3. **generate** ``n`` samples per prompt through the OpenAI-compatible client (every
   request goes through the content-addressed cache, so a rerun costs nothing);
4. **extract** each answer exactly as the official post-processing does;
5. **score** in every mode into shards of the run directory (``execlens.store``);
6. **summarise** into ``samples.jsonl`` and ``results.json``, render ``report.html``.

A sample whose model request failed is not recorded: the run ends with an error naming
how many, and a rerun asks exactly those again.  Kill it anywhere and run it again:
finished shards are kept, generated text comes back from the cache, and the final files
are byte for byte the same.  ``--limit`` may grow or shrink between runs.
"""

from __future__ import annotations

import time
from collections import Counter
from contextlib import ExitStack
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._protocol import Benchmark, BenchmarkError
from ._references import attach_reference
from ._registry import get_benchmark
from ._runs import (
    RunError,
    Unit,
    final_records,
    pending_units,
    score_units,
    scoring_engine_for,
    summarise,
    write_samples,
)

if TYPE_CHECKING:
    from execlens.engine import Engine
    from execlens.tasks.prompts import RenderedPrompt

__all__ = ["EvalConfig", "EvalError", "EvalResult", "ModelRequestsFailed", "run_eval"]


class EvalError(RunError):
    """An evaluation that cannot run as asked (bad benchmark/task/prompt, mixed runs)."""


class ModelRequestsFailed(EvalError):
    """Some model requests failed: their samples were not recorded (rerun to retry)."""


@dataclass
class EvalConfig:
    """Everything that defines one evaluation run.

    Sampling fields left as ``None`` take the benchmark's official defaults (the prompt
    records them); ``endpoint="chat"`` sends chat messages (instruct models),
    ``"completion"`` the plain prompt with no chat template (base models, REval's
    reference runner).
    """

    benchmark: str
    task: str
    prompt: str = "direct"
    model: str = "local"
    base_url: str | None = None
    n: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = 0
    endpoint: str = "chat"
    limit: int | None = None
    offset: int = 0
    data: str | None = None
    workers: int | None = None
    no_cache: bool = False
    max_concurrency: int | None = None
    retries: int | None = None
    """Retries of a failed request (default: the client's policy)."""
    extra_body: dict[str, Any] = field(default_factory=dict)
    """Server-specific request fields (vLLM's ``top_k``, ``chat_template_kwargs``, ...)."""

    def identity(self) -> dict[str, Any]:
        """What must match for a rerun to resume this run (not --limit: it may grow)."""
        keys = ("benchmark", "task", "prompt", "model", "base_url", "n", "temperature",
                "top_p", "max_tokens", "seed", "endpoint", "data")
        identity = {key: getattr(self, key) for key in keys}
        if self.extra_body:  # absent when empty: runs from before the option still resume
            identity["extra_body"] = self.extra_body
        return identity


@dataclass
class EvalResult:
    """A finished run: where it is, its results, what this invocation cost."""

    out_dir: Path
    results: dict[str, Any]
    report: Path | None
    requests: int
    cache_hits: int
    seconds: float
    samples_scored_now: int
    samples_resumed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def check_config(config: EvalConfig) -> Benchmark:
    """The benchmark of ``config``, after checking its task, prompt and numbers."""
    try:
        bench = get_benchmark(config.benchmark)
    except BenchmarkError as exc:
        raise EvalError(str(exc)) from exc
    spec = bench.tasks.get(config.task)
    if spec is None:
        raise EvalError(f"{bench.name} has no task {config.task!r} "
                        f"(expected one of {', '.join(sorted(bench.tasks))})")
    if config.prompt not in spec.styles:
        raise EvalError(f"{bench.name}/{config.task} has no prompt {config.prompt!r} "
                        f"(expected one of {', '.join(spec.styles)})")
    if config.endpoint not in ("chat", "completion"):
        raise EvalError("--endpoint must be 'chat' or 'completion'")
    for name, value, low in (("--n", config.n, 1), ("--max-tokens", config.max_tokens, 1),
                             ("--limit", config.limit, 0), ("--offset", config.offset, 0),
                             ("--workers", config.workers, 1),
                             ("--concurrency", config.max_concurrency, 1),
                             ("--retries", config.retries, 0)):
        if value is not None and value < low:
            raise EvalError(f"{name} must be at least {low}, got {value}")
    if config.temperature is not None and not 0.0 <= config.temperature <= 2.0:
        raise EvalError(f"--temperature must be between 0 and 2, got {config.temperature}")
    if config.top_p is not None and not 0.0 < config.top_p <= 1.0:
        raise EvalError(f"--top-p must be in (0, 1], got {config.top_p}")
    return bench


def _sampling(config: EvalConfig, prompt: RenderedPrompt) -> dict[str, Any]:
    defaults = prompt.sampling
    stop = prompt.chat_stop if config.endpoint == "chat" else prompt.stop
    return {
        "n": config.n if config.n is not None else defaults.n,
        "temperature": config.temperature if config.temperature is not None
        else defaults.temperature,
        "top_p": config.top_p if config.top_p is not None else (defaults.top_p or 1.0),
        "max_tokens": config.max_tokens if config.max_tokens is not None else defaults.max_tokens,
        "stop": tuple(stop),
        "seed": config.seed,
        "extra_body": dict(config.extra_body),
    }


def _request(config: EvalConfig, prompt: RenderedPrompt, item_id: str) -> Any:
    from execlens.models import GenerationRequest, SamplingParams

    params = SamplingParams(**_sampling(config, prompt))
    if config.endpoint == "chat":
        return GenerationRequest.chat(prompt.text, system=prompt.system, params=params, id=item_id)
    return GenerationRequest.completion(prompt.completion, params=params, id=item_id)


def _prompt_record(config: EvalConfig, prompt: RenderedPrompt) -> dict[str, Any]:
    if config.endpoint == "chat":
        return {"system": prompt.system, "user": prompt.text}
    return {"completion": prompt.completion}


class _Progress:
    """A rich progress display with one bar per stage (quiet when not a terminal)."""

    def __init__(self, enabled: bool) -> None:
        import sys

        self.bar = None
        if enabled and sys.stderr.isatty():  # nothing on stderr but errors when piped
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self.bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                MofNCompleteColumn(), TimeElapsedColumn(),
                                console=Console(stderr=True), transient=True)

    def __enter__(self) -> _Progress:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def stage(self, name: str, total: int, done: int = 0) -> Callable[[int], None]:
        """A callback setting the stage's completed count."""
        if self.bar is None:
            return lambda count: None
        task = self.bar.add_task(name, total=total, completed=done)
        bar = self.bar
        return lambda count: bar.update(task, completed=count)


def _units(plan: Sequence[tuple[str, list[Any]]]) -> list[Unit]:
    composite = len(plan) > 1
    return [Unit(key=f"{task}:{item.sample_id}" if composite else str(item.sample_id),
                 task=task, position=index, item=item, answers=[])
            for task, items in plan for index, item in enumerate(items)]


@dataclass
class _Generated:
    ok: list[Unit]
    failed: Counter[str]


def _generate(client: Any, bench: Benchmark, units: Sequence[Unit], config: EvalConfig,
              advance: Callable[[], None]) -> _Generated:
    """Prompts → responses → answers for ``units``; failed requests are set apart."""
    flavor = "openai" if config.endpoint == "chat" else "harness"
    prompts = [bench.render(unit.item, unit.task, config.prompt) for unit in units]
    requests = [_request(config, prompt, unit.key) for prompt, unit in zip(prompts, units)]
    # generate_sync closes the loop's HTTP client with the loop: a client left to the
    # garbage collector would try to close itself on a later, unrelated event loop.
    responses = client.generate_sync(requests, on_response=lambda i, r: advance())
    ok: list[Unit] = []
    failed: Counter[str] = Counter()
    for unit, prompt, response in zip(units, prompts, responses):
        errors = [c for c in response.completions if not c.ok]
        if errors:
            for completion in errors:
                failed[completion.error.value if completion.error else "no_text"] += 1
            continue
        texts = [c.text or "" for c in response.completions]
        extracted = [bench.extract(t, unit.item, unit.task, config.prompt, flavor)
                     for t in texts]
        unit.answers = texts if getattr(bench, "scores_raw", False) else [
            e.text for e in extracted]
        unit.extra = {
            "task": unit.task,
            "prompt": _prompt_record(config, prompt),
            "responses": texts,
            "answers": [e.text for e in extracted],
            "extraction": [e.failure or "ok" for e in extracted],
        }
        ok.append(unit)
    return _Generated(ok, failed)


def _check_model(config: EvalConfig) -> None:
    """The model settings checked before anything is written (no network touched)."""
    from execlens.models import ModelConfigError, is_local, resolve_client_config

    try:
        if is_local(config.model):
            if config.base_url:
                raise ModelConfigError("--model local runs its own server: drop --base-url")
        else:
            resolve_client_config(config.model, config.base_url)
    except ModelConfigError as exc:
        raise EvalError(str(exc)) from exc


def _open_client(config: EvalConfig) -> Any:
    from execlens.models import open_client

    settings: dict[str, Any] = {}
    if config.max_concurrency:
        settings["max_concurrency"] = config.max_concurrency
    if config.retries is not None:
        from execlens.models import RetryPolicy

        settings["retry"] = RetryPolicy(max_retries=config.retries)
    return open_client(config.model, config.base_url, no_cache=config.no_cache, **settings)


def run_eval(config: EvalConfig, out: Path, *, overwrite: bool = False,
             show_progress: bool = True, engine: Engine | None = None) -> EvalResult:
    """Run (or resume) one evaluation into ``out`` and return its results.

    Raises :class:`EvalError` for a run that cannot start (nothing is written then) and
    :class:`ModelRequestsFailed` when some requests failed (everything else is kept).
    """
    from execlens.bench import DatasetError
    from execlens.models import LocalModelError, LocalServerError, ModelConfigError
    from execlens.store import RunDir, StoreError

    bench = check_config(config)
    try:
        records = bench.load(config.data)
        plan = bench.plan(records, config.task, limit=config.limit, offset=config.offset)
    except (DatasetError, ValueError) as exc:
        raise EvalError(f"{exc}") from exc
    units = _units(plan)
    if not units:
        raise EvalError("no samples selected (check --data, --limit and --offset)")
    started = time.perf_counter()
    first = units[0]
    sampling = {k: v for k, v in _sampling(config, bench.render(
        first.item, first.task, config.prompt)).items() if k != "stop"}
    n = int(sampling["n"])
    order = {unit.key: unit.position for unit in units}
    own_engine: Engine | None = None
    contexts: dict[str, Any] = {}
    usage = {"requests": 0, "cache_hits": 0}
    _check_model(config)
    try:
        with ExitStack() as stack:
            run = stack.enter_context(RunDir.open(out, {"verb": "eval", **config.identity()},
                                                  overwrite=overwrite))
            todo, resumed = pending_units(run, units)
            progress = stack.enter_context(_Progress(show_progress and bool(todo)))
            # The model (for `local`, its server) is only started when something is left.
            client = stack.enter_context(_open_client(config)) if todo else None
            generating = progress.stage("generating", len(units), resumed)
            scoring = progress.stage("scoring", len(units), resumed)
            asked = scored = 0
            failed: Counter[str] = Counter()

            def advance() -> None:
                nonlocal asked
                asked += 1
                generating(resumed + asked)

            groups: dict[tuple[str, int], list[Unit]] = {}
            for unit in todo:
                groups.setdefault((unit.task, unit.shard), []).append(unit)
            for (task, _), group in groups.items():
                generated = _generate(client, bench, group, config, advance)
                failed.update(generated.failed)
                if not generated.ok:
                    continue
                if engine is None and own_engine is None:
                    own_engine = scoring_engine_for(bench, config.workers)
                if task not in contexts:
                    prepare = getattr(bench, "prepare", None)
                    contexts[task] = None if prepare is None else prepare(
                        [i for t, items in plan if t == task for i in items], task,
                        engine or own_engine)
                scorers = {task: bench.scorers(task, config.prompt, contexts[task])}
                done_before = scored
                scored += score_units(run, bench, generated.ok, scorers=scorers, n=n,
                                      order=order, engine=engine or own_engine,
                                      progress=lambda count: scoring(
                                          resumed + done_before + count))
            if client is not None:
                usage = {"requests": client.stats.requests,
                         "cache_hits": client.stats.cache_hits}
            if failed:
                kinds = ", ".join(f"{count} {kind}" for kind, count in failed.most_common())
                missing = len(todo) - scored
                raise ModelRequestsFailed(
                    f"{missing} of {len(units)} samples got no answer from {config.model} "
                    f"({kinds}); they were not recorded -- rerun the same command to retry "
                    f"them ({len(units) - missing} kept in {out})")
            final = final_records(run, units)
            first_task = plan[0][0]
            results: dict[str, Any] = {
                "benchmark": bench.name, "task": config.task, "prompt": config.prompt,
                "model": config.model, "endpoint": config.endpoint, "sampling": sampling,
                **summarise(bench, final, first_task if len(plan) == 1 else config.task,
                            bench.modes),
            }
            skipped = getattr(bench, "skipped", None)
            if skipped:  # items the benchmark will not ask, with the reason (REval: gensim)
                results["skipped"] = dict(skipped)
            attach_reference(results, benchmark=bench.name, task=config.task,
                             model=config.model, temperature=sampling.get("temperature"),
                             full_benchmark=config.limit is None and not config.offset)
            write_samples(run, final)
            run.write_json("results.json", results)
            from ._report import write_report

            report = write_report([out], run.file("report.html"))
    except ModelConfigError as exc:
        raise EvalError(str(exc)) from exc
    except (LocalModelError, LocalServerError) as exc:
        raise EvalError(f"the embedded model could not start: {exc}") from exc
    except StoreError as exc:
        raise EvalError(str(exc)) from exc
    finally:
        if own_engine is not None:
            own_engine.close()
    return EvalResult(out, results, report, usage["requests"], usage["cache_hits"],
                      time.perf_counter() - started, scored, resumed)
