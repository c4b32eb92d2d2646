"""``execlens score GENERATIONS --benchmark cruxeval --task input --out DIR``.

Scores an existing generations file in both modes (``official`` and ``strict``), writes
``DIR/samples.jsonl`` (incrementally; a rerun resumes) and ``DIR/results.json``, and
prints a summary.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from execlens.bench import ScoreRunResult, benchmark_names
from execlens.cli._eval import DataRevisionOption
from execlens.cli._failures import fail, run_failures, warn
from execlens.cli._program_env import benchmark_requirements, warn_program_environment

if TYPE_CHECKING:
    from execlens.bench import Benchmark, Generations

_EXPLAIN = {
    "unparseable:boolop": "`and`/`or` around the answer (e.g. `f([]) or True`)",
    "unparseable:operator": "an expression, not a literal (`'a' * 3`, a lambda)",
    "unparseable:call": "a function call inside the answer",
    "unparseable:name": "a variable name in the answer",
    "unparseable:syntax": "not valid Python on its own",
    "unparseable:multiple": "something around the call (`f(1) or True`)",
    "unparseable:not_a_call": "input answer that is not a call",
    "wrong:type_mismatch": "equal under Python ==, not of the same type (True vs 1)",
    "skipped:filter": "dropped by the official substring filter",
}


def _explain(reason: str) -> str:
    label = reason.split(" ", 1)[1] if " " in reason else reason
    return _EXPLAIN.get(label, "")


def _summary(results: dict[str, Any], console: Console) -> None:
    title = (
        f"{results['benchmark']} · task {results['task']} · {results['samples']} samples · "
        f"{results['generations']} generations"
    )
    table = Table(title=title)
    names = sorted({name for values in results["metrics"].values() for name in values})
    for column in ("mode", *names, "solved", "denominator"):
        table.add_column(column, justify="left" if column == "mode" else "right")
    for mode, data in results["modes"].items():
        shown = results["metrics"].get(mode, {})
        table.add_row(
            mode,
            *(f"{shown[k]:.2f}" if k in shown else "—" for k in names),
            str(data["solved"]),
            str(data["denominator"]),
        )
    reference = results.get("reference_numbers") or {}
    if reference:
        table.add_row(
            "[italic]reference[/italic]",
            *(f"{reference[k]:.2f}" if k in reference else "" for k in names),
            "",
            "",
        )
    console.print(table)
    if results.get("reference_source"):
        console.print(f"reference: {results['reference_source']}")
    for flag in results.get("flags") or ():
        console.print(f"[yellow]note:[/yellow] {flag}")
    diff = results["differences"]
    table = Table(title=f"generations judged differently: {diff['total']}")
    for column in ("direction", "reason", "count", "meaning"):
        table.add_column(column, justify="right" if column == "count" else "left")
    for key, direction in (
        ("official_pass_strict_fail", "official ✓ strict ✗"),
        ("official_fail_strict_pass", "official ✗ strict ✓"),
    ):
        for reason, count in diff[key].items():
            table.add_row(direction, reason.split(" ", 1)[1], str(count), _explain(reason))
    if diff["total"]:
        console.print(table)
    else:
        console.print(f"[green]{table.title}[/green]")
    if results.get("official_task", results["task"]) != results["task"]:
        console.print(
            f"[yellow]official mode scored the file as task "
            f"{results['official_task']!r} (inferred from its path, as the official "
            f"script does); strict mode used {results['task']!r}[/yellow]"
        )


def _timing(result: ScoreRunResult, console: Console) -> None:
    console.print(
        f"{result.scored_now} samples scored in {result.seconds:.1f} s "
        f"({result.resumed} resumed from an earlier run; {result.results['samples']} "
        f"in results.json)"
    )


# The options, one alias each, so the verb's signature reads as a list of names.
_Generations = Annotated[Path, typer.Argument(help="Generations file (official format).")]
_Out = Annotated[Path, typer.Option("--out", "-o", help="Output directory.")]
_Benchmark = Annotated[
    str | None,
    typer.Option(
        help="Benchmark: " + ", ".join(benchmark_names()) + " (default: the one that "
        "declares itself the default, CRUXEval)."
    ),
]
_Task = Annotated[
    str | None,
    typer.Option(
        help="A task of the benchmark (CRUXEval default: 'input' if the path says so, as "
        "the official script decides)."
    ),
]
_Data = Annotated[
    Path | None,
    typer.Option(
        help="Local benchmark data: a .jsonl/.json/.parquet file (cruxeval.jsonl, "
        "execution-v2 rows), a directory holding one, or a datasets save_to_disk "
        "directory (DIR@FINGERPRINT pins it); default: the shipped copy or the hub."
    ),
]
_Workers = Annotated[
    int | None,
    typer.Option(help="Execution servers (>= 1), so timeouts overlap (default: the benchmark's)."),
]
_Model = Annotated[
    str | None,
    typer.Option(
        help="Who generated the file (e.g. codellama-7b): recorded, and a published "
        "reference is shown beside the scores when one is known."
    ),
]
_Temperature = Annotated[
    float | None,
    typer.Option(help="The sampling temperature of the generations (with --model)."),
]
_Prompt = Annotated[
    str,
    typer.Option(
        help="The prompt style the texts answered (direct, cot, ...): its official "
        "stop strings and extraction read each text, as eval reads a reply."
    ),
]
_Endpoint = Annotated[
    str,
    typer.Option(
        help="How the texts were asked for: chat (eval's default) or completion (a "
        "base model's harness); it picks the official extraction's flavour."
    ),
]
_Overwrite = Annotated[bool, typer.Option(help="Discard an earlier run in --out.")]
_Json = Annotated[bool, typer.Option("--json", help="Print results.json on one line.")]


def score(
    generations: _Generations,
    out: _Out,
    benchmark: _Benchmark = None,
    task: _Task = None,
    data: _Data = None,
    data_revision: DataRevisionOption = None,
    workers: _Workers = None,
    model: _Model = None,
    temperature: _Temperature = None,
    prompt: _Prompt = "direct",
    endpoint: _Endpoint = "chat",
    overwrite: _Overwrite = False,
    as_json: _Json = False,
) -> None:
    """Score a generations file in official and strict modes (resumable)."""
    from execlens.bench import run_score

    console = Console(stderr=as_json)
    bench = _checked_benchmark(benchmark, task, prompt, endpoint)
    if workers is not None and workers < 1:
        fail(f"--workers must be at least 1, got {workers}")
    if temperature is not None and not 0.0 <= temperature <= 2.0:
        fail(f"--temperature must be between 0 and 2, got {temperature}")
    with run_failures():
        loaded = _load(bench, generations, data, data_revision, task)
        warn_program_environment(benchmark_requirements([bench.name]))
        with _progress(len(loaded.items), plain=not as_json) as report:
            result = run_score(
                out,
                bench,
                loaded,
                generations_file=str(generations),
                workers=workers,
                overwrite=overwrite,
                progress=report,
                model=model,
                temperature=temperature,
                data_revision=data_revision,
                prompt=prompt,
                endpoint=endpoint,
            )
    _summary(result.results, console)
    _timing(result, console)
    if as_json:
        typer.echo(json.dumps(result.results, ensure_ascii=False))


def _checked_benchmark(
    benchmark: str | None, task: str | None, prompt: str, endpoint: str
) -> Benchmark:
    """The benchmark named (or the default one), after checking ``--task``, ``--prompt``
    and ``--endpoint`` against it."""
    from execlens.bench import BenchmarkError, default_benchmark, get_benchmark

    try:
        bench = get_benchmark(benchmark) if benchmark else default_benchmark()
    except BenchmarkError as exc:
        fail(str(exc))
    if task is not None and task not in bench.tasks:
        fail(f"{bench.name} has no task {task!r}; use --task {' or '.join(sorted(bench.tasks))}")
    if endpoint not in ("chat", "completion"):
        fail(f"--endpoint must be chat or completion, not {endpoint!r}")
    styles = sorted({s for spec in bench.tasks.values() for s in spec.styles})
    if prompt not in styles:
        fail(f"{bench.name} has no prompt {prompt!r}; use --prompt {' or '.join(styles)}")
    return bench


def _load(
    bench: Benchmark, generations: Path, data: Path | None, revision: str | None, task: str | None
) -> Generations:
    """The generations file paired with the benchmark's data (at ``revision``); a warning
    when hub data was loaded at no pinned revision."""
    from execlens.bench import (
        check_data_options,
        check_revision_used,
        data_fingerprint,
        data_revision,
        unpinned_warning,
    )

    local = None if data is None else str(data)
    check_data_options(local, revision)
    with data_revision(revision) as hub_loads:
        loaded = bench.read_generations(generations, local, task)
    check_revision_used(hub_loads, bench.name)
    items = [item for item, _ in loaded.items]  # the identity's data_sha256
    unpinned = unpinned_warning(hub_loads, data_fingerprint(items, hub_loads))
    if unpinned is not None:
        warn(unpinned)
    return loaded


class _progress:
    """``run_score``'s ``progress(done, total)`` callback on a bar, or plain lines when piped."""

    def __init__(self, total: int, *, plain: bool) -> None:
        from execlens._progress import StageProgress

        self.display = StageProgress(True, plain=plain)
        self.total = total

    def __enter__(self) -> Any:
        self.display.__enter__()
        update = self.display.stage("scoring", self.total)
        return lambda done, total: update(done)

    def __exit__(self, *exc: object) -> None:
        self.display.__exit__(*exc)


def register(app: typer.Typer) -> None:
    """Add the ``score`` verb."""
    app.command("score")(score)
