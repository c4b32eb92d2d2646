"""``execlens export SOURCE --out DIR``: tasks -> TRL prompt dataset and verl Parquet rows.

SOURCE is a JSONL file of benchmark problems (CRUXEval / LiveCodeBench records with
``code``, ``input``, ``output``: each benchmark folder reads its own rows, its
``question_task`` hook), of runtime tasks (``execlens tasks build``), or of CodeI/O
records (``refcode``, ``ios``); its kind is read from the first record.  Programs
matching an evaluation program are dropped and counted unless ``--no-decontaminate``:
every benchmark whose data ships with execlens (CRUXEval, REval, CoverageEval, CodeMind)
always, and the files other benchmarks name under ``--eval-data`` (LiveCodeBench...).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from execlens.cli._run import usage_error

_PREDICTION = ("output", "input")


def _eval_patterns() -> list[str]:
    """Where evaluation programs sit under --eval-data: each benchmark folder says
    (its ``eval_files``), so a new benchmark is decontaminated against without edits here."""
    from execlens.bench import benchmark_names, get_benchmark

    return [pattern for name in benchmark_names() for pattern in get_benchmark(name).eval_files]


def _question_readers() -> list[Any]:
    """Every benchmark's ``question_task(record)``: the prediction task a row of its data
    asks, or ``None`` when the row is not its shape (a new benchmark needs no edit here)."""
    from execlens.bench import benchmark_names, get_benchmark

    return [get_benchmark(name).question_task for name in benchmark_names()]


def _question(readers: list[Any], record: dict[str, Any]) -> Any:
    """The task the first benchmark that reads ``record`` makes of it, or ``None``."""
    for read in readers:
        task = read(record)
        if task is not None:
            return task
    return None


def _records(path: Path) -> list[dict[str, Any]]:
    if path.is_dir():
        usage_error(
            f"{path} is a directory; give a JSONL file of tasks, problems or CodeI/O records"
        )
    if not path.is_file():
        usage_error(
            f"{path} does not exist; give a JSONL file of tasks, problems or CodeI/O records"
        )
    return _read_records(path)


def _read_records(path: Path) -> list[dict[str, Any]]:
    """Every record of ``path``; a bad line is the user's mistake, named with its fix."""
    from execlens.store import jsonl_lines

    records = []
    for line in jsonl_lines(path):
        error, number = line.error, line.number
        if error is None:
            records.append(line.value)
        elif error.problem == "undecodable":
            usage_error(
                f"{path} is not UTF-8 text (byte {error.byte:#04x} at offset "
                f"{error.offset}); save it as UTF-8 -- export reads UTF-8 JSONL"
            )
        elif error.problem == "not-object":
            usage_error(f"{path}:{number} is not a JSON object; export reads JSONL records")
        else:
            detail = error.detail if error.problem == "not-json" else "nested too deeply"
            usage_error(f"{path}:{number} is not JSON ({detail}); export reads JSONL")
    if not records:
        usage_error(f"{path} holds no records")
    return records


def _tasks(path: Path, kinds: list[str]) -> tuple[str, list[Any]]:
    from execlens.rewards import (
        TaskError,
        tasks_from_codeio,
        tasks_from_prediction,
        tasks_from_runtime,
    )

    if path.is_file() and path.read_bytes()[:4] == b"PAR1":
        records: list[dict[str, Any]] = [{"kind": None, "program": None, "reference": None}]
    else:
        records = _records(path)
    first = records[0]
    try:
        if {"ground_truth", "messages"} <= set(first):
            # A synthesis run's runtime_tasks.jsonl: each row's ground truth is the task.
            from execlens.tasks import RuntimeTask

            out = []
            for number, record in enumerate(records, 1):
                try:
                    task = RuntimeTask.from_dict(json.loads(record["ground_truth"]))
                except (TaskError, TypeError, ValueError, KeyError) as exc:
                    usage_error(f"{path}:{number}: ground_truth is not a runtime task ({exc})")
                try:
                    out.append(tasks_from_runtime(task))
                except TaskError:
                    continue  # a unittest driver: not one call to ask about
            return "synthesized runtime tasks", out
        if {"kind", "program", "reference"} <= set(first):
            from execlens.tasks import read_tasks

            out = []
            for task in read_tasks(path):
                try:
                    out.append(tasks_from_runtime(task))
                except TaskError:
                    continue  # a unittest driver: not one call to ask about
            return "runtime tasks", out
        if {"refcode", "ios"} <= set(first):
            out = []
            for number, record in enumerate(records):
                try:
                    out += tasks_from_codeio(record, kinds=kinds, record_id=str(number))
                except TaskError as exc:
                    usage_error(f"{path}:{number + 1}: {exc}")
            return "CodeI/O records", out
        readers = _question_readers()
        if _question(readers, first) is not None:
            out = []
            for number, record in enumerate(records, 1):
                question = _question(readers, record)
                if question is None:
                    usage_error(
                        f"{path}:{number}: not a benchmark problem like the first "
                        f"record (code, input, output): {sorted(record)[:8]}"
                    )
                try:
                    out += tasks_from_prediction(question, kinds=kinds)
                except TaskError as exc:
                    usage_error(f"{path}:{number}: {exc}")
            return "benchmark problems", out
    except (TaskError, KeyError, ValueError) as exc:
        usage_error(f"{path}: {exc}")
    usage_error(
        f"{path}: the first record is neither a benchmark problem (code, input, "
        f"output), a runtime task (kind, program, reference) nor a CodeI/O record "
        f"(refcode, ios)"
    )


