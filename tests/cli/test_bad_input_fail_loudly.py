"""Issue 16, "fail loudly": failures that used to end in a traceback, hang on retries or
succeed with nothing, one named test each.

Every case ends with exit code 2 (1 where the fault is the model server's mid-run, not
the user's), exactly one ``error: ...`` line on stderr naming the fix, no traceback, and
nothing finished lost.  The servers are real sockets on 127.0.0.1 (``standin_model``),
the disks real file systems: a tmpfs of a few kilobytes for "disk full", a tmpfs
remounted read-only for "read-only output" (root's bypass of mode bits makes a 0555
directory no test).  Where mounting is not allowed, those tests skip and say so.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from execlens.cli import app

from ..standin_model import StandInModel

ANSWER = "[ANSWER]\nassert f(x) == 'abc'\n[/ANSWER]"
PROGRAM = "def f(x):\n    return x + 1\n"


def _run(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def _refused(result: Result, *fragments: str, code: int = 2) -> str:
    """Exit ``code``, one ``error:`` line on stderr holding every fragment, no traceback."""
    assert result.exit_code == code, (result.exit_code, result.output)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def _crux_subset(data_dir: Path, tmp_path: Path, count: int = 4) -> Path:
    source = data_dir / "cruxeval" / "cruxeval.jsonl"
    if not source.is_file():
        pytest.skip(f"CRUXEval data not found at {source}")
    data = tmp_path / "cruxeval.jsonl"
    data.write_text("".join(source.read_text().splitlines(True)[:count]))
    return data


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXECLENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("EXECLENS_NO_HEALTH_CHECK", raising=False)


def _mount(where: Path, *options: str) -> None:
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", ",".join(options), "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(
            f"cannot mount a tmpfs here ({done.stderr.strip() or 'not root'}); "
            f"disk-full and read-only tests need CAP_SYS_ADMIN"
        )


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real file system of 64 KiB (tmpfs), unmounted afterwards; ``remount`` grows it."""
    where = tmp_path / "disk"
    where.mkdir()
    _mount(where, "size=64k")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _grow(disk: Path) -> None:
    subprocess.run(["mount", "-o", "remount,size=16m", str(disk)], check=True)


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    """A read-only file system (tmpfs remounted ro) holding an empty ``out/`` folder."""
    where = tmp_path / "ro"
    where.mkdir()
    _mount(where, "size=1m")
    try:
        (where / "out").mkdir()
        subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _eval(data: Path, url: str, out: Path, *extra: str, model: str = "m") -> Result:
    return _run(
        "eval",
        "--benchmark",
        "cruxeval",
        "--task",
        "output",
        "--model",
        model,
        "--base-url",
        url,
        "--data",
        str(data),
        "-o",
        str(out),
        "--n",
        "1",
        *extra,
    )


# ------------------------------------------------------------- model servers (eval)
def test_eval_dead_server_fails_fast_and_writes_nothing(data_dir: Path, tmp_path: Path) -> None:
    import time

    data = _crux_subset(data_dir, tmp_path)
    started = time.monotonic()
    result = _eval(data, "http://127.0.0.1:9/v1", tmp_path / "o")
    _refused(result, "is the server running at http://127.0.0.1:9/v1")
    assert time.monotonic() - started < 30  # not five backed-off retries per request
    assert not (tmp_path / "o").exists()


def test_eval_unknown_model_names_the_served_ones(data_dir: Path, tmp_path: Path) -> None:
    data = _crux_subset(data_dir, tmp_path)
    with StandInModel(lambda body: ANSWER, models=("qwen-7b", "llama-8b")) as server:
        line = _refused(
            _eval(data, server.base_url, tmp_path / "o", model="qwen-7"),
            "'qwen-7'",
            "qwen-7b, llama-8b",
        )
        assert server.requests == 0
    assert "--model" in line
    assert not (tmp_path / "o").exists()


def test_eval_base_url_without_v1(data_dir: Path, tmp_path: Path) -> None:
    data = _crux_subset(data_dir, tmp_path)
    with StandInModel(lambda body: ANSWER) as server:
        _refused(
            _eval(data, server.base_url.removesuffix("/v1"), tmp_path / "o"), "HTTP 404", "/v1"
        )


