"""``execlens export`` / ``execlens train``: a user's mistake is exit code 2 and one
``error:`` line naming the fix, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "execlens", *args], capture_output=True, text=True, timeout=120
    )


def _assert_usage_error(result: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert fragment in lines[0]
    assert "Traceback" not in result.stderr


def test_export_missing_source(tmp_path: Path) -> None:
    _assert_usage_error(
        _run("export", str(tmp_path / "none.jsonl"), "--out", str(tmp_path), "--no-decontaminate"),
        "does not exist",
    )


def test_export_eval_data_that_holds_no_evaluation_files(tmp_path: Path) -> None:
    # Without --eval-data the shipped benchmarks are checked; a folder given must hold
    # some benchmark's files, or the option was a mistake.
    source = tmp_path / "p.jsonl"
    source.write_text(
        '{"id": "a", "code": "def f(x):\\n    return x", "input": "1", "output": "1"}\n'
    )
    (tmp_path / "empty").mkdir()
    _assert_usage_error(
        _run(
            "export",
            str(source),
            "--out",
            str(tmp_path / "o"),
            "--eval-data",
            str(tmp_path / "empty"),
        ),
        "holds none of",
    )
    _assert_usage_error(
        _run("export", str(source), "--out", str(tmp_path / "o"), "--eval-data", str(source)),
        "is not a directory",
    )


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("not json\n", "is not JSON"),
        ('{"a": 1}\n', "neither a benchmark problem"),
        ("[1, 2]\n", "not a JSON object"),
        ('{"a": 1}\n' + "[" * 100_000 + "\n", ":2 is not JSON (nested too deeply)"),
        ("", "holds no records"),
    ],
)
def test_export_bad_records(tmp_path: Path, content: str, fragment: str) -> None:
    source = tmp_path / "bad.jsonl"
    source.write_text(content)
    _assert_usage_error(
        _run("export", str(source), "--out", str(tmp_path / "o"), "--no-decontaminate"), fragment
    )


def test_export_bad_kind_and_format(tmp_path: Path) -> None:
    source = tmp_path / "p.jsonl"
    source.write_text(
        '{"id": "a", "code": "def f(x):\\n    return x", "input": "1", "output": "1"}\n'
    )
    _assert_usage_error(
        _run(
            "export",
            str(source),
            "--out",
            str(tmp_path / "o"),
            "--no-decontaminate",
            "--kind",
            "path",
        ),
        "--kind",
    )
    _assert_usage_error(
        _run(
            "export",
            str(source),
            "--out",
            str(tmp_path / "o"),
            "--no-decontaminate",
            "--format",
            "csv",
        ),
        "--format",
    )


def test_export_writes_and_counts_decontamination(tmp_path: Path, data_dir: Path) -> None:
    source = tmp_path / "p.jsonl"
    source.write_text(
        '{"id": "new", "code": "def g(y):\\n    return y * 3", "input": "2", "output": "6"}\n'
        + (data_dir / "cruxeval" / "cruxeval.jsonl").read_text().splitlines()[0]
        + "\n"
    )
    result = _run("export", str(source), "--out", str(tmp_path / "o"), "--eval-data", str(data_dir))
    assert result.returncode == 0, result.stderr
    assert "dropped 2 whose program matches" in result.stdout
    assert "wrote 2 (input 1, output 1)" in result.stdout


@pytest.mark.parametrize(
    ("text", "suffix", "fragment"),
    [
        ("data: [unclosed", ".yaml", "does not parse"),
        ("kind: grpo\ndata: x\noutput_dir: o\n", ".yaml", "execlens train grpo"),
        ("data: x\noutput_dir: o\nmax_length: 2\n", ".yaml", "max_length"),
        ("data: x\noutput_dir: o\nlearning_rat: 1\n", ".yaml", "learning_rat"),
        ("{}", ".ini", "use a .yaml"),
    ],
)
def test_train_bad_configs(tmp_path: Path, text: str, suffix: str, fragment: str) -> None:
    config = tmp_path / f"c{suffix}"
    config.write_text(text)
    _assert_usage_error(_run("train", "sft", str(config)), fragment)


def test_train_missing_config_and_data(tmp_path: Path) -> None:
    _assert_usage_error(_run("train", "grpo", str(tmp_path / "none.yaml")), "does not exist")
    config = tmp_path / "c.yaml"
    config.write_text("data: nowhere.parquet\noutput_dir: out\nmodel: embedded\n")
    _assert_usage_error(_run("train", "grpo", str(config)), "does not exist")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("kind: chains\ndata: x\n", "output_dir"),
        ("kind: sft\ndata: x\noutput_dir: o\n", "execlens train sft"),
        ("data: x\noutput_dir: o\nsamples: 0\n", "samples"),
        ("data: x\noutput_dir: o\napi_key: sk-123\n", "api_key"),
    ],
)
def test_train_chains_bad_configs(tmp_path: Path, text: str, fragment: str) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(text)
    _assert_usage_error(_run("train", "chains", str(config)), fragment)


def test_train_chains_bad_data_and_teacher(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("data: nowhere.parquet\noutput_dir: out\n")
    _assert_usage_error(_run("train", "chains", str(config)), "does not exist")
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"ground_truth": "{\\"kind\\": \\"output\\"}"}\n')
    config.write_text("data: rows.jsonl\noutput_dir: out\n")
    _assert_usage_error(_run("train", "chains", str(config)), "row 1's ground_truth")
    rows.write_text('{"prompt": "p"}\n')
    _assert_usage_error(_run("train", "chains", str(config)), "ground_truth")
    rows.write_text('{"ground_truth": "{}"}\n{"ground_tru')
    _assert_usage_error(_run("train", "chains", str(config)), "line 2 is not JSON")
    rows.write_bytes(b'{"ground_truth": "\xff"}\n')
    _assert_usage_error(_run("train", "chains", str(config)), "line 1 is not UTF-8 text")
    # A served teacher needs its URL (checked before any request is sent).
    good = (
        '{"ground_truth": "{\\"kind\\": \\"output\\", \\"program\\": \\"def f(x):\\\\n '
        '   return x\\\\n\\", \\"reference\\": \\"1\\", \\"call\\": \\"f(1)\\"}"}\n'
    )
    rows.write_text(good)
    config.write_text("data: rows.jsonl\noutput_dir: out\nmodel: some/teacher\n")
    env_free = {
        k: v for k, v in os.environ.items() if k not in ("EXECLENS_BASE_URL", "OPENAI_BASE_URL")
    }
    result = subprocess.run(
        [sys.executable, "-m", "execlens", "train", "chains", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env_free,
    )
    _assert_usage_error(result, "--base-url")
    config.write_text("data: rows.jsonl\noutput_dir: out\nmodel: some/teacher\nbase_url: ftp://x\n")
    _assert_usage_error(_run("train", "chains", str(config)), "http://")


def test_decontamination_reads_the_files_each_benchmark_folder_names(tmp_path: Path) -> None:
    """No list in the CLI: a benchmark registered with ``eval_files`` is checked too."""
    from typer.testing import CliRunner

    from execlens.bench import get_benchmark, register_benchmark, unregister_benchmark
    from execlens.cli import app

    class Mine(type(get_benchmark("cruxeval"))):  # type: ignore[misc]
        name = "mine-bench"
        default = False
        eval_files = ("mine/*.jsonl",)

    program = '{"id": "m", "code": "def g(y):\\n    return y * 3", "input": "2", "output": "6"}\n'
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "held_out.jsonl").write_text(program)
    source = tmp_path / "p.jsonl"
    source.write_text(program)
    register_benchmark(Mine())
    try:
        result = CliRunner().invoke(
            app, ["export", str(source), "--out", str(tmp_path / "o"), "--eval-data", str(tmp_path)]
        )
    finally:
        unregister_benchmark("mine-bench")
    # Every task of the one program matches the held-out copy: nothing is left to write.
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "nothing was written" in text, text
    assert "holds none of" not in text  # the folder's file was found and read


def test_export_eval_data_file_with_a_bad_line(tmp_path: Path) -> None:
    source = tmp_path / "p.jsonl"
    source.write_text(
        '{"id": "a", "code": "def f(x):\\n    return x", "input": "1", "output": "1"}\n'
    )
    (tmp_path / "eval" / "cruxeval").mkdir(parents=True)
    (tmp_path / "eval" / "cruxeval" / "cruxeval.jsonl").write_text('{"code": "x = 1"}\nnope\n')
    _assert_usage_error(
        _run(
            "export",
            str(source),
            "--out",
            str(tmp_path / "o"),
            "--eval-data",
            str(tmp_path / "eval"),
        ),
        "cruxeval.jsonl line 2: not JSON",
    )


def test_export_synthesized_row_whose_ground_truth_is_not_a_task(tmp_path: Path) -> None:
    source = tmp_path / "runtime_tasks.jsonl"
    source.write_text(json.dumps({"messages": [], "ground_truth": '{"kind": 3}'}) + "\n")
    _assert_usage_error(
        _run("export", str(source), "--out", str(tmp_path / "o")),
        "ground_truth is not a runtime task",
    )
