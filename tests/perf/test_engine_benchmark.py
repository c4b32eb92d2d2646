"""The engine benchmark script keeps its contract: figures, ratios and per-run costs as JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "perf" / "engine.py"


def test_engine_benchmark_prints_figures_and_where_the_cpu_goes() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--json", "--scale", "0.01"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    rates = report["runs_per_s"]
    for method in (
        "in_process_exec",
        "subprocess_per_run",
        "process_manager_per_run",
        "process_pipe_per_run",
        "fork_exit_floor",
        "engine_one_per_child",
        "engine_16_per_child",
    ):
        assert rates[method] > 0, method
    assert report["ratios"]["one_per_child_vs_subprocess"] == (
        rates["engine_one_per_child"] / rates["subprocess_per_run"]
    )
    engine = report["per_run_cost"]["engine_one_per_child"]
    floor = report["per_run_cost"]["fork_exit_floor"]
    assert set(engine) == {"host", "servers", "zygotes", "children"}
    # The accounting found the engine's processes: a job's child does everything the
    # do-nothing forked child does, and more.
    assert engine["children"]["faults"] > floor["forked child"]["faults"] > 0
    assert engine["zygotes"]["faults"] > 0
    assert "where one run's CPU goes" in done.stdout
