"""``load_programs``: which data a file is, asked of the benchmarks, CodeI/O the rest.

Real data where it exists ($EXECLENS_TEST_DATA); a third party's benchmark registered at
run time shows a new folder's data is read with no edit outside it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import load_programs, register_benchmark, unregister_benchmark
from execlens.bench.cruxeval import CruxEval, programs_from_cruxeval
from execlens.bench.reval import programs_from_reval
from execlens.tasks import (
    RuntimeProgram,
    SourceError,
    programs_from_codeio,
    require_field,
    source_rows,
)


def _data(data_dir: Path, relative: str) -> Path:
    path = data_dir / relative
    if not path.exists():
        pytest.skip(f"{path} not found")
    return path


def test_each_dataset_is_read_by_its_own_reader(data_dir: Path) -> None:
    reval = _data(data_dir, "reval")
    crux = _data(data_dir, "cruxeval/cruxeval.jsonl")
    codeio = _data(data_dir, "codeio/rawcode_1k_parsed.jsonl")
    assert load_programs(reval) == programs_from_reval(reval)
    assert load_programs(reval / "DREval_data.jsonl") == programs_from_reval(reval)
    assert load_programs(str(crux)) == programs_from_cruxeval(crux)
    assert load_programs(codeio) == programs_from_codeio(codeio)
    assert [len(load_programs(p)) for p in (reval, crux, codeio)] == [987, 800, 4514]


def test_a_users_records_are_read_by_their_fields(tmp_path: Path) -> None:
    mine = tmp_path / "mine.jsonl"
    mine.write_text(
        json.dumps({"id": "a", "code": "def f(x):\n    return x", "input": "1", "output": "1"})
        + "\n",
        encoding="utf-8",
    )
    [program] = load_programs(mine)
    assert (program.source, program.call) == ("cruxeval", "f(1)")
    humaneval = tmp_path / "humaneval.jsonl"
    humaneval.write_text(
        json.dumps(
            {
                "task_id": "Mine/0",
                "code": "def g(x):\n    return x",
                "entry_point": "g",
                "inputs": ["(1,)", "(2,)"],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    assert [(p.source, p.call) for p in load_programs(humaneval)] == [
        ("reval", "g(1,)"),
        ("reval", "g(2,)"),
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '{"x": 1}\n',
            r"not cruxeval, reval or CodeI/O data \(fields of the first record: "
            r"\['x'\]\)",
        ),
        ("", r"not cruxeval, reval or CodeI/O data \(fields of the first record: \[\]\)"),
        ('{"x": 1}\nnot json\n', "record 2: not JSON"),
        ('{"refcode": 3, "ios": []}\n', "record 1: field 'refcode' must be the program's source"),
    ],
)
def test_what_no_reader_takes_is_named(content: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SourceError, match=message):
        load_programs(path)


def test_a_missing_file_or_a_directory_of_nothing_is_named(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file"):
        load_programs(tmp_path / "missing.jsonl")
    with pytest.raises(SourceError, match="no cruxeval or reval data in this directory"):
        load_programs(tmp_path)


class _Snippets(CruxEval):
    """A third party's benchmark whose data are ``{"snippet", "args"}`` records."""

    name = "snippets-test"

    def recognises(self, path: Path, first: dict[str, Any]) -> bool:
        return {"snippet", "args"} <= set(first)

    def programs(self, data: Path) -> list[RuntimeProgram]:
        out = []
        for number, row in enumerate(source_rows(data), 1):
            require_field(data, number, row, "snippet", "source text", lambda v: isinstance(v, str))
            out.append(
                RuntimeProgram(
                    "snippets", f"s{number}", 0, row["snippet"], call=f"f({row['args']})"
                )
            )
        return out


def test_a_registered_benchmark_is_asked_too(tmp_path: Path) -> None:
    path = tmp_path / "snippets.jsonl"
    path.write_text(
        json.dumps({"snippet": "def f(x):\n    return x", "args": "2"}) + "\n", encoding="utf-8"
    )
    with pytest.raises(SourceError, match="not cruxeval, reval or CodeI/O data"):
        load_programs(path)
    register_benchmark(_Snippets())
    try:
        [program] = load_programs(path)
        assert (program.source, program.call) == ("snippets", "f(2)")
        unknown = tmp_path / "unknown.jsonl"
        unknown.write_text('{"x": 1}\n', encoding="utf-8")
        with pytest.raises(SourceError, match="not cruxeval, reval, snippets-test or CodeI/O"):
            load_programs(unknown)
    finally:
        unregister_benchmark("snippets-test")
