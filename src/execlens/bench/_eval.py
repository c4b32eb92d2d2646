"""``execlens eval``: inference + scoring of one benchmark task, resumable, with a report.

A run is a pipeline of small steps over plain records:

1. **load** the benchmark's samples (hub or ``--data``), slice with ``--limit``;
2. **render** each sample's official prompt (chat messages or a plain completion);
3. **generate** ``n`` samples per prompt through the OpenAI-compatible client (every
   request goes through the content-addressed cache, so a rerun costs nothing);
4. **extract** each answer exactly as the official post-processing does;
5. **score** in ``official`` and ``strict`` modes (append-only ``samples.jsonl``);
6. **summarise** into ``results.json``, print a table, render ``report.html``.

Kill it anywhere and run it again: finished samples are skipped, generated text comes
back from the cache, and the result is the same.
"""

from __future__ import annotations

import asyncio
import json
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from execlens.bench._references import attach_reference
from execlens.tasks.prompts import BENCHMARKS, Extraction, RenderedPrompt

__all__ = ["BenchmarkAdapter", "EvalConfig", "EvalError", "EvalResult", "run_eval"]

_CHUNK = 200  # samples generated and scored per step: bounded memory, steady progress


class EvalError(RuntimeError):
    """An evaluation that cannot run as asked (bad benchmark/task/prompt, mixed runs)."""


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


class BenchmarkAdapter(Protocol):
    """What the runner needs from a benchmark (one module per benchmark)."""

    name: str

    def plan(self, data: str | None, task: str, *, limit: int | None, offset: int
             ) -> list[tuple[str, list[Any]]]:
        """``(task, items)`` to prompt for; several for composite tasks (REval IC)."""
        ...

    def render(self, item: Any, task: str, style: str) -> RenderedPrompt:
        """The official prompt of one item."""
        ...

    def extract(self, raw: str, item: Any, task: str, style: str, flavor: str) -> Extraction:
        """The answer text the official scorer would see."""
        ...

    def score(self, out_dir: Path, plan: list[tuple[str, list[Any]]],
              entries: dict[str, dict[str, dict[str, Any]]], config: EvalConfig,
              progress: Callable[[int, int], None]) -> dict[str, Any]:
        """Score every item in both modes into ``out_dir``; returns ``results``.

        ``entries[task][item id]`` holds the prompt, raw responses and extracted answers.
        """
        ...


def _adapter(benchmark: str) -> BenchmarkAdapter:
    if benchmark in ("cruxeval", "lcb-exec"):
        from execlens.bench._eval_exec import ExecPredictionAdapter

        return ExecPredictionAdapter(benchmark)
    if benchmark == "reval":
        from execlens.bench._eval_reval import RevalAdapter

        return RevalAdapter()
    raise EvalError(f"unknown benchmark {benchmark!r} (expected one of {sorted(BENCHMARKS)})")


def _check(config: EvalConfig) -> None:
    tasks = dict(BENCHMARKS.get(config.benchmark) or {})
    if config.benchmark == "reval":  # all four tasks, for Incremental Consistency
        tasks["consistency"] = tasks["coverage"]
    if not tasks:
        raise EvalError(f"unknown benchmark {config.benchmark!r} "
                        f"(expected one of {sorted(BENCHMARKS)})")
    styles = tasks.get(config.task)
    if styles is None:
        raise EvalError(f"{config.benchmark} has no task {config.task!r} "
                        f"(expected one of {sorted(tasks)})")
    if config.prompt not in styles:
        raise EvalError(f"{config.benchmark}/{config.task} has no prompt {config.prompt!r} "
                        f"(expected one of {list(styles)})")
    if config.endpoint not in ("chat", "completion"):
        raise EvalError("endpoint must be 'chat' or 'completion'")


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


def _prepare(out: Path, config: EvalConfig, overwrite: bool) -> None:
    out.mkdir(parents=True, exist_ok=True)
    path = out / "eval.json"
    identity = config.identity()
    if path.is_file() and not overwrite:
        previous = json.loads(path.read_text(encoding="utf-8")).get("identity")
        if previous != identity:
            changed = sorted(k for k in identity if (previous or {}).get(k) != identity[k])
            raise EvalError(f"{out} holds a different run (differs in: {', '.join(changed)}); "
                            "choose another --out or pass --overwrite")
    elif overwrite:
        for name in ("samples.jsonl", "results.json", "run.json", "report.html"):
            (out / name).unlink(missing_ok=True)
    record = {"identity": identity, "config": asdict(config),
              "python": platform.python_version(), "packages": _versions()}
    path.write_text(json.dumps(record, indent=2, default=str) + "\n", encoding="utf-8")


