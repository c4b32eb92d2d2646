"""``execlens score GENERATIONS --benchmark cruxeval --task input --out DIR``.

Scores an existing generations file in both modes (``official`` and ``strict``), writes
``DIR/samples.jsonl`` (incrementally; a rerun resumes) and ``DIR/results.json``, and
prints a summary.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

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


def _load(benchmark: str, generations: Path, data: Path | None
          ) -> tuple[list[Any], str | None]:
    """(problem, generations) pairs, and the task the official script would infer."""
    from execlens.bench._cruxeval_score import (
        load_cruxeval_generations,
        load_cruxeval_problems,
        match_generations,
    )
    from execlens.judge import cruxeval_mode_from_path

    if benchmark == "cruxeval":
        problems = load_cruxeval_problems(data)
        gens = load_cruxeval_generations(generations)
        return match_generations(problems, gens, str(generations)), cruxeval_mode_from_path(
            str(generations))
    from execlens.bench._lcb_score import load_lcb_generations, load_lcb_problems

    gens, embedded = load_lcb_generations(generations)
    problems = load_lcb_problems(data) if data is not None or embedded is None else embedded
    return match_generations(problems, gens, str(generations)), "output"


def _summary(results: dict[str, Any], console: Console) -> None:
    title = (f"{results['benchmark']} · task {results['task']} · {results['samples']} samples · "
             f"{results['generations']} generations")
    table = Table(title=title)
    for column in ("mode", "pass@1", "pass@5", "solved", "denominator"):
        table.add_column(column, justify="left" if column == "mode" else "right")
    for mode, data in results["modes"].items():
        table.add_row(mode, f"{data['pass@1']:.2f}", f"{data['pass@5']:.2f}",
                      str(data["solved"]), str(data["denominator"]))
    reference = results.get("reference_numbers") or {}
    if reference:
        table.add_row("[italic]reference[/italic]",
                      *(f"{reference[k]:.2f}" if k in reference else "" for k in
                        ("pass@1", "pass@5")), "", "")
    console.print(table)
    if results.get("reference_source"):
        console.print(f"reference: {results['reference_source']}")
    diff = results["differences"]
    table = Table(title=f"generations judged differently: {diff['total']}")
    for column in ("direction", "reason", "count", "meaning"):
        table.add_column(column, justify="right" if column == "count" else "left")
    for key, direction in (("official_pass_strict_fail", "official ✓ strict ✗"),
                           ("official_fail_strict_pass", "official ✗ strict ✓")):
        for reason, count in diff[key].items():
            table.add_row(direction, reason.split(" ", 1)[1], str(count), _explain(reason))
    if diff["total"]:
        console.print(table)
    else:
        console.print(f"[green]{table.title}[/green]")
    if results["official_task"] != results["task"]:
        console.print(f"[yellow]official mode scored the file as task "
                      f"{results['official_task']!r} (inferred from its path, as the official "
                      f"script does); strict mode used {results['task']!r}[/yellow]")
    timing = results.get("timing", {})
    console.print(f"{timing.get('samples_scored_now', 0)} samples scored in "
                  f"{timing.get('seconds', 0):.1f} s "
                  f"({timing.get('samples_resumed', 0)} resumed from an earlier run)")


def score(
    generations: Annotated[Path, typer.Argument(help="Generations file (official format).")],
    out: Annotated[Path, typer.Option("--out", help="Output directory.")],
    benchmark: Annotated[str, typer.Option(help="cruxeval | lcb-exec")] = "cruxeval",
    task: Annotated[str | None, typer.Option(
        help="input | output (default: CRUXEval's rule: 'input' if the path says so).")
    ] = None,
    data: Annotated[Path | None, typer.Option(
        help="Local benchmark data (cruxeval.jsonl / execution-v2 rows); default: Hugging Face.")
    ] = None,
    workers: Annotated[int | None, typer.Option(
        help="Execution servers, so timeouts overlap (default 16; 8 for lcb-exec, whose "
             "servers preload numpy and pandas).")] = None,
    model: Annotated[str | None, typer.Option(
        help="Who generated the file (e.g. codellama-7b): recorded, and a published "
             "reference is shown beside the scores when one is known.")] = None,
    temperature: Annotated[float | None, typer.Option(
        help="The sampling temperature of the generations (with --model).")] = None,
    overwrite: Annotated[bool, typer.Option(help="Discard an earlier run in --out.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print results.json on one line.")
                       ] = False,
) -> None:
    """Score a generations file in official and strict modes (resumable)."""
    from execlens.bench._cruxeval_score import GenerationsError
    from execlens.bench._cruxeval_score_run import BENCHMARKS, ScoreRunError, score_run
    from execlens.judge import ProblemError

    console = Console(stderr=as_json)
    if benchmark not in BENCHMARKS:
        raise typer.BadParameter(f"must be one of {', '.join(BENCHMARKS)}",
                                 param_hint="--benchmark")
    if task is not None and task not in ("input", "output"):
        raise typer.BadParameter("must be 'input' or 'output'", param_hint="--task")
    if benchmark == "lcb-exec" and task not in (None, "output"):
        raise typer.BadParameter("LiveCodeBench code execution has only the output task",
                                 param_hint="--task")
    try:
        items, official_task = _load(benchmark, generations, data)
        strict_task = task or official_task or "output"
        with _progress(console, len(items)) as report:
            result = score_run(out, items, benchmark=benchmark, task=strict_task,
                               official_task=official_task, generations_file=str(generations),
                               workers=workers, overwrite=overwrite, progress=report,
                               model=model, temperature=temperature)
    except (GenerationsError, ProblemError, ScoreRunError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    _summary(result.results, console)
    if as_json:
        typer.echo(json.dumps(result.results, ensure_ascii=False))


class _progress:
    """A rich progress bar fed by ``score_run``'s ``progress(done, total)`` callback."""

    def __init__(self, console: Console, total: int) -> None:
        from rich.progress import Progress

        self.bar = Progress(console=console, transient=True)
        self.task = self.bar.add_task("scoring", total=total)

    def __enter__(self) -> Any:
        self.bar.start()
        return lambda done, total: self.bar.update(self.task, completed=done, total=total)

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()


def register(app: typer.Typer) -> None:
    """Add the ``score`` verb."""
    app.command("score")(score)
