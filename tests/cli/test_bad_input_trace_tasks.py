"""Bad input to ``execlens trace`` and ``execlens tasks build``: one named test per case.

Each asserts exit code 2, exactly one ``error:`` line on stderr naming the fix, no
traceback, and (where a run exists) that nothing finished was lost.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from execlens.cli import app


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def _assert_usage_error(result: Result, *fragments: str) -> str:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def _cruxeval(tmp_path: Path, rows: list[Any], name: str = "cruxeval.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


_GOOD_CRUX = {"id": "sample_0", "code": "def f(x):\n    return x + 1", "input": "1", "output": "2"}


@pytest.fixture
def reval_row(data_dir: Path) -> dict[str, Any]:
    path = data_dir / "reval" / "DREval_data.jsonl"
    if not path.is_file():
        pytest.skip("REval data not found")
    return json.loads(path.open(encoding="utf-8").readline())


def _reval(tmp_path: Path, data_dir: Path, rows: list[Any]) -> Path:
    directory = tmp_path / "reval"
    directory.mkdir(exist_ok=True)
    (directory / "DREval_data.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8"
    )
    shutil.copy(data_dir / "reval" / "DREval_tasks.jsonl", directory / "DREval_tasks.jsonl")
    return directory


VERBS = {
    "trace": lambda source, out: ["trace", str(source), "-o", str(out), "--no-progress"],
    "tasks": lambda source, out: [
        "tasks",
        "build",
        str(source),
        "-o",
        str(out / "tasks.jsonl"),
        "--no-progress",
    ],
}


# --- malformed REval records (issue 9 item 7), for both verbs -----------------------


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_non_string_code(
    verb: str, tmp_path: Path, data_dir: Path, reval_row: dict[str, Any]
) -> None:
    source = _reval(tmp_path, data_dir, [reval_row | {"code": 42}])
    result = _invoke(*VERBS[verb](source, tmp_path / "out"))
    _assert_usage_error(result, "record 1", "'code'", "source text", "integer")


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_integer_inputs(
    verb: str, tmp_path: Path, data_dir: Path, reval_row: dict[str, Any]
) -> None:
    source = _reval(tmp_path, data_dir, [reval_row | {"inputs": 7}])
    _assert_usage_error(
        _invoke(*VERBS[verb](source, tmp_path / "out")),
        "record 1",
        "'inputs'",
        "list of input texts",
    )


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_inputs_given_as_a_string_is_not_traced_per_character(
    verb: str, tmp_path: Path, data_dir: Path, reval_row: dict[str, Any]
) -> None:
    source = _reval(tmp_path, data_dir, [reval_row | {"inputs": "(1, 2)"}])
    _assert_usage_error(
        _invoke(*VERBS[verb](source, tmp_path / "out")), "record 1", "'inputs'", "got a string"
    )
    assert not (tmp_path / "out" / "executions.jsonl").exists()


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_row_that_is_a_list(
    verb: str, tmp_path: Path, data_dir: Path, reval_row: dict[str, Any]
) -> None:
    source = _reval(tmp_path, data_dir, [reval_row, [1, 2, 3]])
    _assert_usage_error(
        _invoke(*VERBS[verb](source, tmp_path / "out")),
        "record 2",
        "expected a JSON object, got a list",
    )


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_bad_task_id(verb: str, tmp_path: Path, data_dir: Path, reval_row: dict[str, Any]) -> None:
    source = _reval(tmp_path, data_dir, [reval_row, reval_row | {"task_id": "DREval/x"}])
    line = _assert_usage_error(
        _invoke(*VERBS[verb](source, tmp_path / "out")), "record 2", "'task_id'", "'DREval/12'"
    )
    assert "invalid literal" not in line


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_null_entry_point_is_an_error_without_syntax_warning(
    verb: str, tmp_path: Path, data_dir: Path, reval_row: dict[str, Any]
) -> None:
    # A null entry point used to become the call "None(...)", whose compilation in the
    # sandbox printed "SyntaxWarning: 'NoneType' object is not callable".
    source = _reval(tmp_path, data_dir, [reval_row | {"entry_point": None}])
    result = _invoke(*VERBS[verb](source, tmp_path / "out"))
    _assert_usage_error(result, "record 1", "'entry_point'")
    assert "SyntaxWarning" not in result.output


def test_trace_duplicate_task_ids_are_an_error_naming_them(
    tmp_path: Path, data_dir: Path, reval_row: dict[str, Any]
) -> None:
    # The JetBrains rows are keyed by task id: two problems with one id cannot be exported.
    source = _reval(tmp_path, data_dir, [reval_row, reval_row])
    result = _invoke(
        "trace", str(source), "-o", str(tmp_path / "out"), "--workers", "1", "--no-progress"
    )
    _assert_usage_error(result, "duplicate ids", reval_row["task_id"])


def test_tasks_duplicate_ids_are_named_in_a_warning(tmp_path: Path) -> None:
    source = _cruxeval(tmp_path, [_GOOD_CRUX, _GOOD_CRUX])
    result = _invoke(
        "tasks",
        "build",
        str(source),
        "-o",
        str(tmp_path / "t.jsonl"),
        "--workers",
        "1",
        "--no-progress",
    )
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "duplicate ids sample_0" in warnings[0]


# --- malformed CRUXEval / CodeI/O records for tasks build ----------------------------


def test_tasks_cruxeval_non_string_code(tmp_path: Path) -> None:
    source = _cruxeval(tmp_path, [_GOOD_CRUX, _GOOD_CRUX | {"id": "s1", "code": ["x"]}])
    _assert_usage_error(
        _invoke("tasks", "build", str(source), "-o", str(tmp_path / "t.jsonl")),
        "record 2",
        "'code'",
        "got a list",
    )


def test_tasks_cruxeval_integer_input(tmp_path: Path) -> None:
    source = _cruxeval(tmp_path, [_GOOD_CRUX | {"input": 3}])
    _assert_usage_error(
        _invoke("tasks", "build", str(source), "-o", str(tmp_path / "t.jsonl")),
        "record 1",
        "'input'",
        "argument list as text",
    )


def test_tasks_codeio_ios_not_a_list(tmp_path: Path) -> None:
    source = _cruxeval(
        tmp_path,
        [{"refcode": "def main_solution(a):\n    return a", "ios": {"input": {"a": 1}}}],
        "codeio.jsonl",
    )
    _assert_usage_error(
        _invoke("tasks", "build", str(source), "-o", str(tmp_path / "t.jsonl")), "record 1", "'ios'"
    )


def test_tasks_non_utf8_source(tmp_path: Path) -> None:
    source = tmp_path / "cruxeval.jsonl"
    source.write_bytes(b'{"id": "s", "code": "\xff", "input": "1", "output": "1"}\n')
    _assert_usage_error(
        _invoke("tasks", "build", str(source), "-o", str(tmp_path / "t.jsonl")), "not UTF-8"
    )


def test_tasks_missing_source(tmp_path: Path) -> None:
    _assert_usage_error(
        _invoke("tasks", "build", str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "t.jsonl")),
        "no such file",
    )


def test_trace_missing_dataset(tmp_path: Path) -> None:
    _assert_usage_error(
        _invoke("trace", str(tmp_path / "nowhere"), "-o", str(tmp_path / "o")), "nowhere"
    )


# --- numeric options (issue 9 items 3, 11) ----------------------------------------------


@pytest.mark.parametrize("verb", sorted(VERBS))
@pytest.mark.parametrize("workers", ["0", "-1", "-3"])
def test_workers_below_one(verb: str, workers: str, tmp_path: Path) -> None:
    source = _cruxeval(tmp_path, [_GOOD_CRUX])
    result = _invoke(*VERBS[verb](source, tmp_path / "out"), "--workers", workers)
    _assert_usage_error(result, "--workers must be at least 1")


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_max_steps_negative(verb: str, tmp_path: Path) -> None:
    source = _cruxeval(tmp_path, [_GOOD_CRUX])
    _assert_usage_error(
        _invoke(*VERBS[verb](source, tmp_path / "out"), "--max-steps", "-5"),
        "--max-steps must be at least 1",
    )


@pytest.mark.parametrize("verb", sorted(VERBS))
@pytest.mark.parametrize("value", ["0", "-1", "inf", "nan"])
def test_wall_limit_not_finite_positive(verb: str, value: str, tmp_path: Path) -> None:
    source = _cruxeval(tmp_path, [_GOOD_CRUX])
    _assert_usage_error(
        _invoke(*VERBS[verb](source, tmp_path / "out"), "--wall-limit", value), "--wall-limit"
    )


def test_tasks_limit_below_one(tmp_path: Path) -> None:
    source = _cruxeval(tmp_path, [_GOOD_CRUX])
    _assert_usage_error(
        _invoke("tasks", "build", str(source), "-o", str(tmp_path / "t.jsonl"), "--limit", "-1"),
        "--limit must be at least 1",
    )


# --- output paths (issue 9 items 8, 11) -----------------------------------------------


def test_tasks_parquet_into_a_jsonl_name(tmp_path: Path) -> None:
    source = _cruxeval(tmp_path, [_GOOD_CRUX])
    _assert_usage_error(
        _invoke("tasks", "build", str(source), "-o", str(tmp_path / "t.jsonl"), "--parquet"),
        "--out",
        ".parquet",
    )
    assert not (tmp_path / "t.jsonl").exists()


def test_tasks_out_with_an_unknown_suffix(tmp_path: Path) -> None:
    source = _cruxeval(tmp_path, [_GOOD_CRUX])
    _assert_usage_error(
        _invoke("tasks", "build", str(source), "-o", str(tmp_path / "t.json")), ".jsonl or .parquet"
    )


def test_tasks_out_an_existing_directory_writes_inside_it(tmp_path: Path) -> None:
    from execlens.tasks import read_tasks

    source = _cruxeval(tmp_path, [_GOOD_CRUX])
    out = tmp_path / "built"
    out.mkdir()
    result = _invoke(
        "tasks", "build", str(source), "-o", str(out), "--workers", "1", "--no-progress"
    )
    assert result.exit_code == 0, result.stderr
    assert read_tasks(out / "tasks.jsonl")
    parquet = _invoke(
        "tasks",
        "build",
        str(source),
        "-o",
        str(tmp_path / "pq"),
        "--parquet",
        "--workers",
        "1",
        "--no-progress",
    )
    assert parquet.exit_code == 0, parquet.stderr
    assert (tmp_path / "pq" / "tasks.parquet").read_bytes()[:4] == b"PAR1"


def test_trace_out_naming_a_file(tmp_path: Path, data_dir: Path, reval_row: dict[str, Any]) -> None:
    source = _reval(tmp_path, data_dir, [reval_row])
    target = tmp_path / "results.json"
    target.write_text("{}")
    _assert_usage_error(_invoke("trace", str(source), "-o", str(target)), "is a file", "--out")
    assert target.read_text() == "{}"


def test_rerun_with_other_settings_is_refused_and_keeps_the_run(tmp_path: Path) -> None:
    source = _cruxeval(tmp_path, [_GOOD_CRUX])
    out = tmp_path / "t.jsonl"
    first = _invoke(
        "tasks", "build", str(source), "-o", str(out), "--workers", "1", "--no-progress"
    )
    assert first.exit_code == 0, first.stderr
    before = out.read_bytes()
    second = _invoke(
        "tasks",
        "build",
        str(source),
        "-o",
        str(out),
        "--mode",
        "reval",
        "--workers",
        "1",
        "--no-progress",
    )
    _assert_usage_error(second, "differs in: mode", "--overwrite")
    assert out.read_bytes() == before
    third = _invoke(
        "tasks",
        "build",
        str(source),
        "-o",
        str(out),
        "--mode",
        "reval",
        "--overwrite",
        "--workers",
        "1",
        "--no-progress",
    )
    assert third.exit_code == 0, third.stderr
    # reval is the old name of frame-blind: recorded under the name, and the same run.
    assert all(json.loads(line)["mode"] == "frame-blind" for line in out.open())
    fourth = _invoke(
        "tasks",
        "build",
        str(source),
        "-o",
        str(out),
        "--mode",
        "frame-blind",
        "--workers",
        "1",
        "--no-progress",
    )
    assert fourth.exit_code == 0, fourth.stderr
    assert "differs" not in fourth.stderr


def test_rerun_on_changed_reval_questions_is_a_different_run(
    tmp_path: Path, data_dir: Path, reval_row: dict[str, Any]
) -> None:
    """REval's questions live in DREval_tasks.jsonl, beside the data file: a rerun after
    they changed must not resume the old run (its identity is the loaded runs, not one
    file's bytes)."""
    source = _reval(tmp_path, data_dir, [reval_row])
    out = tmp_path / "t.jsonl"
    args = (
        "tasks",
        "build",
        str(source),
        "-o",
        str(out),
        "--selection",
        "reval",
        "--workers",
        "1",
        "--no-progress",
    )
    first = _invoke(*args)
    assert first.exit_code == 0, first.stderr
    before = out.read_bytes()
    questions = source / "DREval_tasks.jsonl"
    rows = [json.loads(line) for line in questions.open(encoding="utf-8")]
    for run in rows[0]["tasks"]:
        run["task"] = run["task"][:1]  # ask fewer questions of the same program
    questions.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    _assert_usage_error(_invoke(*args), "differs in: data", "--overwrite")
    assert out.read_bytes() == before


@pytest.mark.parametrize("named", ["directory", "data file"])
def test_trace_rerun_on_changed_reval_questions_is_a_different_run(
    named: str, tmp_path: Path, data_dir: Path, reval_row: dict[str, Any]
) -> None:
    """``execlens trace --rows pairs`` traces the inputs REval asks about, which
    DREval_tasks.jsonl names: a rerun after only that file changed must not resume the old
    run, whether the user named the directory or the data file beside it (the identity is
    the loaded problems, not the named files' bytes)."""
    source = _reval(tmp_path, data_dir, [reval_row])
    target = source if named == "directory" else source / "DREval_data.jsonl"
    out = tmp_path / "traced"
    args = ("trace", str(target), "-o", str(out), "--rows", "pairs", "--workers", "1")
    first = _invoke(*args, "--no-progress")
    assert first.exit_code == 0, first.stderr
    before = (out / "executions.jsonl").read_bytes()
    questions = source / "DREval_tasks.jsonl"
    rows = [json.loads(line) for line in questions.open(encoding="utf-8")]
    assert len(rows[0]["tasks"]) > 1, "the first REval problem asks about several inputs"
    rows[0]["tasks"] = rows[0]["tasks"][:1]  # ask about fewer inputs of the same program
    questions.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    _assert_usage_error(_invoke(*args, "--no-progress"), "differs in: data", "--overwrite")
    assert (out / "executions.jsonl").read_bytes() == before


# --- runs that fail are counted and named (issue 9 item 7) -------------------------------


def test_timeouts_are_named_in_the_summary(tmp_path: Path) -> None:
    hang = {
        "id": "sample_hang",
        "code": "def f(x):\n    while True:\n        pass",
        "input": "1",
        "output": "1",
    }
    source = _cruxeval(tmp_path, [_GOOD_CRUX, hang])
    result = _invoke(
        "tasks",
        "build",
        str(source),
        "-o",
        str(tmp_path / "t.jsonl"),
        "--wall-limit",
        "0.5",
        "--workers",
        "1",
        "--no-progress",
    )
    assert result.exit_code == 0, result.stderr
    assert "1 runs timeout (no tasks): sample_hang#0" in result.stderr
    tasks = [json.loads(line) for line in (tmp_path / "t.jsonl").open()]
    assert {t["problem_id"] for t in tasks} == {"sample_0"}


def test_recording_limit_is_named_in_the_summary(tmp_path: Path) -> None:
    loop = {
        "id": "sample_loop",
        "code": "def f(x):\n    for i in range(1000):\n        x += i\n    return x",
        "input": "1",
        "output": "1",
    }
    source = _cruxeval(tmp_path, [loop])
    result = _invoke(
        "tasks",
        "build",
        str(source),
        "-o",
        str(tmp_path / "t.jsonl"),
        "--max-steps",
        "50",
        "--workers",
        "1",
        "--no-progress",
    )
    assert result.exit_code == 0, result.stderr
    assert "hit the steps limit" in result.stderr and "sample_loop#0" in result.stderr
