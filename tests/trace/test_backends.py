"""The ``sys.monitoring`` backend (Python 3.12+) records exactly what ``sys.settrace`` does.

The project runs on 3.11, where only settrace exists; these tests look for newer
interpreters on the machine (``python3.12``/``python3.13`` on PATH or under pyenv), run
the recorder there in a subprocess with both backends and both modes, and compare.
They skip, naming what was looked for, when no such interpreter is installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import execlens
from execlens.bench.reval import load_reval_problems as load_reval

SRC = str(Path(execlens.__file__).resolve().parents[1])

# Runs in the newer interpreter: every input under both backends, both modes.
_DRIVER = r"""
import json, sys
from execlens.trace._recorder import Recorder, statement_line_map

class Unrunnable(Exception):
    pass

def run(item, mode, backend):
    namespace = {"__name__": "__main__"}
    try:
        exec(compile(item["code"], "<program>", "exec"), namespace)
    except ImportError as exc:  # e.g. numpy, absent from a bare interpreter
        raise Unrunnable(exc)
    line_map = statement_line_map(item["code"]) if mode == "exact" else None
    rec = Recorder(mode=mode, capture="full", line_map=line_map, backend=backend)
    try:
        if item.get("test_class"):
            namespace["__name__"] = "__driver__"
            exec(compile(item["test"], "<test>", "exec"), namespace)
            case = namespace[item["test_class"]](item["test_method"])
            if mode == "exact":
                rec.start()
            case.setUp()
            if mode != "exact":
                rec.start()
            getattr(case, item["test_method"])()
        else:
            rec.start()
            eval(compile(item["call"], "<call>", "eval"), namespace)
    except Exception:
        pass
    finally:
        rec.stop()
    result = rec.result()
    result.pop("backend")
    return json.dumps(result, sort_keys=True, default=repr)

items = json.load(sys.stdin)
differing = {"reval": [], "exact": []}
unrunnable = []
for item in items:
    try:
        for mode in ("reval", "exact"):
            if run(item, mode, "settrace") != run(item, mode, "monitoring"):
                differing[mode].append(item["key"])
    except Unrunnable:
        unrunnable.append(item["key"])
print(json.dumps({"version": list(sys.version_info[:2]), "differing": differing,
                  "compared": len(items) - len(unrunnable), "unrunnable": unrunnable}))
"""

# Programs whose events differ most between the two APIs.
EDGE_PROGRAMS = {
    "exception through frames": (
        "def inner(x):\n    y = x + 1\n    raise ValueError(y)\n"
        "def outer(x):\n    z = 1\n    return inner(x)\n"
        "def f(x):\n    try:\n        return outer(x)\n"
        "    except ValueError:\n        return -1\n"
    ),
    "uncaught exception": "def g(x):\n    raise KeyError(x)\ndef f(x):\n    return g(x)\n",
    "generator closed early": "def f(x):\n    return all(int(c) % 2 == 1 for c in str(x))\n",
    "generator resumed": (
        "def gen(n):\n    for i in range(n):\n        yield i\n"
        "def f(x):\n    return [v for v in gen(x)] + list(zip(gen(3), [1]))\n"
    ),
    "one-line loop": "def f(x):\n    t = 0\n    for i in range(x): t += i\n    return t\n",
    "inlined comprehension": "def f(x):\n    return [i * i for i in range(x) if i % 2]\n",
    "recursion on one line": "def f(x):\n    return 1 if x <= 1 else x * f(x - 1)\n",
    "while loop with break": (
        "def f(x):\n    i = 0\n    while True:\n        i += 1\n        if i > x:\n"
        "            break\n    return i\n"
    ),
}


def _newer_pythons() -> list[str]:
    found: dict[str, str] = {}
    pyenv_root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = sorted(pyenv_root.glob("3.1[2-9]*/bin/python")) if pyenv_root.is_dir() else []
    for name in ("python3.12", "python3.13", "python3.14"):
        path = shutil.which(name)
        if path:
            candidates.append(Path(path))
    for path in candidates:
        try:
            version = subprocess.run(
                [str(path), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                capture_output=True,
                text=True,
                timeout=30,
            ).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            continue
        if version and tuple(map(int, version.split("."))) >= (3, 12):
            found.setdefault(version, str(path))
    return [found[v] for v in sorted(found)]


NEWER = _newer_pythons()
needs_newer = pytest.mark.skipif(
    not NEWER,
    reason="no Python >= 3.12 found (python3.12/3.13/3.14 on PATH or under "
    "$PYENV_ROOT/versions): sys.monitoring cannot be exercised",
)


def _compare(python: str, items: list[dict[str, str | None]]) -> dict:
    done = subprocess.run(
        [python, "-c", _DRIVER],
        input=json.dumps(items),
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@needs_newer
@pytest.mark.parametrize("python", NEWER or ["-"])
def test_backends_agree_on_edge_programs(python: str) -> None:
    items = [{"key": name, "code": code, "call": "f(5)"} for name, code in EDGE_PROGRAMS.items()]
    report = _compare(python, items)
    assert report["version"] >= [3, 12]
    assert report["compared"] == len(items)
    assert report["differing"] == {"reval": [], "exact": []}


@needs_newer
@pytest.mark.slow
@pytest.mark.parametrize("python", NEWER or ["-"])
def test_backends_agree_on_every_reval_input(python: str, data_dir: Path) -> None:
    reval_dir = data_dir / "reval"
    if not (reval_dir / "DREval_data.jsonl").is_file():
        pytest.skip(f"REval data not found in {reval_dir}")
    items = []
    for problem in load_reval(reval_dir):
        if problem.skip_reason:
            continue
        for item in problem.runs:
            items.append(
                {
                    "key": item.key,
                    "code": problem.code,
                    "call": item.call,
                    "test": problem.test,
                    "test_class": item.test_class,
                    "test_method": item.test_method,
                }
            )
    assert len(items) == 978
    report = _compare(python, items)
    # Only programs importing what a bare interpreter lacks (numpy) are left out.
    assert report["compared"] >= 950, report["unrunnable"]
    assert report["differing"] == {"reval": [], "exact": []}
