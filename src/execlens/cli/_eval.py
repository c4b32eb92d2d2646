"""``execlens eval``: run a model on a benchmark task, score both modes, write a report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from execlens.bench import (
    PERTURB_KINDS,
    BenchmarkError,
    EvalConfig,
    EvalResult,
    benchmark_names,
    check_config,
    get_benchmark,
    run_eval,
)
from execlens.cli._failures import fail, run_failures, warn
from execlens.cli._program_env import benchmark_requirements, warn_program_environment
from execlens.tasks.prompts import DEFAULT_THINK_TAGS


def print_summary(result: EvalResult, console: Console) -> None:
    """The terminal summary: metrics per mode, baselines, published reference, run cost."""
    results = result.results
    console.print(
        f"[bold]{results.get('benchmark')}/{results.get('task')}/"
        f"{results.get('prompt')}[/bold] · model {results.get('model')}"
    )
    table = Table()
    metrics = results.get("metrics", {})
    names = sorted({name for values in metrics.values() for name in values})
    table.add_column("mode")
    for name in names:
        table.add_column(name, justify="right")
    for mode, values in metrics.items():
        table.add_row(mode, *(f"{values[n]:.2f}" if n in values else "—" for n in names))
    for label, values in (results.get("baselines") or {}).items():
        if isinstance(values, dict):
            table.add_row(
                f"[dim]{label}[/dim]",
                *(f"[dim]{values[n]:.2f}[/dim]" if n in values else "" for n in names),
            )
    reference = results.get("reference_numbers") or {}
    if reference:
        table.add_row(
            "[italic]reference[/italic]",
            *(f"[italic]{reference[n]:.2f}[/italic]" if n in reference else "" for n in names),
        )
    console.print(table)
    if results.get("reference_source"):
        console.print(f"reference: {results['reference_source']}")
    for flag in results.get("flags") or ():
        console.print(f"[yellow]note:[/yellow] {flag}")
    differences = results.get("differences") or {}
    if differences.get("total"):
        console.print(f"verdicts that differ between modes: {differences['total']}")
    console.print(
        f"{result.samples_scored_now} samples scored now, {result.samples_resumed} "
        f"resumed ({results.get('samples')} in results.json); {result.requests} "
        f"model requests, {result.cache_hits} cache hits; {result.seconds:.1f} s"
    )
    console.print(f"log: {result.out_dir / 'samples.jsonl'}")
    if result.report is not None:
        console.print(f"report: [bold]{result.report.resolve()}[/bold]")


# The options, one alias each, so the verb's signature reads as a list of names.
_Benchmark = Annotated[str, typer.Option(help="Benchmark: " + ", ".join(benchmark_names()) + ".")]
_Task = Annotated[
    str | None,
    typer.Option(
        help="A task of the benchmark (e.g. cruxeval: input, output); default: the "
        "benchmark's default task (its first)."
    ),
]
_Model = Annotated[str, typer.Option(help="Model name at the server, or 'local'.")]
_Prompt = Annotated[str, typer.Option(help="direct | cot")]
_BaseUrl = Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")]
_N = Annotated[int | None, typer.Option(help="Samples per prompt (default: official).")]
_Float = Annotated[float | None, typer.Option()]
_MaxTokens = Annotated[
    int | None,
    typer.Option(
        help="The token budget, never raised (default: the official budget, and a "
        "reply it cuts asked once more with the benchmark's thinking budget, 32k, "
        "within the server's context)."
    ),
]
_Seed = Annotated[int | None, typer.Option()]
_Endpoint = Annotated[
    str,
    typer.Option(help="chat (instruct models) | completion (base models, no chat template)"),
]
_Limit = Annotated[int | None, typer.Option(help="Only the first N samples.")]
_Offset = Annotated[int, typer.Option(help="Skip the first N samples.")]
_Data = Annotated[
    str | None,
    typer.Option(
        help="Local data: a .jsonl/.json/.parquet file, a directory holding one, or a "
        "datasets save_to_disk directory (pin it to its fingerprint as "
        "DIR@FINGERPRINT); default: the benchmark's shipped copy or the hub."
    ),
]
# Shared with ``score``: a hub revision pins the data of both verbs the same way.
DataRevisionOption = Annotated[
    str | None,
    typer.Option(
        help="Load the hub dataset at this revision (a commit hash or tag), recorded in "
        "the run's identity; without it a hub load is unpinned (a warning says so)."
    ),
]
_Out = Annotated[Path | None, typer.Option("--out", "-o", help="Run directory.")]
_Workers = Annotated[int | None, typer.Option(help="Scoring servers (>= 1).")]
_Concurrency = Annotated[int | None, typer.Option(help="Requests in flight.")]
_Retries = Annotated[
    int | None, typer.Option(help="Retries of a failed request (default 5, with backoff).")
]
_NoCache = Annotated[bool, typer.Option("--no-cache", help="Bypass the request cache.")]
_ExtraBody = Annotated[
    str | None,
    typer.Option(
        help="Server-specific request fields as a JSON object, e.g. "
        '\'{"top_k": 20, "chat_template_kwargs": {"enable_thinking": false}}\'.'
    ),
]
_Overwrite = Annotated[bool, typer.Option(help="Replace a different run in --out.")]
_Reasoning = Annotated[
    str,
    typer.Option(
        help="auto: read each reply on its own, setting apart any thought it holds (a "
        "reasoning_content or reasoning field, <think> tags or only </think>, harmony "
        "channels; an empty think block is no thought); on: a thinking model, asked "
        "with the thinking budget at once; off: the whole content is the answer and "
        "the stop strings are sent.  Under auto and on no stop string is sent (it "
        "would end a thought at a draft): the official stops cut each final part "
        "afterwards, and answers are read from the final part only."
    ),
]
_Stop = Annotated[
    list[str] | None,
    typer.Option(
        help="A stop string instead of the benchmark's (repeat for several); applied to "
        "each final part after the fact (sent only under --reasoning off)."
    ),
]
_NoStop = Annotated[bool, typer.Option("--no-stop", help="Send no stop string.")]
_ThinkTags = Annotated[
    tuple[str, str] | None,
    typer.Option(help="The two tags around an inline thought (default: <think> </think>)."),
]
_Perturb = Annotated[
    list[str] | None,
    typer.Option(
        help="Rewrite every program first, keeping what it computes (repeat or comma "
        "list; applied in order): " + ", ".join(PERTURB_KINDS) + ".  Each perturbed "
        "program is re-executed; one that behaves differently is dropped and counted "
        "in results.json."
    ),
]
_PerturbSeed = Annotated[int, typer.Option(help="Seed of --perturb's choices.")]


def eval_command(
    benchmark: _Benchmark,
    task: _Task = None,
    model: _Model = "local",
    prompt: _Prompt = "direct",
    base_url: _BaseUrl = None,
    n: _N = None,
    temperature: _Float = None,
    top_p: _Float = None,
    max_tokens: _MaxTokens = None,
    seed: _Seed = 0,
    endpoint: _Endpoint = "chat",
    limit: _Limit = None,
    offset: _Offset = 0,
    data: _Data = None,
    data_revision: DataRevisionOption = None,
    out: _Out = None,
    workers: _Workers = None,
    concurrency: _Concurrency = None,
    retries: _Retries = None,
    no_cache: _NoCache = False,
    extra_body: _ExtraBody = None,
    overwrite: _Overwrite = False,
    reasoning: _Reasoning = "auto",
    stop: _Stop = None,
    no_stop: _NoStop = False,
    think_tags: _ThinkTags = None,
    perturb: _Perturb = None,
    perturb_seed: _PerturbSeed = 0,
) -> None:
    """Run inference and scoring; write samples.jsonl, results.json and report.html."""
    config = EvalConfig(
        benchmark=benchmark,
        task=task or _default_task(benchmark),
        prompt=prompt,
        model=model,
        base_url=base_url,
        n=n,
        temperature=temperature,
        top_p=top_p,
        max_tokens=max_tokens,
        seed=seed,
        endpoint=endpoint,
        limit=limit,
        offset=offset,
        data=data,
        workers=workers,
        no_cache=no_cache,
        max_concurrency=concurrency,
        retries=retries,
        extra_body=_json_object(extra_body, "--extra-body"),
        reasoning=reasoning,
        stop=_stop_option(stop, no_stop),
        think_tags=think_tags or DEFAULT_THINK_TAGS,
        perturb=tuple(perturb or ()),
        perturb_seed=perturb_seed,
        data_revision=data_revision,
    )
    target = out or _default_out(config)
    # Before the run's first shard there is nothing to keep (a later Ctrl-C is the run's).
    interrupted = f"interrupted before any sample was recorded in {target}; rerun the same command"
    with run_failures(interrupted):
        # check_config first: a bad option is an error before any warning.
        warn_program_environment(benchmark_requirements([check_config(config).name]))
        result = run_eval(config, target, overwrite=overwrite, warn=warn)
    print_summary(result, Console())


def _default_task(benchmark: str) -> str:
    """The benchmark's default task (its first), or a usage error for an unknown one."""
    try:
        chosen = get_benchmark(benchmark)
    except BenchmarkError as exc:
        fail(str(exc))
    return chosen.default_task_name


def _default_out(config: EvalConfig) -> Path:
    """``runs/<benchmark>-<task>-<prompt>-<model>``, beside it for a perturbed run."""
    model = config.model.replace("/", "_")
    target = Path("runs") / f"{config.benchmark}-{config.task}-{config.prompt}-{model}"
    if config.perturb:  # beside the unperturbed run, not over it
        target = target.with_name(f"{target.name}-perturb-{'+'.join(config.perturb)}")
    return target


def _stop_option(stop: list[str] | None, no_stop: bool) -> tuple[str, ...] | None:
    if no_stop and stop:
        fail("--stop and --no-stop contradict each other: give one of them")
    if no_stop:
        return ()
    return tuple(stop) if stop else None


def _json_object(text: str | None, option: str) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        fail(f"{option} is not valid JSON ({exc}); pass a JSON object such as '{{\"top_k\": 20}}'")
    if not isinstance(value, dict):
        fail(f"{option} must be a JSON object ({{...}}), got {type(value).__name__}")
    return value


def register(app: typer.Typer) -> None:
    """Add the ``eval`` verb."""
    app.command("eval")(eval_command)
