"""The recorder package's shape: what a fork server holds, and modules kept small.

The tracing fork servers preload ``execlens.trace._runner``; every module they hold makes
each fork dearer, so the runner must pull in the recorder's event-time modules only (the
host-side line map, which needs ``ast``, stays out).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import execlens
import execlens.trace
from execlens.trace._recorder import Recorder, statement_line_map

SRC = Path(execlens.__file__).resolve().parents[1]
TRACE = Path(execlens.trace.__file__).resolve().parent

# What importing the runner loads from execlens.trace, exactly.
RUNNER_MODULES = [
    "execlens.trace",
    "execlens.trace._recorder",
    "execlens.trace._recorder._core",
    "execlens.trace._recorder._fingerprint",
    "execlens.trace._recorder._monitoring",
    "execlens.trace._recorder._settrace",
    "execlens.trace._recorder._values",
    "execlens.trace._runner",
]


def test_the_runner_loads_only_the_recorder_it_runs() -> None:
    probe = (
        "import sys, json; import execlens.trace._runner; "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('execlens.trace'))"
        " + ['ast' if 'ast' in sys.modules else '-']))"
    )
    done = subprocess.run(
        [sys.executable, "-B", "-s", "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(SRC)},
        check=True,
    )
    loaded = json.loads(done.stdout)
    assert loaded[:-1] == RUNNER_MODULES
    assert loaded[-1] == "-", "the runner pulled in ast (the line map belongs to the host)"


def test_no_trace_module_is_over_600_lines() -> None:
    sizes = {
        str(path.relative_to(TRACE)): len(path.read_text(encoding="utf-8").splitlines())
        for path in TRACE.rglob("*.py")
    }
    assert len(sizes) >= 10
    assert {name: size for name, size in sizes.items() if size > 600} == {}


def test_the_line_map_loads_on_first_use() -> None:
    assert statement_line_map is execlens.trace.statement_line_map
    assert statement_line_map("x = (1,\n     2)\ny = 3\n") == {2: 1}
    assert Recorder is execlens.trace.Recorder
