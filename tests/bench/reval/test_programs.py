"""REval's inputs as runtime programs (``execlens.tasks.programs_from_reval``, the one
reader ``tasks build`` uses) agree with the benchmark's dataset model."""

from __future__ import annotations

from pathlib import Path

import pytest

from execlens.bench.reval import load_reval_problems
from execlens.tasks import programs_from_reval


@pytest.fixture(scope="module")
def reval_dir(data_dir: Path) -> Path:
    path = data_dir / "reval"
    if not (path / "DREval_data.jsonl").is_file():
        pytest.skip(f"REval data not found in {path}")
    return path


def test_programs_follow_the_dataset_model(reval_dir: Path) -> None:
    # execlens.tasks reads REval itself (it may not import bench) with the same ClassEval
    # rule and skip rule: every run of the dataset model, and nothing else, in order.
    programs = programs_from_reval(reval_dir)
    assert len(programs) == 987
    problems = load_reval_problems(reval_dir)
    runs = [run for problem in problems for run in problem.runs]
    assert [(p.problem_id, p.input_index) for p in programs] == [
        (run.problem.task_id, run.index) for run in runs]
    for program, run in zip(programs, runs, strict=True):
        problem = run.problem
        assert (program.call, program.test_class, program.test_method) == (
            run.call, run.test_class, run.test_method)
        assert program.program == problem.code
        assert program.test == (problem.test if run.test_class else None)
        assert program.skip_reason == problem.skip_reason
        meta = dict(program.meta)
        assert meta["input"] == run.text
        assert meta.get("expected_output") == run.expected_output
        pair = next((q for q in problem.pairs if q.input_idx == run.index), None)
        assert meta.get("output_pred") == (pair.output_pred if pair else None)
        assert program.questions == (tuple((q.lineno, q.var) for q in pair.questions)
                                     if pair else None)
    classeval = [p for p in programs if p.test_class is not None]
    assert len(classeval) == 336
    asked = [p for p in programs if p.questions is not None]
    assert len(asked) == 690 and sum(len(p.questions or ()) for p in asked) == 3152
    assert {p.problem_id for p in programs if p.skip_reason} == {"DREval/117", "DREval/149"}
