"""REval's inputs as runtime programs (``programs_from_reval``, what ``tasks build`` reads
through the benchmark's ``programs`` hook) agree with the benchmark's dataset model; the
problems ``execlens trace`` traces are checked the same way."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from execlens.bench import get_benchmark
from execlens.bench.reval import (
    RevalDataError,
    check_reval_data,
    load_reval_problems,
    programs_from_reval,
    reval_problems_to_trace,
)
from execlens.tasks import SourceError


@pytest.fixture(scope="module")
def reval_dir(data_dir: Path) -> Path:
    path = data_dir / "reval"
    if not (path / "DREval_data.jsonl").is_file():
        pytest.skip(f"REval data not found in {path}")
    return path


def test_programs_follow_the_dataset_model(reval_dir: Path) -> None:
    # The runtime-program reader keeps its own record checks (named per field) but the
    # same ClassEval rule and skip rule: every run of the dataset model, in order.
    programs = programs_from_reval(reval_dir)
    assert len(programs) == 987
    problems = load_reval_problems(reval_dir)
    runs = [run for problem in problems for run in problem.runs]
    assert [(p.problem_id, p.input_index) for p in programs] == [
        (run.problem.task_id, run.index) for run in runs
    ]
    for program, run in zip(programs, runs, strict=True):
        problem = run.problem
        assert (program.call, program.test_class, program.test_method) == (
            run.call,
            run.test_class,
            run.test_method,
        )
        assert program.program == problem.code
        assert program.test == (problem.test if run.test_class else None)
        assert program.skip_reason == problem.skip_reason
        meta = dict(program.meta)
        assert meta["input"] == run.text
        assert meta.get("expected_output") == run.expected_output
        pair = next((q for q in problem.pairs if q.input_idx == run.index), None)
        assert meta.get("output_pred") == (pair.output_pred if pair else None)
        assert program.questions == (
            tuple((q.lineno, q.var) for q in pair.questions) if pair else None
        )
    classeval = [p for p in programs if p.test_class is not None]
    assert len(classeval) == 336
    asked = [p for p in programs if p.questions is not None]
    assert len(asked) == 690 and sum(len(p.questions or ()) for p in asked) == 3152
    assert {p.problem_id for p in programs if p.skip_reason} == {"DREval/117", "DREval/149"}


def _copy(reval_dir: Path, tmp_path: Path, rows: list[str]) -> Path:
    """A REval directory holding ``rows`` as its data and the real tasks file."""
    directory = tmp_path / "reval"
    directory.mkdir()
    (directory / "DREval_data.jsonl").write_text("".join(rows), encoding="utf-8")
    shutil.copy(reval_dir / "DREval_tasks.jsonl", directory / "DREval_tasks.jsonl")
    return directory


def test_the_benchmark_reads_its_programs_through_the_hooks(reval_dir: Path) -> None:
    bench = get_benchmark("reval")
    data_file = reval_dir / "DREval_data.jsonl"
    first = json.loads(data_file.read_text(encoding="utf-8").splitlines()[0])
    assert bench.recognises(reval_dir, {})  # type: ignore[attr-defined]
    assert bench.recognises(data_file, first)  # type: ignore[attr-defined]
    assert not bench.recognises(reval_dir.parent, {})  # type: ignore[attr-defined]
    assert not bench.recognises(Path("x.jsonl"), {"code": "", "input": "", "output": ""})  # type: ignore[attr-defined]
    assert bench.programs(reval_dir) == programs_from_reval(reval_dir)  # type: ignore[attr-defined]


def test_trace_problems_refuse_duplicate_task_ids(reval_dir: Path, tmp_path: Path) -> None:
    first = (reval_dir / "DREval_data.jsonl").read_text(encoding="utf-8").splitlines()[0]
    directory = _copy(reval_dir, tmp_path, [first + "\n", first + "\n"])
    task_id = json.loads(first)["task_id"]
    assert check_reval_data(directory) == [
        f"{directory / 'DREval_data.jsonl'}: duplicate ids {task_id}; their tasks share ids "
        f"(deduplicate the data)"
    ]
    with pytest.raises(RevalDataError, match=f"duplicate ids {task_id}"):
        reval_problems_to_trace(directory)


def test_trace_problems_name_a_malformed_record(reval_dir: Path, tmp_path: Path) -> None:
    first = json.loads(
        (reval_dir / "DREval_data.jsonl").read_text(encoding="utf-8").splitlines()[0]
    )
    directory = _copy(reval_dir, tmp_path, [json.dumps(first | {"inputs": "(1, 2)"}) + "\n"])
    with pytest.raises(SourceError, match="record 1: field 'inputs' must be a list"):
        check_reval_data(directory)
    with pytest.raises(RevalDataError, match="record 1: field 'inputs' must be a list"):
        reval_problems_to_trace(directory)


def test_trace_problems_are_the_dataset_model(reval_dir: Path) -> None:
    assert reval_problems_to_trace(reval_dir) == load_reval_problems(reval_dir)
