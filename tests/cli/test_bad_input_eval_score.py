"""Bad input to ``execlens eval``, ``score`` and ``report``: one named test per case.

Every case ends with exit code 2 (1 where the fault is the model server's, not the
user's), exactly one ``error: ...`` line on stderr naming the fix, no traceback, and
nothing finished lost, duplicated or left behind.  The issue-9 item each case belongs to
is in its name's comment.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from execlens.cli import app

GENERATIONS = "codellama-7b_temp0.2_output_generations.json"


def _crux(data_dir: Path) -> Path:
    path = data_dir / "cruxeval"
    if not (path / "cruxeval.jsonl").exists():
        pytest.skip(f"CRUXEval data not found under {path}")
    return path


def _run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def _refused(result: Result, *fragments: str, code: int = 2) -> None:
    """Exit ``code``, one ``error:`` line on stderr holding every fragment, no traceback."""
    assert result.exit_code == code, (result.exit_code, result.output)
    assert result.stderr.startswith("error: "), result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)


def _subset(data_dir: Path, tmp_path: Path, count: int = 4) -> tuple[Path, Path]:
    crux = _crux(data_dir)
    data = tmp_path / "cruxeval.jsonl"
    data.write_text("".join((crux / "cruxeval.jsonl").read_text().splitlines(True)[:count]))
    generations = json.loads((crux / GENERATIONS).read_text())
    gens = tmp_path / "output_generations.json"
    gens.write_text(json.dumps({f"sample_{i}": generations[f"sample_{i}"] for i in range(count)}))
    return data, gens


def _eval(data_dir: Path, out: Path, *extra: str, health_check: bool = False) -> Result:
    # Nothing listens on port 9.  The cases here are about the run directory and the
    # arguments, so the server's health check (which would name the dead server first;
    # tests/cli/test_bad_input_fail_loudly.py) is off unless a case asks for it.
    args = [
        "eval",
        "--benchmark",
        "cruxeval",
        "--task",
        "output",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--data",
        str(_crux(data_dir)),
        "-o",
        str(out),
        *extra,
    ]
    env = {} if health_check else {"EXECLENS_NO_HEALTH_CHECK": "1"}
    return CliRunner().invoke(app, args, env=env)


# ------------------------------------------------------------------- eval (item 8, 11)
def test_eval_limit_negative(data_dir: Path, tmp_path: Path) -> None:
    _refused(_eval(data_dir, tmp_path / "o", "--limit", "-1"), "--limit", "at least 0")
    assert not (tmp_path / "o").exists()


def test_eval_n_zero(data_dir: Path, tmp_path: Path) -> None:
    _refused(_eval(data_dir, tmp_path / "o", "--n", "0"), "--n must be at least 1")
    assert not (tmp_path / "o").exists()


def test_eval_temperature_negative(data_dir: Path, tmp_path: Path) -> None:
    _refused(
        _eval(data_dir, tmp_path / "o", "--temperature", "-1"),
        "--temperature must be between 0 and 2",
    )


def test_eval_max_tokens_zero(data_dir: Path, tmp_path: Path) -> None:
    _refused(_eval(data_dir, tmp_path / "o", "--max-tokens", "0"), "--max-tokens")


@pytest.mark.parametrize("workers", ["0", "-1", "-3"])
def test_eval_workers_below_one(workers: str, data_dir: Path, tmp_path: Path) -> None:
    _refused(_eval(data_dir, tmp_path / "o", "--workers", workers), "--workers must be at least 1")


def test_eval_missing_data(tmp_path: Path) -> None:
    result = _run(
        "eval",
        "--benchmark",
        "cruxeval",
        "--task",
        "output",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--data",
        str(tmp_path / "nowhere"),
        "-o",
        str(tmp_path / "o"),
    )
    _refused(result, "no such file or directory", "nowhere")
    assert not (tmp_path / "o").exists()


def test_eval_model_without_base_url_leaves_no_stray_files(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("EXECLENS_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    result = _run(
        "eval",
        "--benchmark",
        "cruxeval",
        "--task",
        "output",
        "--model",
        "foo",
        "--data",
        str(_crux(data_dir)),
        "-o",
        str(tmp_path / "o"),
    )
    _refused(result, "--base-url")
    assert not (tmp_path / "o").exists()


def test_eval_local_model_with_base_url(data_dir: Path, tmp_path: Path) -> None:
    result = _run(
        "eval",
        "--benchmark",
        "cruxeval",
        "--task",
        "output",
        "--model",
        "local",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--data",
        str(_crux(data_dir)),
        "-o",
        str(tmp_path / "o"),
    )
    _refused(result, "drop --base-url")
    assert not (tmp_path / "o").exists()


def test_eval_out_naming_a_file(data_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "results.txt"
    target.write_text("mine")
    _refused(_eval(data_dir, target, "--limit", "1"), "is a file")
    assert target.read_text() == "mine"


def test_eval_corrupt_manifest(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    out.mkdir()
    (out / "manifest.json").write_text('{"identity": {"benchmark": "cru')
    _refused(_eval(data_dir, out, "--limit", "1"), "manifest.json")
    assert (out / "manifest.json").read_text() == '{"identity": {"benchmark": "cru'


def test_eval_unknown_benchmark(tmp_path: Path) -> None:
    result = _run("eval", "--benchmark", "humaneval", "--task", "output", "-o", str(tmp_path / "o"))
    _refused(result, "unknown benchmark 'humaneval'", "cruxeval")


@pytest.mark.parametrize(
    ("plugins", "named"),
    [
        ("execlens_no_such_plugin", "ModuleNotFoundError"),  # a module that is not there
        ("json", ""),  # imports fine, declares nothing: not an error (question kinds' module)
    ],
)
def test_eval_plugin_module_that_fails_to_import(
    plugins: str, named: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """EXECLENS_PLUGINS naming a module that cannot be imported: refused, never skipped."""
    monkeypatch.setenv("EXECLENS_PLUGINS", f"{plugins},")
    result = _run("eval", "--benchmark", "cruxeval", "--task", "branch", "-o", str(tmp_path / "o"))
    if named:
        _refused(result, "EXECLENS_PLUGINS", repr(plugins), named, "remove it from")
    else:  # the run goes on to the next mistake: the task
        _refused(result, "no task 'branch'")


def test_score_plugin_module_whose_benchmark_is_not_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plug-in module whose BENCHMARK does not derive from BenchmarkBase."""
    (tmp_path / "execlens_bad_plugin.py").write_text("BENCHMARK = object()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("EXECLENS_PLUGINS", "execlens_bad_plugin")
    gens = tmp_path / "g.json"
    gens.write_text("{}")
    result = _run("score", str(gens), "--benchmark", "cruxeval", "-o", str(tmp_path / "o"))
    _refused(result, "'execlens_bad_plugin'", "derive it from execlens.bench.BenchmarkBase")


def test_eval_unknown_task(tmp_path: Path) -> None:
    result = _run("eval", "--benchmark", "cruxeval", "--task", "branch", "-o", str(tmp_path / "o"))
    _refused(result, "no task 'branch'", "input, output")


def test_eval_unknown_prompt(tmp_path: Path) -> None:
    result = _run(
        "eval",
        "--benchmark",
        "lcb-exec",
        "--task",
        "output",
        "--prompt",
        "phind",
        "-o",
        str(tmp_path / "o"),
    )
    _refused(result, "no prompt 'phind'", "direct, cot")


def test_eval_a_different_run_in_out(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    from execlens.store import RunDir

    with RunDir.open(out, {"verb": "eval", "benchmark": "cruxeval", "task": "input"}):
        pass
    _refused(_eval(data_dir, out, "--limit", "1"), "--overwrite")


def test_eval_server_down_is_not_the_users_fault(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # item 2: exit non-zero, nothing recorded as answered.  Issue 16: the health check
    # names the dead server before the run (a server failing mid-run is exit 1:
    # tests/cli/test_bad_input_fail_loudly.py).
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(tmp_path / "cache"))
    result = _eval(
        data_dir, tmp_path / "o", "--limit", "2", "--n", "1", "--retries", "0", health_check=True
    )
    _refused(result, "is the server running at http://127.0.0.1:9/v1")
    assert not (tmp_path / "o" / "samples.jsonl").exists()


# ------------------------------------------------------------------ score (item 8, 11)
def test_score_missing_generations_file(data_dir: Path, tmp_path: Path) -> None:
    result = _run(
        "score",
        str(tmp_path / "none.json"),
        "--data",
        str(_crux(data_dir)),
        "-o",
        str(tmp_path / "o"),
    )
    _refused(result, "no such generations file")
    assert not (tmp_path / "o").exists()


def test_score_corrupt_generations_file(data_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "gens.json"
    bad.write_text('{"sample_0": ["f(1)"')
    _refused(
        _run("score", str(bad), "--data", str(_crux(data_dir)), "-o", str(tmp_path / "o")),
        "not valid JSON",
    )


def test_score_generations_of_the_wrong_shape(data_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "gens.json"
    bad.write_text('{"sample_0": "f(1)"}')
    _refused(
        _run("score", str(bad), "--data", str(_crux(data_dir)), "-o", str(tmp_path / "o")),
        "must map to a list",
    )


def test_score_generations_for_too_few_samples(data_dir: Path, tmp_path: Path) -> None:
    data, _ = _subset(data_dir, tmp_path)
    partial = tmp_path / "partial.json"
    partial.write_text('{"sample_0": ["1"]}')
    _refused(
        _run("score", str(partial), "--data", str(data), "-o", str(tmp_path / "o")),
        "no generations for 3 of 4",
    )


def test_score_a_file_with_no_generation_at_all(data_dir: Path, tmp_path: Path) -> None:
    # item 1: empty lists are refused, never scored 100 % over a denominator of 0.
    data, _ = _subset(data_dir, tmp_path)
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({f"sample_{i}": [] for i in range(4)}))
    _refused(
        _run("score", str(empty), "--data", str(data), "-o", str(tmp_path / "o")),
        "holds no generation",
    )
    assert not (tmp_path / "o" / "results.json").exists()


@pytest.mark.parametrize("workers", ["0", "-1", "-3"])
def test_score_workers_below_one(workers: str, data_dir: Path, tmp_path: Path) -> None:
    data, gens = _subset(data_dir, tmp_path)
    _refused(
        _run(
            "score", str(gens), "--data", str(data), "-o", str(tmp_path / "o"), "--workers", workers
        ),
        "--workers must be at least 1",
    )


def test_score_unknown_task(data_dir: Path, tmp_path: Path) -> None:
    data, gens = _subset(data_dir, tmp_path)
    _refused(
        _run("score", str(gens), "--data", str(data), "-o", str(tmp_path / "o"), "--task", "both"),
        "no task 'both'",
        "input or output",
    )


def test_score_unknown_benchmark(data_dir: Path, tmp_path: Path) -> None:
    data, gens = _subset(data_dir, tmp_path)
    _refused(
        _run("score", str(gens), "--benchmark", "cruxeval2", "-o", str(tmp_path / "o")),
        "unknown benchmark 'cruxeval2'",
    )


def test_score_missing_data(tmp_path: Path, data_dir: Path) -> None:
    _, gens = _subset(data_dir, tmp_path)
    _refused(
        _run("score", str(gens), "--data", str(tmp_path / "nowhere"), "-o", str(tmp_path / "o")),
        "no such file or directory",
    )


def test_score_out_naming_a_file(data_dir: Path, tmp_path: Path) -> None:
    data, gens = _subset(data_dir, tmp_path)
    target = tmp_path / "out.txt"
    target.write_text("mine")
    _refused(_run("score", str(gens), "--data", str(data), "-o", str(target)), "is a file")
    assert target.read_text() == "mine"


def test_score_corrupt_manifest(data_dir: Path, tmp_path: Path) -> None:
    data, gens = _subset(data_dir, tmp_path)
    out = tmp_path / "o"
    out.mkdir()
    (out / "manifest.json").write_text("[1, 2")
    _refused(_run("score", str(gens), "--data", str(data), "-o", str(out)), "manifest.json")


def test_score_temperature_out_of_range(data_dir: Path, tmp_path: Path) -> None:
    data, gens = _subset(data_dir, tmp_path)
    _refused(
        _run(
            "score",
            str(gens),
            "--data",
            str(data),
            "-o",
            str(tmp_path / "o"),
            "--model",
            "m",
            "--temperature",
            "-1",
        ),
        "--temperature",
    )


def test_score_two_runs_into_one_out_do_not_double_the_samples(
    data_dir: Path, tmp_path: Path
) -> None:
    # item 6: a second run into a held directory is refused; nothing is written twice.
    from execlens.store import RunDir

    data, gens = _subset(data_dir, tmp_path)
    out = tmp_path / "o"
    first = _run("score", str(gens), "--data", str(data), "-o", str(out), "--workers", "1")
    assert first.exit_code == 0, first.output
    holder = RunDir.open(out, json.loads((out / "manifest.json").read_text())["identity"])
    try:
        _refused(_run("score", str(gens), "--data", str(data), "-o", str(out)), "another", "pid")
    finally:
        holder.close()
    again = _run("score", str(gens), "--data", str(data), "-o", str(out), "--workers", "1")
    assert again.exit_code == 0, again.output
    assert len((out / "samples.jsonl").read_text().splitlines()) == 4


def test_score_resume_keeps_every_valid_record_around_a_corrupt_line(
    data_dir: Path, tmp_path: Path
) -> None:
    # item 10: a corrupt line in the middle of a finished shard or of samples.jsonl never
    # drops the valid lines after it; the terminal's count agrees with results.json.
    data, gens = _subset(data_dir, tmp_path, count=6)
    out = tmp_path / "o"
    command = ["score", str(gens), "--data", str(data), "-o", str(out), "--workers", "1"]
    assert _run(*command).exit_code == 0
    expected = {name: (out / name).read_bytes() for name in ("samples.jsonl", "results.json")}
    for path in (out / "samples.jsonl", next((out / "shards").rglob("00000.jsonl"))):
        lines = path.read_text().splitlines(True)
        lines[2] = '{"id": "sample_2", "official": [tr\n'
        path.write_text("".join(lines))
        again = _run(*command)
        assert again.exit_code == 0, again.output
        assert "6 in results.json" in " ".join(again.stdout.split())
        for name, content in expected.items():
            assert (out / name).read_bytes() == content, (path, name)


def test_strict_never_rises_when_failed_samples_lose_their_generations(
    data_dir: Path, tmp_path: Path
) -> None:
    # item 1: the Code Llama file with the lists of the samples it failed emptied.
    crux = _crux(data_dir)
    first = _run(
        "score",
        str(crux / GENERATIONS),
        "--data",
        str(crux),
        "-o",
        str(tmp_path / "full"),
        "--json",
    )
    assert first.exit_code == 0, first.output
    full = json.loads(first.stdout.strip().splitlines()[-1])
    records = [
        json.loads(line) for line in (tmp_path / "full" / "samples.jsonl").read_text().splitlines()
    ]
    failed = {r["id"] for r in records if True not in r["official"]}
    generations = json.loads((crux / GENERATIONS).read_text())
    emptied = {key: ([] if key in failed else value) for key, value in generations.items()}
    path = tmp_path / "emptied_output_generations.json"
    path.write_text(json.dumps(emptied))
    second = _run(
        "score", str(path), "--data", str(crux), "-o", str(tmp_path / "emptied"), "--json"
    )
    assert second.exit_code == 0, second.output
    gamed = json.loads(second.stdout.strip().splitlines()[-1])
    assert round(full["metrics"]["strict"]["pass@1"], 2) == 34.21
    assert gamed["metrics"]["strict"]["pass@1"] == full["metrics"]["strict"]["pass@1"]
    assert gamed["metrics"]["strict"]["pass@5"] == full["metrics"]["strict"]["pass@5"]
    # Official mode keeps the official script's behaviour, and the result says so.
    assert gamed["metrics"]["official"]["pass@1"] > 90
    assert any("missing" in flag and "official" in flag for flag in gamed["flags"])


def test_one_generation_per_sample_reports_no_pass_at_5(data_dir: Path, tmp_path: Path) -> None:
    # item 1: never pass@k for k > n in strict mode; the official figure is flagged.
    data, gens = _subset(data_dir, tmp_path)
    one = tmp_path / "one_output.json"
    one.write_text(
        json.dumps({key: value[:1] for key, value in json.loads(gens.read_text()).items()})
    )
    result = _run("score", str(one), "--data", str(data), "-o", str(tmp_path / "o"), "--json")
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(results["metrics"]["strict"]) == {"pass@1"}
    assert "pass@5" not in results["modes"]["strict"]
    assert "pass@5" in results["modes"]["official"]
    assert any("pass@5 not reported" in flag for flag in results["flags"])


# ------------------------------------------------------------------------ report (item 8)
def test_report_corrupt_results(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.json").write_text('{"benchmark": "cruxeval", "metr')
    _refused(_run("report", str(run)), "results.json is not valid JSON")
    assert not (run / "report.html").exists()


def test_report_results_that_are_not_an_object(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.json").write_text("[1, 2]")
    _refused(_run("report", str(run)), "not a run's results object")


def test_report_not_a_run_directory(tmp_path: Path) -> None:
    _refused(_run("report", str(tmp_path)), "not a run directory")


def test_report_samples_with_a_corrupt_middle_line(tmp_path: Path) -> None:
    # A torn last line is what a killed run leaves (read_jsonl drops it); a bad line
    # in the middle is damage, named with its line rather than silently dropped.
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.json").write_text('{"benchmark": "cruxeval"}')
    (run / "samples.jsonl").write_text('{"id": "a"}\n{"id": \n{"id": "c"}\n')
    _refused(_run("report", str(run)), "samples.jsonl line 2: not JSON", "rerun the command")
    assert not (run / "report.html").exists()


# -------------------------------------------------------------------------- item 11
def test_version() -> None:
    from importlib.metadata import version

    result = _run("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"execlens {version('execlens')}"


# issue 18: --perturb
def test_eval_perturb_unknown_kind(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    _refused(
        _run(
            "eval",
            "--benchmark",
            "cruxeval",
            "--data",
            str(_crux(data_dir)),
            "--perturb",
            "rename,shuffle",
            "--limit",
            "1",
            "-o",
            str(out),
        ),
        "unknown perturbation 'shuffle'",
        "rename, garbage, prints, invert, loops, deadbranch, reformat, comments",
    )
    assert not out.exists()


def test_eval_perturb_on_a_benchmark_without_the_hook(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    _refused(
        _run(
            "eval", "--benchmark", "codemind", "--perturb", "rename", "--limit", "1", "-o", str(out)
        ),
        "codemind does not support --perturb",
    )
    assert not out.exists()


def test_eval_perturb_in_an_order_that_erases_a_kind(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    _refused(
        _run(
            "eval",
            "--benchmark",
            "reval",
            "--task",
            "coverage",
            "--perturb",
            "comments,rename",
            "--limit",
            "1",
            "-o",
            str(out),
        ),
        "rename writes the program out again",
        "rename,comments",
    )
    assert not out.exists()


# ----------------------------------------- issue 26: a CoCoNUT results file as generations
_COCONUT = Path(__file__).parents[1] / "bench" / "coconut" / "data" / "HumanEval_trace.csv"


def test_score_coconut_results_file_with_a_row_of_no_run(tmp_path: Path) -> None:
    results = tmp_path / "results.csv"
    results.write_text(
        "HumanEval_ID,Name,FunctionCall,Predicted,Actual,Matched,Distance\n"
        'HumanEval/900,below_zero,"[9, 9]","[1]","[1]",False,0.0\n'
    )
    out = tmp_path / "o"
    _refused(
        _run(
            "score", "--benchmark", "coconut", "--data", str(_COCONUT), "-o", str(out), str(results)
        ),
        "row 2: no run of 'HumanEval/900' called with ([9, 9])",
    )
    assert not out.exists()


def test_score_coconut_csv_that_is_no_results_file(tmp_path: Path) -> None:
    results = tmp_path / "results.csv"
    results.write_text("a,b\n1,2\n")
    out = tmp_path / "o"
    _refused(
        _run(
            "score", "--benchmark", "coconut", "--data", str(_COCONUT), "-o", str(out), str(results)
        ),
        "not a CoCoNUT results file",
    )
    assert not out.exists()


# ------------------------------------------------------- issue 18: --data, --data-revision
def test_eval_data_revision_beside_local_data(data_dir: Path, tmp_path: Path) -> None:
    _refused(
        _eval(data_dir, tmp_path / "o", "--data-revision", "0123abc"),
        "--data-revision pins a Hugging Face hub dataset",
        "drop --data to load the hub at 0123abc",
    )
    assert not (tmp_path / "o").exists()


def test_eval_data_revision_for_data_that_ships(tmp_path: Path) -> None:
    result = _run(
        "eval",
        "--benchmark",
        "cruxeval",
        "--task",
        "output",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--data-revision",
        "0123abc",
        "-o",
        str(tmp_path / "o"),
    )
    _refused(result, "cruxeval loaded no Hugging Face hub dataset", "drop --data-revision")
    assert not (tmp_path / "o").exists()


def test_eval_data_revision_offline_names_the_revision(tmp_path: Path) -> None:
    # A fresh process with the hub libraries' offline switches: no network is touched.
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HOME": str(tmp_path / "hf"),
        "EXECLENS_NO_HEALTH_CHECK": "1",
    }
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "execlens",
            "eval",
            "--benchmark",
            "lcb-exec",
            "--model",
            "m",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--data-revision",
            "0123abc",
            "-o",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith(
        "error: cannot load hf://livecodebench/execution-v2:test at revision 0123abc"
    ), run.stderr
    assert run.stderr.count("\n") == 1 and "--data PATH" in run.stderr
    assert not (tmp_path / "o").exists()


def _eval_lcb_data(data: str, out: Path) -> Result:
    return _run(
        "eval",
        "--benchmark",
        "lcb-exec",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--data",
        data,
        "-o",
        str(out),
    )


def test_eval_data_directory_that_is_neither(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("not data")
    result = _eval_lcb_data(str(folder), tmp_path / "o")
    _refused(result, f"no LiveCodeBench execution file in {folder}", "save_to_disk")
    assert not (tmp_path / "o").exists()


def test_eval_data_parquet_file_that_is_not_one(tmp_path: Path) -> None:
    bad = tmp_path / "rows.parquet"
    bad.write_text("not parquet")
    _refused(_eval_lcb_data(str(bad), tmp_path / "o"), str(bad), "not a readable Parquet file")
    assert not (tmp_path / "o").exists()


def test_eval_data_saved_dataset_at_another_fingerprint(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    folder = tmp_path / "saved"
    datasets.Dataset.from_list([{"id": "sample_0", "code": "def f(): return 1"}]).save_to_disk(
        str(folder)
    )
    result = _eval_lcb_data(f"{folder}@0123456789abcdef", tmp_path / "o")
    _refused(result, "the saved dataset's fingerprint is", "not the pinned 0123456789abcdef")
    assert not (tmp_path / "o").exists()


def test_eval_data_saved_dataset_dict_without_the_split(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    folder = tmp_path / "saved"
    rows = datasets.Dataset.from_list([{"id": "sample_0"}])
    datasets.DatasetDict({"train": rows}).save_to_disk(str(folder))
    _refused(_eval_lcb_data(str(folder), tmp_path / "o"), "no split 'test' (has train)")
    assert not (tmp_path / "o").exists()


def test_eval_dataset_lacking_a_field(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    folder = tmp_path / "saved"
    datasets.Dataset.from_list([{"id": "sample_0", "code": "def f(): return 1"}]).save_to_disk(
        str(folder)
    )
    result = _eval_lcb_data(str(folder), tmp_path / "o")
    _refused(
        result, "field 'question_id': missing from every record", "not LiveCodeBench execution data"
    )
    assert not (tmp_path / "o").exists()


def test_eval_data_changed_underneath_is_a_different_run(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(tmp_path / "cache"))
    data, _ = _subset(data_dir, tmp_path, count=2)
    out = tmp_path / "o"
    args = [
        "eval",
        "--benchmark",
        "cruxeval",
        "--task",
        "output",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--data",
        str(data),
        "--n",
        "1",
        "--retries",
        "0",
        "-o",
        str(out),
    ]
    # Nothing answers: the run starts (its manifest records the data) and ends exit 1.
    first = CliRunner().invoke(app, args, env={"EXECLENS_NO_HEALTH_CHECK": "1"})
    assert first.exit_code == 1, first.output
    identity = json.loads((out / "manifest.json").read_text())["identity"]
    assert set(identity["data_fingerprint"]) == {"sha256"}
    # The same path, other contents: not resumed as if it were the same data.
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    rows[0]["output"] = rows[0]["output"] + " + 1"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    second = CliRunner().invoke(app, args, env={"EXECLENS_NO_HEALTH_CHECK": "1"})
    _refused(second, "differs in: data_fingerprint", "--overwrite")


def test_score_data_revision_beside_local_data(data_dir: Path, tmp_path: Path) -> None:
    data, gens = _subset(data_dir, tmp_path)
    _refused(
        _run(
            "score",
            str(gens),
            "--data",
            str(data),
            "--data-revision",
            "0123abc",
            "-o",
            str(tmp_path / "o"),
        ),
        "drop --data to load the hub at 0123abc",
    )
    assert not (tmp_path / "o").exists()
