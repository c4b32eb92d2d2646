"""``execlens eval``: inference + scoring of one benchmark task, resumable, with a report.

A run is a pipeline of small steps over plain records, each one a method of the
benchmark's declaration (``Benchmark``, found in the registry):

1. **load** the benchmark's records (hub, at ``--data-revision`` when given, or
   ``--data``) and **plan** the items to ask; the data's fingerprint (the revision, else
   a digest of the records) is part of the run's identity;
2. **render** each item's official prompt (chat messages or a plain completion);
3. **generate** ``n`` samples per prompt through the OpenAI-compatible client (every
   request goes through the content-addressed cache, so a rerun costs nothing);
4. **read** each response once (``tasks.prompts.read_response``): a reasoning model's
   thought (a ``reasoning_content`` field, ``<think>`` tags, harmony channels) is set
   apart, and each answer is **extracted** from the final part only, exactly as the
   official post-processing does;
5. **score** in every mode into shards of the run directory (``execlens.store``);
6. **summarise** into ``samples.jsonl`` and ``results.json``, render ``report.html``.

Reasoning models: each reply is read on its own (``bench._reading``, shared with
``execlens score``), so a model that thinks on some prompts and not on others is read
right on each.  Under ``reasoning="auto"`` (the default) and ``"on"`` the benchmark's
stop strings are never sent -- a server applies them inside a thought and ends it at a
draft -- but cut each final part after the fact, so the official extraction sees exactly
the text it would have seen.  The token budget follows the one rule every path that asks
a model shares (``models.TokenBudget``): ``auto`` asks with the official budget and gives
a reply the limit cut a second ask with the benchmark's ``reasoning_max_tokens``, kept
within the server's context; ``on`` asks with the thinking budget at once; a
``max_tokens`` the user gave is never raised.  A completion cut off inside its thought
has no answer (``truncated_in_reasoning``); ``results.json`` says per run how answers
were read and flags a run where many were cut or a draft could have been scored.

A sample whose model request failed is not recorded: the run ends with an error naming
how many, and a rerun asks exactly those again.  Kill it anywhere and run it again:
finished shards are kept, generated text comes back from the cache, and the final files
are byte for byte the same.  ``--limit`` may grow or shrink between runs.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlens._progress import StageProgress
from execlens.tasks.prompts import DEFAULT_THINK_TAGS

from ._asking import (
    Asking,
    budget_of,
    generate,
    refusal_message,
    sampling_of,
    served_context,
    stops_for,
)
from ._base import Benchmark
from ._pin import (
    DataOptionError,
    check_data_options,
    check_revision_used,
    data_fingerprint,
    data_revision,
    unpinned_warning,
)
from ._protocol import BenchmarkError
from ._reading import responses_summary
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
    summarise,
    unit_executor,
    write_samples,
)

if TYPE_CHECKING:
    from execlens.engine import Engine

__all__ = [
    "EvalConfig",
    "EvalError",
    "EvalInterrupted",
    "EvalResult",
    "ModelRequestsFailed",
    "run_eval",
]


class EvalError(RunError):
    """An evaluation that cannot run as asked (bad benchmark/task/prompt, mixed runs)."""


class ModelRequestsFailed(EvalError):
    """Some model requests failed: their samples were not recorded (rerun to retry)."""


class EvalInterrupted(EvalError):
    """The run was interrupted (Ctrl-C): what finished is kept, a rerun resumes it."""


class _ServerGaveNothing(Exception):
    """Not one request of a shard was answered: stop asking (the failures are counted)."""


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
    reasoning: str = "auto"
    """``auto`` (set apart any thought each reply holds; a reply the official budget cut
    is asked again with room), ``on`` (a reasoning model: the thinking budget at once),
    ``off`` (the content is the answer, whole; stop strings sent)."""
    stop: tuple[str, ...] | None = None
    """Stop strings instead of the benchmark's (``()``: none); sent only under ``off``,
    otherwise applied to each final part afterwards."""
    think_tags: tuple[str, str] = DEFAULT_THINK_TAGS
    """The tags around an inline thought."""
    perturb: tuple[str, ...] = ()
    """Perturbation kinds applied in order to every program (``bench.PERTURB_KINDS``)."""
    perturb_seed: int = 0
    data_revision: str | None = None
    """The hub revision (commit, tag) the data is loaded at (``--data-revision``); None:
    the hub's current version, or ``data`` when given."""

    def identity(self) -> dict[str, Any]:
        """What must match for a rerun to resume this run (not --limit: it may grow;
        ``run_eval`` adds the data's fingerprint, which holds ``data_revision``)."""
        keys = (
            "benchmark",
            "task",
            "prompt",
            "model",
            "base_url",
            "n",
            "temperature",
            "top_p",
            "max_tokens",
            "seed",
            "endpoint",
            "data",
        )
        identity = {key: getattr(self, key) for key in keys}
        if self.reasoning != "off":
            # Replies are read one by one, asked without stop strings and asked again
            # with room when cut: a run begun the old way (stops sent, a thinker
            # detected once from reply 1) is another run, not one to resume.
            identity["asking"] = "per-reply"
        # Each absent at its default: runs from before the option still resume.
        if self.extra_body:
            identity["extra_body"] = self.extra_body
        if self.reasoning != "auto":
            identity["reasoning"] = self.reasoning
        if self.stop is not None:
            identity["stop"] = list(self.stop)
        if self.think_tags != DEFAULT_THINK_TAGS:
            identity["think_tags"] = list(self.think_tags)
        if self.perturb:
            identity["perturb"] = {"kinds": list(self.perturb), "seed": self.perturb_seed}
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
        raise EvalError(
            f"{bench.name} has no task {config.task!r} "
            f"(expected one of {', '.join(sorted(bench.tasks))})"
        )
    if config.prompt not in spec.styles:
        raise EvalError(
            f"{bench.name}/{config.task} has no prompt {config.prompt!r} "
            f"(expected one of {', '.join(spec.styles)})"
        )
    if config.endpoint not in ("chat", "completion"):
        raise EvalError("--endpoint must be 'chat' or 'completion'")
    for name, value, low in (
        ("--n", config.n, 1),
        ("--max-tokens", config.max_tokens, 1),
        ("--limit", config.limit, 0),
        ("--offset", config.offset, 0),
        ("--workers", config.workers, 1),
        ("--concurrency", config.max_concurrency, 1),
        ("--retries", config.retries, 0),
    ):
        if value is not None and value < low:
            raise EvalError(f"{name} must be at least {low}, got {value}")
    if config.temperature is not None and not 0.0 <= config.temperature <= 2.0:
        raise EvalError(f"--temperature must be between 0 and 2, got {config.temperature}")
    if config.top_p is not None and not 0.0 < config.top_p <= 1.0:
        raise EvalError(f"--top-p must be in (0, 1], got {config.top_p}")
    if config.reasoning not in ("auto", "on", "off"):
        raise EvalError(f"--reasoning must be auto, on or off, got {config.reasoning!r}")
    start, end = config.think_tags
    if not start.strip() or not end.strip() or start == end:
        raise EvalError(
            "--think-tags needs two different, non-empty tags, e.g. '<think>' '</think>'"
        )
    if config.stop is not None and any(not stop for stop in config.stop):
        raise EvalError("--stop strings must not be empty (use --no-stop to send none)")
    try:
        check_data_options(config.data, config.data_revision)
    except DataOptionError as exc:
        raise EvalError(str(exc)) from exc
    if config.perturb:
        from ._perturb import parse_perturb_kinds
        from ._perturb_kinds import PerturbUnsupported

        try:
            parse_perturb_kinds(config.perturb)
        except PerturbUnsupported as exc:
            raise EvalError(str(exc)) from exc
        if bench.perturb_note is not None:
            raise EvalError(f"{bench.name} does not support --perturb ({bench.perturb_note})")
    return bench


