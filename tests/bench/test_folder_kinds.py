"""A benchmark folder's own question kinds (issue 24): importing the folder registers
them, after the built-in six, with scope ``given`` (never built from a trace, never asked
by the runtime benchmark), and the folder's strict mode is the core's task scorer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = """
import json
from execlens.tasks.kinds import kind_names
before = kind_names()
from execlens.bench import get_benchmark
from execlens.bench.runtime import BENCHMARK as runtime
from execlens.judge import TaskScorer
import execlens.bench.re2bench, execlens.bench.codemind
from execlens.tasks.kinds import get_kind
after = kind_names()
strict = {
    "re2bench": get_benchmark("re2bench").scorers("input", "direct", None)["strict"],
    "codemind": get_benchmark("codemind").scorers("sr", "direct", None)["strict"],
}
print(json.dumps({
    "before": before,
    "after": after,
    "scopes": {name: get_kind(name).scope for name in after[len(before):]},
    "runtime_tasks": sorted(runtime.tasks),
    "strict": {k: type(s.inner).__name__ for k, s in strict.items()},
    "core": all(isinstance(s.inner, TaskScorer) for s in strict.values()),
}))
"""


def test_importing_a_folder_registers_its_kinds_after_the_built_in_ones() -> None:
    src = Path(__file__).resolve().parents[2] / "src"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")]),
    }
    env.pop("EXECLENS_PLUGINS", None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    added = ["re2bench_output", "re2bench_input", "re2bench_loop", "re2bench_branch"]
    assert not set(added + ["codemind_sr"]) & set(found["before"])
    built_in = ["coverage", "path", "state", "output", "input", "trace"]
    assert found["after"][:6] == built_in
    assert set(found["after"][6:]) == {*added, "codemind_sr"}
    assert set(found["scopes"].values()) == {"given"}
    assert not set(found["runtime_tasks"]) & {*added, "codemind_sr"}
    assert found["core"] and found["strict"] == {"re2bench": "TaskScorer", "codemind": "TaskScorer"}
