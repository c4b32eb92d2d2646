"""Every script of ``perf/`` imports and runs, at its small scale (``perf/_small.py``).

Two of them once failed at import for months (a name they imported had gone): nothing
ran them.  Each script is imported here as a module, then run as ``python perf/x.py``
with ``EXECLENS_PERF_SMALL=1`` (and ``--json`` where it takes it, whose last line must
then be one JSON object).  The figures of a small run mean nothing; that every code path
still runs is the point.  The three synthesis scripts start the ``execlens`` command, a
stand-in model server or Ray several times each: about a minute or more each on two
busy cores, hence ``slow``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PERF = Path(__file__).resolve().parents[2] / "perf"
SCRIPTS = sorted(path for path in PERF.glob("*.py") if not path.name.startswith("_"))
SLOW = {"synth_memory.py", "synth_reproducible.py", "synth_scale.py"}


def test_the_scripts_are_all_here() -> None:
    assert {"engine.py", "rewards.py", "score_cruxeval.py"} <= {p.name for p in SCRIPTS}


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_every_perf_script_imports(script: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(PERF))  # as when run: its folder first on the path
    spec = importlib.util.spec_from_file_location(f"perf_script_{script.stem}", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert callable(module.main)


@pytest.mark.parametrize(
    "script",
    [pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW else p for p in SCRIPTS],
    ids=[p.stem for p in SCRIPTS],
)
def test_every_perf_script_runs_at_the_small_scale(script: Path, data_dir: Path) -> None:
    takes_json = '"--json"' in script.read_text()
    env = {**os.environ, "EXECLENS_PERF_SMALL": "1", "EXECLENS_TEST_DATA": str(data_dir)}
    done = subprocess.run(
        [sys.executable, str(script), *(["--json"] if takes_json else [])],
        cwd=PERF.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-4000:])
    if takes_json:
        assert isinstance(json.loads(done.stdout.strip().splitlines()[-1]), dict)
