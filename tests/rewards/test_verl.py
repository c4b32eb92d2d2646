"""verl loads our ``compute_score`` through its own custom-reward loader and scores rows
written by ``execlens export``.

verl (``pip install execlens[verl]``) lives in the host venv beside the trainer; the
sandboxed programs run under their own interpreter (``EXECLENS_PROGRAM_PYTHON``), so
verl's NumPy >= 2 no longer clashes with them.  The test runs the loader in a fresh
process of the host interpreter when verl is importable there, else in
``$EXECLENS_VERL_PYTHON``; it skips (saying so) when neither has verl.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execlens.rewards import Task, export_tasks

REPO = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json, sys
import pyarrow.parquet as pq
from omegaconf import OmegaConf
from verl.trainer.ppo.reward import get_custom_reward_fn

config = OmegaConf.create({"reward": {"custom_reward_function": {
    "path": "pkg://execlens.rewards.verl_reward", "name": "compute_score",
    "reward_kwargs": {"shaping": sys.argv[3]}}}})
fn = get_custom_reward_fn(config)
rows = pq.read_table(sys.argv[1]).to_pylist()
answers = json.loads(sys.argv[2])
single = [fn(data_source=r["data_source"], solution_str=a,
             ground_truth=r["reward_model"]["ground_truth"], extra_info=r["extra_info"])
          for r, a in zip(rows, answers)]
batch = fn(data_sources=[r["data_source"] for r in rows], solution_strs=answers,
           ground_truths=[r["reward_model"]["ground_truth"] for r in rows],
           extra_infos=[r["extra_info"] for r in rows])
import verl
print(json.dumps({"single": single, "batch": batch, "verl": verl.__version__}))
"""


def _verl_python() -> str | None:
    candidates = [sys.executable, os.environ.get("EXECLENS_VERL_PYTHON")]
    for python in candidates:
        if python and Path(python).is_file():
            probe = subprocess.run(
                [python, "-c", "import verl.trainer.ppo.reward"], capture_output=True, timeout=300
            )
            if probe.returncode == 0:
                return python
    return None


def test_verl_loads_compute_score_and_scores_exported_rows(tmp_path: Path) -> None:
    python = _verl_python()
    if python is None:
        pytest.skip("verl is importable neither here nor from $EXECLENS_VERL_PYTHON")
    program = "def f(x):\n    return x[::-1]\n"
    tasks = [
        Task("output", program, "'cba'", call="f('abc')", id="o"),
        Task("input", program, "'cba'", id="i"),
    ]
    export_tasks(tasks, tmp_path, formats=["verl"])
    answers = ["I think [ANSWER]'cba'[/ANSWER]", "[ANSWER]f([]) or True[/ANSWER]"]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")])
        ),
    }
    result = subprocess.run(
        [
            python,
            "-c",
            SCRIPT,
            str(tmp_path / "verl.parquet"),
            json.dumps(answers),
            "absolute_zero",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["verl"].startswith("0.9")
    for scores in (out["single"], out["batch"]):
        assert [s["score"] for s in scores] == [1.0, -1.0]
        assert [s["verdict"] for s in scores] == ["passed", "unparseable:multiple"]


def test_verl_scores_the_final_part_of_a_thinking_response(tmp_path: Path) -> None:
    python = _verl_python()
    if python is None:
        pytest.skip("verl is importable neither here nor from $EXECLENS_VERL_PYTHON")
    program = "def f(x):\n    return x[::-1]\n"
    tasks = [
        Task("output", program, repr(word[::-1]), call=f"f({word!r})", id=word)
        for word in ("abc", "xyz", "pqr")
    ]
    export_tasks(tasks, tmp_path, formats=["verl"])
    # verl hands over the decoded response, thought included; each draft disagrees with
    # its final answer.
    answers = [
        (
            "<think>\nf('abc') is 'abc'? no.\n[ANSWER]'abc'[/ANSWER]\n</think>\n\n"
            "[ANSWER]'cba'[/ANSWER]"
        ),
        "<think>\n[ANSWER]'zyx'[/ANSWER] is right\n</think>\n\n[ANSWER]'xyz'[/ANSWER]",
        "<think>\nreversing: [ANSWER]'rqp'[/ANSWER] and then",
    ]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")])
        ),
    }
    result = subprocess.run(
        [
            python,
            "-c",
            SCRIPT,
            str(tmp_path / "verl.parquet"),
            json.dumps(answers),
            "absolute_zero",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    for scores in (out["single"], out["batch"]):
        assert [s["score"] for s in scores] == [1.0, -0.5, -1.0]
        assert [s["verdict"] for s in scores] == [
            "passed",
            "wrong:value",
            "unparseable:reasoning_only",
        ]
