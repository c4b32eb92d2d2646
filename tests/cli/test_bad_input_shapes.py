"""Inputs that used to get through (issue 27): each is exit 2 and one ``error:`` line on
stderr naming the fix, never a traceback, a silent exit or a run of nothing.

``--mount-ro ""`` (which showed the working directory, ``.git`` included, to the sandboxed
program), ``--perturb ""``, an ``export`` source in Latin-1, a CodeI/O record whose
``ios`` is a number, a benchmark problem whose output is no literal, a directory given
as the export source, ``score --prompt``/``--endpoint`` out of range, and an ``eval``
interrupted with Ctrl-C (what was kept and how to resume).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from ..cli_helpers import assert_one_error_line, eval_command, interrupt_when, run_execlens
from ..standin_model import StandInModel


def test_run_mount_ro_empty_path_never_shows_the_working_directory(tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    program.write_text("import os\nprint(os.listdir('.'))\n")
    (tmp_path / ".git").mkdir()
    done = run_execlens("run", str(program), "--mount-ro", "", cwd=tmp_path)
    assert_one_error_line(done, "--mount-ro", "empty path", "--mount-ro .")
    assert ".git" not in done.stdout


def test_synth_config_mount_ro_empty_path(tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(
        "out: out\nsources:\n  - path: data.jsonl\nstages: [collect]\nmount_ro: ['']\n"
    )
    assert_one_error_line(run_execlens("synth", "run", str(config)), "mount_ro", "empty path")


@pytest.mark.parametrize("value", ["", "rename,,garbage", " , "])
def test_eval_perturb_empty_kind(value: str, tmp_path: Path) -> None:
    assert_one_error_line(
        run_execlens(
            "eval",
            "--benchmark",
            "cruxeval",
            "--task",
            "output",
            "--perturb",
            value,
            "--model",
            "m",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--out",
            str(tmp_path / "run"),
        ),
        "--perturb",
        "empty perturbation",
        "rename",
    )
    assert not (tmp_path / "run").exists()


def test_export_latin1_source(tmp_path: Path) -> None:
    source = tmp_path / "problems.jsonl"
    source.write_bytes(
        b'{"id": "a", "code": "def f(x):\\n    return x", "input": "1", "output": "\'caf\xe9\'"}\n'
    )
    assert_one_error_line(
        run_execlens("export", str(source), "--out", str(tmp_path / "o")), "not UTF-8", "0xe9"
    )


def test_export_codeio_ios_not_a_list(tmp_path: Path) -> None:
    source = tmp_path / "codeio.jsonl"
    source.write_text(json.dumps({"refcode": "def main_solution(x):\n    return x\n", "ios": 5}))
    assert_one_error_line(
        run_execlens("export", str(source), "--out", str(tmp_path / "o")),
        f"{source}:1",
        "'ios' must be a list",
    )
    assert not (tmp_path / "o").exists()


def test_export_reference_that_is_not_a_literal(tmp_path: Path) -> None:
    source = tmp_path / "problems.jsonl"
    rows = [
        {"id": "ok", "code": "def f(x):\n    return x\n", "input": "1", "output": "1"},
        {"id": "bad", "code": "def f(x):\n    return x\n", "input": "1", "output": "foo(bar)"},
    ]
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert_one_error_line(
        run_execlens("export", str(source), "--out", str(tmp_path / "o")),
        f"{source}:2",
        "'foo(bar)' is not a literal",
    )
    assert not (tmp_path / "o").exists()  # nothing exported that cannot be judged


def test_export_directory_as_source(tmp_path: Path) -> None:
    folder = tmp_path / "tasks"
    folder.mkdir()
    line = assert_one_error_line(
        run_execlens("export", str(folder), "--out", str(tmp_path / "o")), "is a directory"
    )
    assert "does not exist" not in line


@pytest.mark.parametrize(
    "option, value, needle",
    [("--prompt", "sideways", "has no prompt"), ("--endpoint", "fax", "--endpoint")],
)
def test_score_prompt_and_endpoint_out_of_range(
    data_dir: Path, tmp_path: Path, option: str, value: str, needle: str
) -> None:
    generations = data_dir / "cruxeval" / "codellama-7b_temp0.2_output_generations.json"
    assert_one_error_line(
        run_execlens(
            "score",
            str(generations),
            "--data",
            str(data_dir / "cruxeval"),
            "--out",
            str(tmp_path / "s"),
            option,
            value,
        ),
        needle,
    )


def test_an_interrupted_eval_says_what_it_kept_and_how_to_resume(
    data_dir: Path, tmp_path: Path
) -> None:
    """Ctrl-C in the middle of an eval: exit 2 and one ``error:`` line saying how many
    samples are kept and that the same command resumes (it used to exit 130 silently)."""
    slow = StandInModel(lambda body: "[ANSWER]\nassert f(1) == 1\n[/ANSWER]", delay=0.2)
    env = {
        **os.environ,
        "EXECLENS_CACHE_DIR": str(tmp_path / "cache"),
        "OPENAI_API_KEY": "stand-in",
    }
    with slow:
        command = eval_command(
            data_dir / "cruxeval",
            model="m",
            base_url=slow.base_url,
            limit=300,
            extra=("--concurrency", "2", "--out", str(tmp_path / "run")),
        )
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        # Ctrl-C once the first shard is done.
        interrupt_when(
            process, lambda: slow.requests >= 120, deadline_s=240, sig=signal.SIGINT, poll_s=0.05
        )
        stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 2, (process.returncode, stderr)
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: interrupted"), stderr
    assert "of 300 samples are kept in" in lines[0] and "rerun the same command" in lines[0]
    kept = int(lines[0].split("error: interrupted: ")[1].split(" of ")[0])
    assert kept >= 100  # the finished shard