def _versions() -> dict[str, str]:
    from importlib import metadata

    found = {}
    for name in ("execlens", "openai", "llama-cpp-python", "numpy", "datasets"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def _done_ids(out: Path) -> set[str]:
    samples = out / "samples.jsonl"
    done: set[str] = set()
    if samples.is_file():
        with samples.open(encoding="utf-8") as handle:
            for line in handle:
                try:
                    done.add(json.loads(line)["id"])
                except (json.JSONDecodeError, KeyError, TypeError):
                    continue  # a torn last line from a killed run
    return done


class _Progress:
    """A rich progress display with one bar per stage (quiet when not a terminal)."""

    def __init__(self, enabled: bool) -> None:
        self.bar = None
        if enabled:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self.bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                MofNCompleteColumn(), TimeElapsedColumn())

    def __enter__(self) -> _Progress:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def stage(self, name: str, total: int) -> Callable[[int], None]:
        """A callback setting the stage's completed count."""
        if self.bar is None:
            return lambda done: None
        task = self.bar.add_task(name, total=total)
        bar = self.bar
        return lambda done: bar.update(task, completed=done)


def _generate(client: Any, adapter: BenchmarkAdapter, task: str, items: Sequence[Any],
              config: EvalConfig, advance: Callable[[], None]) -> dict[str, dict[str, Any]]:
    """Prompts → responses → extracted answers for ``items``: the per-item log entries."""
    flavor = "openai" if config.endpoint == "chat" else "harness"
    entries: dict[str, dict[str, Any]] = {}
    for start in range(0, len(items), _CHUNK):
        chunk = items[start:start + _CHUNK]
        prompts = [adapter.render(item, task, config.prompt) for item in chunk]
        requests = [_request(config, p, item.sample_id) for p, item in zip(prompts, chunk)]
        responses = asyncio.run(client.generate(requests, on_response=lambda i, r: advance()))
        for item, prompt, response in zip(chunk, prompts, responses):
            texts = [c.text if c.ok else "" for c in response.completions]
            extracted = [adapter.extract(t, item, task, config.prompt, flavor) for t in texts]
            entries[item.sample_id] = {
                "prompt": _prompt_record(config, prompt),
                "responses": texts,
                "answers": [e.text for e in extracted],
                "extraction": [e.failure or "ok" for e in extracted],
                "model_errors": [c.error.value if c.error else None
                                 for c in response.completions],
            }
    return entries


def run_eval(config: EvalConfig, out: Path, *, overwrite: bool = False,
             show_progress: bool = True) -> EvalResult:
    """Run (or resume) one evaluation into ``out`` and return its results."""
    from execlens.models import open_client

    _check(config)
    adapter = _adapter(config.benchmark)
    plan = adapter.plan(config.data, config.task, limit=config.limit, offset=config.offset)
    items = [item for _, task_items in plan for item in task_items]
    if not items:
        raise EvalError("no samples selected (check --data, --limit and --offset)")
    _prepare(out, config, overwrite)
    logged = {f"{task}:{item.sample_id}" if len(plan) > 1 else item.sample_id
              for task, task_items in plan for item in task_items}
    resumed = len(_done_ids(out) & logged)
    started = time.perf_counter()
    settings: dict[str, Any] = {}
    if config.max_concurrency:
        settings["max_concurrency"] = config.max_concurrency
    # Every sample is (re)generated: finished ones come back from the request cache at
    # no cost, and scoring skips what samples.jsonl already holds.
    extras: dict[str, dict[str, dict[str, Any]]] = {}
    with _Progress(show_progress) as progress, open_client(
            config.model, config.base_url, no_cache=config.no_cache, **settings) as client:
        bar = progress.stage("generating", len(items))
        generated = 0

        def advance() -> None:
            nonlocal generated
            generated += 1
            bar(generated)

        for task, task_items in plan:
            extras[task] = _generate(client, adapter, task, task_items, config, advance)
        requests_made = client.stats.requests
        cache_hits = client.stats.cache_hits
        usage = client.stats.as_dict()
    with _Progress(show_progress) as progress:
        score_bar = progress.stage("scoring", len(items))
        results = adapter.score(out, plan, extras, config,
                                lambda finished, total: score_bar(finished))
    first_task, first_items = plan[0]
    results["model"] = config.model
    results["prompt"] = config.prompt
    results["endpoint"] = config.endpoint
    results["sampling"] = {k: v for k, v in _sampling(config, adapter.render(
        first_items[0], first_task, config.prompt)).items() if k != "stop"}
    results["usage"] = {"requests_this_run": requests_made, "cache_hits_this_run": cache_hits,
                        **{k: v for k, v in usage.items() if k not in ("requests",)}}
    attach_reference(results, benchmark=config.benchmark, task=str(results.get("task", "")),
                     model=config.model, temperature=results["sampling"].get("temperature"),
                     full_benchmark=config.limit is None and not config.offset)
    (out / "results.json").write_text(json.dumps(results, indent=2, ensure_ascii=False,
                                                 default=str) + "\n", encoding="utf-8")
    from execlens.bench._report import write_report

    report = write_report([out], out / "report.html")
    return EvalResult(out, results, report, requests_made, cache_hits,
                      time.perf_counter() - started, len(logged) - resumed, resumed)