def test_eval_requests_refused_with_4xx_say_what_to_fix(data_dir: Path, tmp_path: Path) -> None:
    # Every request refused with 400: not retried, not "rerun", but what to change.
    data = _crux_subset(data_dir, tmp_path)
    with StandInModel(lambda body: None, fail_status=400) as server:
        _refused(
            _eval(data, server.base_url, tmp_path / "o"),
            "4 of 4 samples were refused",
            "bad_request",
            "--max-tokens",
        )
        # A 4xx is not retried: one request per sample (and the reasoning probe's one).
        assert server.requests <= 5
    assert not (tmp_path / "o" / "samples.jsonl").exists()


def test_eval_server_failing_mid_run_is_exit_1_and_keeps_nothing_unanswered(
    data_dir: Path, tmp_path: Path
) -> None:
    # The server answers its listing but fails every request (503): the server's fault.
    data = _crux_subset(data_dir, tmp_path, count=2)
    with StandInModel(lambda body: None) as server:
        _refused(
            _eval(data, server.base_url, tmp_path / "o", "--retries", "1"),
            "2 of 2 samples got no answer",
            "rerun",
            code=1,
        )
        # Bounded: two attempts per request (and per the reasoning probe's request).
        assert server.requests <= 6
    assert not (tmp_path / "o" / "samples.jsonl").exists()


def test_eval_sends_requests_concurrently(data_dir: Path, tmp_path: Path) -> None:
    import time

    data = _crux_subset(data_dir, tmp_path, count=8)
    with StandInModel(lambda body: ANSWER, delay=1.0) as server:
        started = time.monotonic()
        result = _eval(data, server.base_url, tmp_path / "o", "--workers", "1")
        asked = time.monotonic() - started
    assert result.exit_code == 0, result.output
    assert server.requests == 8
    assert asked < 8  # eight one-second requests, not one after another


# ------------------------------------------------------- model servers (chains, synth)
def _chains_config(tmp_path: Path, **fields: object) -> Path:
    rows = tmp_path / "tasks.jsonl"
    truth = {"kind": "output", "program": PROGRAM, "reference": "2", "call": "f(1)"}
    rows.write_text(json.dumps({"ground_truth": json.dumps(truth)}) + "\n")
    config = tmp_path / "chains.yaml"
    config.write_text(
        "".join(
            f"{key}: {value}\n"
            for key, value in {"data": "tasks.jsonl", "output_dir": "out", **fields}.items()
        )
    )
    return config


def test_train_chains_dead_teacher_fails_fast(tmp_path: Path) -> None:
    config = _chains_config(tmp_path, model="teacher", base_url="http://127.0.0.1:9/v1")
    _refused(_run("train", "chains", str(config)), "is the server running")
    assert not (tmp_path / "out" / "chains.jsonl").exists()


def test_train_chains_every_request_failed_is_not_a_success(tmp_path: Path) -> None:
    # 400 on every request: none is retried, so the test does not wait out backoffs.
    with StandInModel(lambda body: None, fail_status=400) as server:
        config = _chains_config(tmp_path, model="teacher", base_url=server.base_url, samples=2)
        result = _run("train", "chains", str(config))
    _refused(result, "all 2 requests", "teacher", code=1)


def test_train_chains_unknown_teacher_model(tmp_path: Path) -> None:
    with StandInModel(lambda body: ANSWER, models=("qwen-7b",)) as server:
        config = _chains_config(tmp_path, model="qwen", base_url=server.base_url)
        _refused(_run("train", "chains", str(config)), "'qwen'", "qwen-7b")