def _decontaminator(eval_data: Path | None) -> Any:
    """Every benchmark's evaluation programs: those whose data ships with execlens
    (``eval_programs``) always, and with ``--eval-data`` the files the others name
    (``eval_files``)."""
    from execlens.bench import benchmark_names, get_benchmark
    from execlens.rewards import Decontaminator

    found = Decontaminator()
    for name in benchmark_names():
        shipped = get_benchmark(name).eval_programs()
        if shipped:
            found.add(shipped, f"{name} (shipped with execlens)")
    if eval_data is None:
        return found
    if not eval_data.is_dir():
        usage_error(
            f"--eval-data {eval_data} is not a directory; point it at the folder "
            f"holding the evaluation data (e.g. lcb*/), or leave it out"
        )
    patterns = _eval_patterns()
    before = len(found.sources)
    from execlens.store import JsonlError

    for pattern in patterns:
        for path in sorted(eval_data.glob(pattern)):
            if path.is_file():
                try:
                    found.add_jsonl(path)
                except JsonlError as exc:
                    usage_error(
                        f"--eval-data {exc}; fix or remove that file, or leave --eval-data out"
                    )
    if len(found.sources) == before:
        usage_error(
            f"--eval-data {eval_data} holds none of {patterns}; leave it out to "
            f"check against the shipped benchmarks only"
        )
    return found


def export(
    source: Annotated[
        Path, typer.Argument(help="JSONL of benchmark problems, runtime tasks or CodeI/O records")
    ],
    out: Annotated[Path, typer.Option("--out", help="output folder")],
    kind: Annotated[
        list[str] | None,
        typer.Option("--kind", help="prediction kinds for problems / CodeI/O: output, input"),
    ] = None,
    fmt: Annotated[
        list[str] | None, typer.Option("--format", help="trl and/or verl (default both)")
    ] = None,
    eval_data: Annotated[
        Path | None,
        typer.Option(
            "--eval-data",
            help="folder with more evaluation data (e.g. lcb*/); the "
            "benchmarks whose data ships are always checked",
            envvar="EXECLENS_EVAL_DATA",
        ),
    ] = None,
    decontaminate: Annotated[
        bool, typer.Option("--decontaminate/--no-decontaminate", help="drop evaluation programs")
    ] = True,
    split: Annotated[str, typer.Option("--split", help="verl extra_info.split")] = "train",
) -> None:
    """Export tasks as a TRL prompt dataset and verl Parquet rows (ground truth as JSON)."""
    kinds = list(kind or _PREDICTION)
    bad = [k for k in kinds if k not in _PREDICTION]
    if bad:
        usage_error(f"--kind must be output or input, not {bad[0]!r}")
    formats = list(fmt or ("trl", "verl"))
    bad = [f for f in formats if f not in ("trl", "verl")]
    if bad:
        usage_error(f"--format must be trl or verl, not {bad[0]!r}")
    if out.exists() and not out.is_dir():
        usage_error(f"--out {out} is a file; name a folder (it will be created)")
    checker = None
    if decontaminate:
        checker = _decontaminator(eval_data)
    what, tasks = _tasks(source, kinds)
    from execlens.rewards import export_tasks

    try:
        result = export_tasks(tasks, out, formats=formats, decontaminator=checker, split=split)
    except ValueError as exc:  # nothing left to write (decontamination, duplicates, none read)
        usage_error(f"{source}: {exc}; nothing was written to {out}")
    by_kind = ", ".join(f"{k} {n}" for k, n in sorted(result.by_kind.items())) or "none"
    typer.echo(f"read {len(tasks)} tasks from {what}; wrote {result.written} ({by_kind})")
    if checker is not None:
        typer.echo(
            f"decontamination: dropped {result.dropped} whose program matches an "
            f"evaluation program ({len(checker)} programs from "
            f"{len(checker.sources)} sources: {', '.join(checker.sources)})"
        )
    if result.duplicates:
        typer.echo(f"skipped {result.duplicates} duplicate tasks")
    for name, path in sorted(result.files.items()):
        typer.echo(f"{name}: {path}")


def register(app: typer.Typer) -> None:
    """Add the ``export`` verb."""
    app.command("export")(export)
