"""REval's inputs as runtime programs, built from the one dataset model."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlens.bench.reval import load_reval_problems, reval_programs
from execlens.tasks import programs_from_reval


@pytest.fixture(scope="module")
def reval_dir(data_dir: Path) -> Path:
    path = data_dir / "reval"
    if not (path / "DREval_data.jsonl").is_file():
        pytest.skip(f"REval data not found in {path}")
    return path


def test_programs_follow_the_dataset_model(reval_dir: Path) -> None:
    programs = reval_programs(reval_dir)
    assert len(programs) == 987
    problems = {p.task_id: p for p in load_reval_problems(reval_dir)}
    for program in programs:
        problem = problems[program.problem_id]
        run = problem.runs[program.input_index]
        assert (program.call, program.test_class, program.test_method) == (
            run.call, run.test_class, run.test_method)
        assert program.skip_reason == problem.skip_reason
    asked = [p for p in programs if p.questions is not None]
    assert len(asked) == 690 and sum(len(p.questions or ()) for p in asked) == 3152
    assert {p.problem_id for p in programs if p.skip_reason} == {"DREval/117", "DREval/149"}


def test_tasks_source_agrees_with_the_benchmark(reval_dir: Path) -> None:
    # execlens.tasks reads REval itself (it may not import bench); on DREval its ClassEval
    # picker and skip rule give exactly the benchmark's programs.
    assert programs_from_reval(reval_dir) == reval_programs(reval_dir)