def _synth_config(tmp_path: Path, data_dir: Path, **changes: object) -> Path:
    import yaml

    parsed = data_dir / "codeio" / "rawcode_1k_parsed.jsonl"
    if not parsed.is_file():
        pytest.skip(f"CodeI/O data not found at {parsed}")
    config = {
        "out": str(tmp_path / "run"),
        "sources": [{"path": str(parsed), "limit": 2}],
        "stages": ["collect", "prompts", "predict"],
        "model": {"name": "m", "base_url": "http://127.0.0.1:9/v1"},
        **changes,
    }
    path = tmp_path / "synth.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.parametrize(
    ("base_url", "fragment"),
    [
        ("ftp://127.0.0.1/v1", "http://"),
        ("not a url", "http://"),
        ("http://127.0.0.1:9/v1", "is the server running"),
    ],
)
def test_synth_bad_base_url(tmp_path: Path, data_dir: Path, base_url: str, fragment: str) -> None:
    config = _synth_config(tmp_path, data_dir, model={"name": "m", "base_url": base_url})
    _refused(_run("synth", "run", str(config), "--quiet"), "model:", fragment)
    assert not (tmp_path / "run").exists()


def test_synth_ray_absent(tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _synth_config(tmp_path, data_dir, executor="ray", stages=["collect"])
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` meets without Ray
    _refused(
        _run("synth", "run", str(config), "--quiet"), "executor: ray needs Ray", "executor: local"
    )
    assert not (tmp_path / "run").exists()


def test_synth_ray_unreachable(tmp_path: Path, data_dir: Path) -> None:
    pytest.importorskip("ray", reason="Ray is not installed (the absent case is tested)")
    config = _synth_config(
        tmp_path, data_dir, executor="ray", stages=["collect"], ray={"address": "127.0.0.1:9"}
    )
    _refused(_run("synth", "run", str(config), "--quiet"), "127.0.0.1:9", "no Ray cluster answers")
    assert not (tmp_path / "run").exists()


# ------------------------------------------------------------------ empty inputs
def test_export_left_empty_by_decontamination(tmp_path: Path, data_dir: Path) -> None:
    crux = data_dir / "cruxeval" / "cruxeval.jsonl"
    if not crux.is_file():
        pytest.skip(f"CRUXEval data not found at {crux}")
    source = tmp_path / "p.jsonl"
    source.write_text(crux.read_text().splitlines()[0] + "\n")
    _refused(
        _run("export", str(source), "--out", str(tmp_path / "o"), "--eval-data", str(data_dir)),
        "nothing to export",
        "2 match an evaluation program",
    )
    assert not (tmp_path / "o").exists()


def test_eval_zero_row_source(tmp_path: Path) -> None:
    data = tmp_path / "cruxeval.jsonl"
    data.write_text("")
    _refused(_eval(data, "http://127.0.0.1:9/v1", tmp_path / "o"))
    assert not (tmp_path / "o").exists()


def test_synth_zero_row_source(tmp_path: Path) -> None:
    import yaml

    empty = tmp_path / "none.jsonl"
    empty.write_text("")
    config = tmp_path / "synth.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "out": str(tmp_path / "run"),
                "sources": [{"path": str(empty)}],
                "stages": ["collect", "assemble"],
            }
        )
    )
    _refused(_run("synth", "run", str(config), "--quiet"), "no records")


def test_synth_everything_rejected(tmp_path: Path) -> None:
    import yaml

    source = tmp_path / "bad.jsonl"
    # A function whose every call raises: collect rejects it, nothing reaches assemble.
    source.write_text(
        json.dumps(
            {
                "refcode": "def main_solution(x):\n    raise ValueError(x)\n",
                "ios": [{"input": {"x": 1}, "output": 1}, {"input": {"x": 2}, "output": 2}],
            }
        )
        + "\n"
    )
    config = tmp_path / "synth.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "out": str(tmp_path / "run"),
                "sources": [{"path": str(source)}],
                "stages": ["collect", "assemble"],
            }
        )
    )
    _refused(_run("synth", "run", str(config), "--quiet"), "rejected", "synth status")


def test_train_grpo_on_zero_rows(tmp_path: Path) -> None:
    import pyarrow
    import pyarrow.parquet

    table = pyarrow.table(
        {
            "prompt": pyarrow.array([], pyarrow.string()),
            "ground_truth": pyarrow.array([], pyarrow.string()),
        }
    )
    pyarrow.parquet.write_table(table, tmp_path / "trl.parquet")
    config = tmp_path / "g.yaml"
    config.write_text("data: trl.parquet\noutput_dir: out\n")
    _refused(_run("train", "grpo", str(config)), "holds no rows")
    assert not (tmp_path / "out").exists()


def test_train_sft_on_an_empty_file(tmp_path: Path) -> None:
    (tmp_path / "chains.jsonl").write_text("")
    config = tmp_path / "s.yaml"
    config.write_text("data: chains.jsonl\noutput_dir: out\n")
    _refused(_run("train", "sft", str(config)), "is empty")
    assert not (tmp_path / "out").exists()


# --------------------------------------------------- disk full, read-only, --out a file
def test_eval_disk_full_then_rerun_loses_nothing(
    data_dir: Path, tmp_path: Path, small_disk: Path
) -> None:
    data = _crux_subset(data_dir, tmp_path, count=4)
    out = small_disk / "o"
    # Replies of ~20 KB (one "word": no token limit cuts it): the run's records outgrow
    # the 64 KiB disk (its report alone no longer does: its charts are a few KB of SVG).
    big = ANSWER + "\n" + "x" * 20_000
    with StandInModel(lambda body: big) as server:
        line = _refused(_eval(data, server.base_url, out), "no space left", "rerun")
        assert str(small_disk) in line
        asked = server.requests
        _grow(small_disk)
        result = _eval(data, server.base_url, out)
        assert result.exit_code == 0, result.output
        assert server.requests == asked  # every answer came back from the cache
    assert len((out / "samples.jsonl").read_text().splitlines()) == 4
    assert not list(out.rglob(".*.tmp"))


def test_export_disk_full(tmp_path: Path, small_disk: Path) -> None:
    source = tmp_path / "p.jsonl"
    source.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"t{i}",
                    "code": PROGRAM + "#" + "x" * 4000,
                    "input": str(i),
                    "output": str(i + 1),
                }
            )
            + "\n"
            for i in range(40)
        )
    )
    _refused(
        _run("export", str(source), "--out", str(small_disk / "o"), "--no-decontaminate"),
        "no space left",
    )
    assert not list(small_disk.rglob(".*.tmp"))


def test_synth_disk_full(tmp_path: Path, data_dir: Path, small_disk: Path) -> None:
    config = _synth_config(
        tmp_path, data_dir, out=str(small_disk / "run"), stages=["collect"], model=None
    )
    config_text = config.read_text().replace("model: null\n", "")
    config.write_text(config_text.replace("limit: 2", "limit: 40"))
    _refused(_run("synth", "run", str(config), "--quiet"), "no space left")


def test_export_read_only_output(tmp_path: Path, read_only: Path) -> None:
    source = tmp_path / "p.jsonl"
    source.write_text(json.dumps({"id": "a", "code": PROGRAM, "input": "1", "output": "2"}) + "\n")
    _refused(
        _run("export", str(source), "--out", str(read_only / "out"), "--no-decontaminate"),
        "read-only",
    )


def test_report_read_only_output(tmp_path: Path, read_only: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.json").write_text(
        json.dumps(
            {
                "benchmark": "cruxeval",
                "task": "output",
                "prompt": "direct",
                "model": "m",
                "metrics": {"official": {"pass@1": 50.0}, "strict": {"pass@1": 50.0}},
                "samples": 0,
            }
        )
    )
    _refused(_run("report", str(run), "-o", str(read_only / "out" / "r.html")), "read-only")


def test_train_read_only_output(tmp_path: Path, read_only: Path) -> None:
    rows = tmp_path / "chains.jsonl"
    rows.write_text(
        json.dumps(
            {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}
        )
        + "\n"
    )
    config = tmp_path / "s.yaml"
    config.write_text(f"data: chains.jsonl\noutput_dir: {read_only / 'out' / 'sft'}\n")
    _refused(_run("train", "sft", str(config)), "read-only")


@pytest.mark.parametrize("verb", ["export", "report", "train"])
def test_out_naming_a_file(verb: str, tmp_path: Path) -> None:
    target = tmp_path / "taken.txt"
    target.write_text("mine")
    source = tmp_path / "p.jsonl"
    source.write_text(json.dumps({"id": "a", "code": PROGRAM, "input": "1", "output": "2"}) + "\n")
    if verb == "export":
        result = _run("export", str(source), "--out", str(target), "--no-decontaminate")
    elif verb == "report":
        run = tmp_path / "run"
        run.mkdir()
        (run / "results.json").write_text(
            json.dumps({"benchmark": "cruxeval", "task": "output", "metrics": {}})
        )
        result = _run("report", str(run), "-o", str(target / "r.html"))
    else:
        (tmp_path / "chains.jsonl").write_text(
            json.dumps({"messages": [{"role": "user", "content": "q"}]}) + "\n"
        )
        config = tmp_path / "s.yaml"
        config.write_text("data: chains.jsonl\noutput_dir: taken.txt\n")
        result = _run("train", "sft", str(config))
    _refused(result, "is a file")
    assert target.read_text() == "mine"


# ------------------------------------------------------------------------- train
def _sft_config(tmp_path: Path, extra: str = "") -> Path:
    rows = tmp_path / "chains.jsonl"
    rows.write_text(
        json.dumps(
            {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}
        )
        + "\n"
    )
    config = tmp_path / "s.yaml"
    config.write_text("data: chains.jsonl\noutput_dir: out\n" + extra)
    return config


def test_train_unknown_model_name(tmp_path: Path) -> None:
    import os

    # A process of its own: huggingface_hub reads HF_HUB_OFFLINE once, at import (no hub
    # here, and its absence is the case).
    config = _sft_config(tmp_path, "model: no-such-org/no-such-model\n")
    done = subprocess.run(
        [sys.executable, "-m", "execlens", "train", "sft", str(config)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert "'no-such-org/no-such-model'" in lines[0] and "embedded" in lines[0]


def test_train_unknown_trl_args_key(tmp_path: Path) -> None:
    config = _sft_config(tmp_path, "trl_args: {learning_rat: 0.1}\n")
    _refused(_run("train", "sft", str(config)), "'learning_rat'", "SFTConfig")
    assert not (tmp_path / "out").exists()


def test_train_grpo_batch_that_num_generations_does_not_divide(tmp_path: Path) -> None:
    from execlens.rewards import Task, export_tasks

    export_tasks(
        [Task("output", PROGRAM, "2", call="f(1)", id="t")], tmp_path / "d", formats=["trl"]
    )
    config = tmp_path / "g.yaml"
    config.write_text("data: d\noutput_dir: out\nper_device_train_batch_size: 3\n")
    _refused(_run("train", "grpo", str(config)), "GRPOConfig", "num_generations")
    assert not (tmp_path / "out").exists()


def test_train_grpo_default_batch_settings_are_ones_trl_accepts() -> None:
    # `train grpo` with its own defaults used to die in TRL (batch 4, 8 generations).
    from trl import GRPOConfig

    from execlens.train import GRPORunConfig

    defaults = GRPORunConfig(data="d", output_dir="o")
    GRPOConfig(
        output_dir="o",
        use_cpu=True,
        bf16=False,
        per_device_train_batch_size=defaults.per_device_train_batch_size,
        gradient_accumulation_steps=defaults.gradient_accumulation_steps,
        num_generations=defaults.num_generations,
    )


def test_train_output_dir_held_by_a_live_run(tmp_path: Path) -> None:
    import os

    from execlens.store import RunDir

    config = _sft_config(tmp_path)
    with RunDir.open(tmp_path / "out", {"verb": "train sft"}):
        _refused(
            _run("train", "sft", str(config)),
            "in use by another run",
            f"pid {os.getpid()}",
            "output_dir",
        )


# ---------------------------------------------------------------- README, offline
def test_cruxeval_without_data_reads_the_shipped_file(tmp_path: Path) -> None:
    # No --data and no hub: the README's `eval --benchmark cruxeval` finds the copy that
    # ships with execlens (a dead server then is the only thing it has to say).
    from execlens.bench.cruxeval import DATA_DIR, load_cruxeval

    loaded = load_cruxeval()
    assert len(loaded) == 800 and not loaded.errors
    assert Path(loaded.source).resolve() == (DATA_DIR / "cruxeval.jsonl").resolve()
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
        "--limit",
        "1",
        "-o",
        str(tmp_path / "o"),
    )
    _refused(result, "is the server running")
