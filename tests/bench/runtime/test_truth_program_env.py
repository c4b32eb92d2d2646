"""The runtime truth cache is keyed by the program environment (issue 16).

REval's DREval/122 runs call ``np.mat``: under the program environment ``make install``
recorded (NumPy 1.x) they yield questions; under a bare venv (no NumPy) they fail.  With
one cache directory, the second interpreter is traced afresh (its own file) instead of
being served the first one's questions.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from execlens.bench import load_programs
from execlens.bench.runtime import traced_tasks
from execlens.engine import recorded_program_python_file
from execlens.trace import trace_engine


def test_another_interpreter_is_traced_afresh(data_dir: Path, tmp_path: Path) -> None:
    recorded = recorded_program_python_file()
    if not recorded.is_file():
        pytest.skip(f"{recorded} not found: run `make install` (it records .venv-programs)")
    reval = data_dir / "reval"
    if not (reval / "DREval_data.jsonl").is_file():
        pytest.skip(f"REval data not found in {reval}")
    programs = [p for p in load_programs(reval) if p.problem_id == "DREval/122"]
    assert programs
    bare = tmp_path / "bare"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(bare)], check=True, timeout=120)
    cache = tmp_path / "truth"

    def traced(python: str) -> tuple[list[dict], dict]:
        with trace_engine(workers=1, python=python) as engine:
            result = traced_tasks(programs, engine=engine, cache_dir=cache)
        return [t.to_dict() for t in result.tasks], result.failed

    numpy1_tasks, numpy1_failed = traced(recorded.read_text(encoding="utf-8").strip())
    assert numpy1_tasks and not numpy1_failed
    [first_file] = list(cache.glob("runtime-truth-*.json"))
    bare_tasks, _ = traced(str(bare / "bin" / "python"))
    assert len(list(cache.glob("runtime-truth-*.json"))) == 2
    assert bare_tasks != numpy1_tasks  # no NumPy: the runs raise, their questions change
    stamp = first_file.stat().st_mtime_ns
    assert traced(recorded.read_text(encoding="utf-8").strip())[0] == numpy1_tasks
    assert first_file.stat().st_mtime_ns == stamp  # read back, not rewritten
