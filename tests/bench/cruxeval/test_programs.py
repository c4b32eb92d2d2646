"""CRUXEval's samples as runtime programs (``programs_from_cruxeval``, what ``tasks
build`` and the runtime benchmark read through the benchmark's ``programs`` hook)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from execlens.bench import get_benchmark
from execlens.bench.cruxeval import load_cruxeval, programs_from_cruxeval
from execlens.tasks import SourceError


@pytest.fixture(scope="module")
def cruxeval_file(data_dir: Path) -> Path:
    path = data_dir / "cruxeval" / "cruxeval.jsonl"
    if not path.is_file():
        pytest.skip(f"CRUXEval data not found at {path}")
    return path


def test_every_sample_is_one_call_of_f(cruxeval_file: Path) -> None:
    programs = programs_from_cruxeval(cruxeval_file)
    samples = load_cruxeval(str(cruxeval_file)).records
    assert len(programs) == len(samples) == 800
    for program, sample in zip(programs, samples, strict=True):
        assert (program.source, program.problem_id, program.input_index) == (
            "cruxeval",
            sample.sample_id,
            0,
        )
        assert program.program == sample.code
        assert program.call == f"f({sample.input})"
        assert dict(program.meta) == {"expected_output": sample.output}
        assert program.questions is None and program.skip_reason is None


def test_the_benchmark_recognises_its_shape_by_fields(cruxeval_file: Path, tmp_path: Path) -> None:
    bench = get_benchmark("cruxeval")
    first = json.loads(cruxeval_file.read_text(encoding="utf-8").splitlines()[0])
    assert bench.recognises(cruxeval_file, first)  # type: ignore[attr-defined]
    # The name does not matter (a user's own samples); the fields do.
    assert bench.recognises(tmp_path / "mine.jsonl", first)  # type: ignore[attr-defined]
    assert not bench.recognises(cruxeval_file, {"refcode": "", "ios": []})  # type: ignore[attr-defined]
    assert not bench.recognises(tmp_path, {})  # type: ignore[attr-defined]
    assert bench.programs(cruxeval_file) == programs_from_cruxeval(cruxeval_file)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (
            {"id": "a", "code": 3, "input": "1"},
            "record 1: field 'code' must be the program's source text, got an integer",
        ),
        ({"id": "a", "code": "def f(x): return x"}, "record 1: missing field 'input'"),
        ({"id": True, "code": "def f(x): return x", "input": "1"}, "field 'id'"),
    ],
)
def test_a_malformed_sample_is_named(
    record: dict[str, object], message: str, tmp_path: Path
) -> None:
    path = tmp_path / "cruxeval.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(SourceError, match=message):
        programs_from_cruxeval(path)
