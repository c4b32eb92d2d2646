"""Bad ``EXECLENS_*`` worker settings: exit code 2 and one ``error:`` line naming the
variable and the fix, before the run makes anything -- never a traceback at the first
reward or verify batch.

``execlens train grpo`` reaches the rewards (``EXECLENS_REWARD_WORKERS`` and the judge
workers' settings), ``execlens synth run`` the pipeline's verify stages (the judge
workers' settings); each refuses before it loads a model or makes its run directory.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BAD = [
    ("EXECLENS_REWARD_WORKERS", "four", "at least 1"),
    ("EXECLENS_REWARD_WORKERS", "0", "at least 1"),
    ("EXECLENS_JUDGE_WORKERS", "two", "at least 0"),
    ("EXECLENS_JUDGE_WORKERS", "-1", "at least 0"),
    ("EXECLENS_JUDGE_MIN_BATCH", "1.5", "at least 1"),
    ("EXECLENS_JUDGE_MIN_BATCH", "0", "at least 1"),
]


def _run(cwd: Path, name: str, value: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, name: value}
    return subprocess.run(
        [sys.executable, "-m", "execlens", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
    )


def _refused(result: subprocess.CompletedProcess[str], name: str, value: str, least: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    for fragment in (name, repr(value), least, "unset it"):
        assert fragment in lines[0], (fragment, lines[0])


@pytest.mark.parametrize(("name", "value", "least"), BAD)
def test_train_grpo_refuses_a_bad_worker_setting(
    tmp_path: Path, name: str, value: str, least: str
) -> None:
    (tmp_path / "data.parquet").write_bytes(b"")  # never read: the setting fails first
    config = tmp_path / "grpo.yaml"
    config.write_text("data: data.parquet\noutput_dir: out\nmodel: embedded\n")
    _refused(_run(tmp_path, name, value, "train", "grpo", str(config)), name, value, least)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("name", "value", "least"), BAD[2:])
def test_synth_run_refuses_a_bad_judge_setting(
    tmp_path: Path, data_dir: Path, name: str, value: str, least: str
) -> None:
    parsed = data_dir / "codeio" / "rawcode_1k_parsed.jsonl"
    if not parsed.is_file():
        pytest.skip(f"CodeI/O data not found at {parsed}")
    config = tmp_path / "run.yaml"
    config.write_text(
        f"out: out\nsources: [{{path: '{parsed}', limit: 2}}]\n"
        "stages: [collect, prompts]\nworkers: 1\n"
    )
    _refused(_run(tmp_path, name, value, "synth", "run", str(config)), name, value, least)
    assert not (tmp_path / "out").exists()