def _units(plan: Sequence[tuple[str, list[Any]]]) -> list[Unit]:
    composite = len(plan) > 1
    return [
        Unit(
            key=f"{task}:{item.sample_id}" if composite else str(item.sample_id),
            task=task,
            position=index,
            item=item,
            answers=[],
        )
        for task, items in plan
        for index, item in enumerate(items)
    ]


def _check_model(config: EvalConfig) -> None:
    """The model settings, and a served model's server, checked before anything is written."""
    from execlens.models import ModelConfigError, check_server, is_local, resolve_client_config

    try:
        if is_local(config.model):
            if config.base_url:
                raise ModelConfigError("--model local runs its own server: drop --base-url")
        else:  # a dead server, refused key or unknown model: named before the run
            check_server(resolve_client_config(config.model, config.base_url))
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


def _perturb(
    bench: Benchmark, plan: Any, config: EvalConfig, engine: Engine | None
) -> dict[str, Any]:
    """``--perturb``: the plan with perturbed programs (under ``"plan"``) and the counts.

    Verification runs on ``engine`` or a small one of its own, closed here (scoring
    starts its own later, sized for the benchmark).
    """
    from ._perturb import parse_perturb_kinds, perturb_plan
    from ._perturb_kinds import PerturbUnsupported

    kinds = parse_perturb_kinds(config.perturb)
    try:
        if engine is not None:
            plan, summary = perturb_plan(bench, plan, kinds, config.perturb_seed, engine)
        else:
            from execlens.judge import scoring_engine

            with scoring_engine(min(config.workers or 4, 4), preload=bench.preload) as own:
                plan, summary = perturb_plan(bench, plan, kinds, config.perturb_seed, own)
    except PerturbUnsupported as exc:
        raise EvalError(str(exc)) from exc
    return {**summary, "plan": plan}


