"""``execlens eval``: run a model on a benchmark task, score both modes, write a report."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from execlens.bench import (
    PERTURB_KINDS,
    BenchmarkError,
    EvalConfig,
    EvalError,
    EvalResult,
    ModelRequestsFailed,
    benchmark_names,
    check_config,
    get_benchmark,
    run_eval,
)
from execlens.cli._program_env import benchmark_requirements, warn_program_environment
from execlens.tasks.prompts import DEFAULT_THINK_TAGS


def fail(message: str, code: int = 2) -> NoReturn:
    """End the command: one ``error:`` line on stderr naming the fix, then exit ``code``."""
    text = " ".join(str(message).split())  # one line, whatever the message held
    print(f"error: {text}", file=sys.stderr)
    raise typer.Exit(code)


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


def eval_command(
    benchmark: Annotated[
        str, typer.Option(help="Benchmark: " + ", ".join(benchmark_names()) + ".")
    ],
    task: Annotated[
        str | None,
        typer.Option(
            help="A task of the benchmark (e.g. cruxeval: input, output); default: the "
            "benchmark's default task (its first)."
        ),
    ] = None,
    model: Annotated[str, typer.Option(help="Model name at the server, or 'local'.")] = "local",
    prompt: Annotated[str, typer.Option(help="direct | cot")] = "direct",
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")] = None,
    n: Annotated[int | None, typer.Option(help="Samples per prompt (default: official).")] = None,
    temperature: Annotated[float | None, typer.Option()] = None,
    top_p: Annotated[float | None, typer.Option()] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option(
            help="The token budget, never raised (default: the official budget, and a "
            "reply it cuts asked once more with the benchmark's thinking budget, 32k, "
            "within the server's context)."
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option()] = 0,
    endpoint: Annotated[
        str,
        typer.Option(help="chat (instruct models) | completion (base models, no chat template)"),
    ] = "chat",
    limit: Annotated[int | None, typer.Option(help="Only the first N samples.")] = None,
    offset: Annotated[int, typer.Option(help="Skip the first N samples.")] = 0,
    data: Annotated[
        str | None,
        typer.Option(
            help="Local data: a .jsonl/.json/.parquet file, a directory holding one, or a "
            "datasets save_to_disk directory (pin it to its fingerprint as "
            "DIR@FINGERPRINT); default: the benchmark's shipped copy or the hub."
        ),
    ] = None,
    data_revision: Annotated[
        str | None,
        typer.Option(
            help="Load the hub dataset at this revision (a commit hash or tag), recorded in "
            "the run's identity; without it a hub load is unpinned (a warning says so)."
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Run directory.")] = None,
    workers: Annotated[int | None, typer.Option(help="Scoring servers (>= 1).")] = None,
    concurrency: Annotated[int | None, typer.Option(help="Requests in flight.")] = None,
    retries: Annotated[
        int | None, typer.Option(help="Retries of a failed request (default 5, with backoff).")
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Bypass the request cache.")] = False,
    extra_body: Annotated[
        str | None,
        typer.Option(
            help="Server-specific request fields as a JSON object, e.g. "
            '\'{"top_k": 20, "chat_template_kwargs": {"enable_thinking": false}}\'.'
        ),
    ] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace a different run in --out.")] = False,
    reasoning: Annotated[
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
    ] = "auto",
    stop: Annotated[
        list[str] | None,
        typer.Option(
            help="A stop string instead of the benchmark's (repeat for several); applied to "
            "each final part after the fact (sent only under --reasoning off)."
        ),
    ] = None,
    no_stop: Annotated[bool, typer.Option("--no-stop", help="Send no stop string.")] = False,
    think_tags: Annotated[
        tuple[str, str] | None,
        typer.Option(help="The two tags around an inline thought (default: <think> </think>)."),
    ] = None,
    perturb: Annotated[
        list[str] | None,
        typer.Option(
            help="Rewrite every program first, keeping what it computes (repeat or comma "
            "list; applied in order): " + ", ".join(PERTURB_KINDS) + ".  Each perturbed "
            "program is re-executed; one that behaves differently is dropped and counted "
            "in results.json."
        ),
    ] = None,
    perturb_seed: Annotated[int, typer.Option(help="Seed of --perturb's choices.")] = 0,
) -> None:
    """Run inference and scoring; write samples.jsonl, results.json and report.html."""
    if task is None:
        try:
            chosen = get_benchmark(benchmark)
        except BenchmarkError as exc:
            fail(str(exc))
        task = chosen.default_task_name
    config = EvalConfig(
        benchmark=benchmark,
        task=task,
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
    target = out or Path("runs") / f"{benchmark}-{task}-{prompt}-{model.replace('/', '_')}"
    if out is None and config.perturb:  # beside the unperturbed run, not over it
        target = target.with_name(f"{target.name}-perturb-{'+'.join(config.perturb)}")
    try:
        # check_config first: a bad option is an error before any warning.
        warn_program_environment(benchmark_requirements([check_config(config).name]))
        result = run_eval(config, target, overwrite=overwrite, warn=warn)
    except ModelRequestsFailed as exc:
        fail(str(exc), 1)
    except EvalError as exc:  # EvalInterrupted too: what was kept, and how to resume
        fail(str(exc))
    except KeyboardInterrupt:  # before the run's first shard: nothing to keep
        fail(f"interrupted before any sample was recorded in {target}; rerun the same command")
    print_summary(result, Console())


def warn(message: str) -> None:
    """One ``warning:`` line on stderr; the command goes on."""
    typer.echo("warning: " + " ".join(str(message).split()), err=True)


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