def run_eval(
    config: EvalConfig,
    out: Path,
    *,
    overwrite: bool = False,
    show_progress: bool = True,
    engine: Engine | None = None,
    warn: Callable[[str], None] | None = None,
) -> EvalResult:
    """Run (or resume) one evaluation into ``out`` and return its results.

    ``warn(message)`` hears what the user should know before the run starts (hub data
    loaded at no pinned revision).  Raises :class:`EvalError` for a run that cannot
    start (nothing is written then) and :class:`ModelRequestsFailed` when some requests
    failed (everything else is kept).
    """
    from execlens.bench import DatasetError
    from execlens.models import (
        LocalModelError,
        LocalServerError,
        ModelConfigError,
        request_failure_hint,
    )
    from execlens.store import RunDir, StoreError

    bench = check_config(config)
    try:
        with data_revision(config.data_revision) as hub_loads:
            records = bench.load(config.data)
        check_revision_used(hub_loads, bench.name)
        plan = bench.plan(records, config.task, limit=config.limit, offset=config.offset)
    except (DatasetError, ValueError) as exc:
        raise EvalError(f"{exc}") from exc
    fingerprint = data_fingerprint(records, hub_loads)
    unpinned = unpinned_warning(hub_loads, fingerprint)
    if unpinned is not None and warn is not None:
        warn(unpinned)
    perturbation = _perturb(bench, plan, config, engine) if config.perturb else None
    if perturbation is not None:
        plan = perturbation.pop("plan")
    units = _units(plan)
    if not units:
        raise EvalError("no samples selected (check --data, --limit and --offset)")
    started = time.perf_counter()
    first = units[0]
    first_prompt = bench.render(first.item, first.task, config.prompt)
    n = int(sampling_of(config, first_prompt)["n"])
    own_engine: Engine | None = None
    contexts: dict[str, Any] = {}
    usage = {"requests": 0, "cache_hits": 0, "completion_tokens": 0}
    _check_model(config)
    try:
        with ExitStack() as stack:
            identity = {
                "verb": "eval",
                **config.identity(),
                "data_fingerprint": fingerprint,
                "program": program_identity(engine),
            }
            run = stack.enter_context(RunDir.open(out, identity, overwrite=overwrite))
            asked = scored = 0
            failed: Counter[str] = Counter()
            failed_messages: dict[str, str] = {}

            def work(task: str, group: list[Unit]) -> list[dict[str, Any]]:
                """One shard's pending units: asked, extracted, scored (failures left out)."""
                nonlocal own_engine, scored
                generated = generate(client, bench, group, config, asking)
                failed.update(generated.failed)
                for kind, message in generated.messages.items():
                    failed_messages.setdefault(kind, message)
                if not generated.ok:
                    if generated.failed:  # not one answer in a whole shard: stop asking
                        raise _ServerGaveNothing  # a dead server (the run reports it)
                    return []
                if engine is None and own_engine is None:
                    own_engine = scoring_engine_for(bench, config.workers)
                if task not in contexts:
                    contexts[task] = prepare_context(
                        bench,
                        [i for t, items in plan if t == task for i in items],
                        task,
                        engine or own_engine,
                    )
                for unit in generated.ok:  # what the report shows beside each answer
                    question = bench.explain(unit.item, task, contexts[task])
                    if question:
                        unit.extra["question"] = question

                def advance_scoring() -> None:
                    nonlocal scored
                    scored += 1
                    scoring(resumed + scored)

                return score_shard(
                    generated.ok,
                    bench.scorers(task, config.prompt, contexts[task]),
                    n=n,
                    engine=engine or own_engine,
                    progress=advance_scoring,
                )

            # The store's executor decides what is left (the one resume loop): a shard
            # lacking some of this run's units (--limit grew, a request failed) is redone
            # on those alone and rewritten with its old records.
            executor = unit_executor(run, units, work)
            todo = pending(executor)
            resumed = len(units) - len(todo)
            progress = stack.enter_context(StageProgress(show_progress and bool(todo)))
            # The model (for `local`, its server) is only started when something is left.
            client = stack.enter_context(_open_client(config)) if todo else None
            context = served_context(config, client)
            generating = progress.stage("generating", len(units), resumed)
            scoring = progress.stage("scoring", len(units), resumed)
            again_stage: list[Callable[[int], None]] = []

            def advance() -> None:
                nonlocal asked
                asked += 1
                generating(resumed + asked)

            def again(done: int, total: int) -> None:
                # Replies cut by the token limit, asked again with room to think.
                if not again_stage:
                    again_stage.append(progress.stage("asking again with room to think", total))
                    again_stage.append(lambda count: None)
                elif done == 0:  # another shard's replies: a fresh count
                    again_stage[0] = progress.stage("asking again with room to think", total)
                again_stage[0](done)

            asking = Asking(budget_of(config, first_prompt, context), advance, again, warn)
            try:
                executor.run()
            except _ServerGaveNothing:
                pass  # the failures are counted: reported below, the rest is kept
            except KeyboardInterrupt:
                kept = len(units) - len(pending(executor))
                raise EvalInterrupted(
                    f"interrupted: {kept} of {len(units)} samples are kept in {out} (the "
                    "model's replies so far are cached); rerun the same command to resume"
                ) from None
            if client is not None:
                usage = {
                    "requests": client.stats.requests,
                    "cache_hits": client.stats.cache_hits,
                    "completion_tokens": client.stats.completion_tokens,
                }
            if failed:
                kinds = ", ".join(f"{count} {kind}" for kind, count in failed.most_common())
                missing = len(todo) - scored
                hints = [request_failure_hint(kind) for kind in failed]
                if all(hints):  # the server refused the requests: a rerun would repeat it
                    budget = asking.budget
                    raise EvalError(
                        f"{missing} of {len(units)} samples were refused by "
                        f"{config.base_url or config.model} ({kinds}; asked with max_tokens "
                        f"{budget.base}"
                        + (f", then {budget.thinking}" if budget.grows else "")
                        + f"): {'; '.join(dict.fromkeys(h for h in hints if h))}"
                        + refusal_message(failed_messages)
                    )
                raise ModelRequestsFailed(
                    f"{missing} of {len(units)} samples got no answer from {config.model} "
                    f"({kinds}); they were not recorded -- rerun the same command to retry "
                    f"them ({len(units) - missing} kept in {out})"
                )
            final = run_records(executor)
            first_task = plan[0][0]
            sampling = {k: v for k, v in sampling_of(config, first_prompt).items() if k != "stop"}
            budget = budget_of(config, first_prompt, context)
            stops = stops_for(config, first_prompt)
            responses, warnings = responses_summary(
                final,
                reasoning=config.reasoning,
                stops_sent=stops if config.reasoning == "off" else (),
                stops_applied=stops,
                budget={
                    "first": budget.base,
                    "thinking": budget.thinking if budget.grows else budget.base,
                    "server_context": context,
                },
            )
            results: dict[str, Any] = {
                "benchmark": bench.name,
                "task": config.task,
                "prompt": config.prompt,
                "model": config.model,
                "endpoint": config.endpoint,
                "sampling": sampling,
                **summarise(
                    bench, final, first_task if len(plan) == 1 else config.task, bench.modes
                ),
            }
            results["responses"] = responses
            if perturbation is not None:
                results["perturbation"] = perturbation
            if warnings:
                results["flags"] = [*warnings, *results.get("flags", [])]
            skipped = bench.skipped
            if skipped:  # items the benchmark will not ask, with the reason (REval: gensim)
                results["skipped"] = dict(skipped)
            attach_reference(
                results,
                benchmark=bench.name,
                task=config.task,
                model=config.model,
                temperature=sampling.get("temperature"),
                full_benchmark=config.limit is None and not config.offset,
            )
            record_isolation(run, results, engine or own_engine)
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
    return EvalResult(
        out,
        results,
        report,
        usage["requests"],
        usage["cache_hits"],
        time.perf_counter() - started,
        scored,
        resumed,
        extra={"completion_tokens": usage["completion_tokens"]},
    )
