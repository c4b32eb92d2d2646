"""Programs run under their own interpreter: ``Engine(python=...)`` (issue 12 prerequisite).

A bare venv (standard library only, no execlens, no NumPy) stands in for a program
environment: it shows the servers need nothing installed there, that programs import
from that environment and not from the host's (the host has NumPy; the venv does not),
that the key attacks still fail under it, and that the tracer's recorder works there.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from execlens.engine import (
    PROGRAM_PYTHON_ENV,
    Engine,
    EngineError,
    Job,
    Limits,
    Status,
    resolve_program_python,
)
from execlens.trace import trace_engine, trace_program

FAST = Limits(wall_time=3.0, memory_mb=256)


@pytest.fixture(scope="session")
def program_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare venv made from this interpreter's base (about 50 ms, once per session)."""
    dest = tmp_path_factory.getbasetemp() / "program-venv"
    if not (dest / "bin" / "python").exists():
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", "--without-pip", str(dest)], check=True, timeout=120)
    return dest


@pytest.fixture(scope="module")
def program_engine(program_venv: Path) -> Iterator[Engine]:
    with Engine(workers=1, python=str(program_venv / "bin" / "python")) as engine:
        yield engine


def test_programs_run_under_the_program_interpreter(
    program_engine: Engine, program_venv: Path
) -> None:
    outcome = program_engine.run(
        Job("import sys\ndef f(x):\n    return [sys.prefix, x * 2]\n", call="f(21)")
    )
    assert outcome.status is Status.OK, outcome.message
    assert outcome.decoded() == [str(program_venv), 42]
    info = program_engine.program_environment()
    assert info["prefix"] == str(program_venv)
    assert info["executable"] == str(program_venv / "bin" / "python")
    assert info["packages"] == {"numpy": None, "pandas": None}


def test_host_packages_do_not_leak_into_the_program_environment(program_engine: Engine) -> None:
    pytest.importorskip("numpy")  # the host has it: the program environment must not see it
    outcome = program_engine.run(Job("import numpy\n"))
    assert outcome.status is Status.EXCEPTION
    assert outcome.exception is not None and outcome.exception.type == "ModuleNotFoundError"


def test_every_isolation_layer_holds_under_the_program_interpreter(program_engine: Engine) -> None:
    with Engine(workers=1) as host_engine:
        expected = {layer.name: layer.active for layer in host_engine.isolation_report().layers}
    got = {layer.name: layer.active for layer in program_engine.isolation_report().layers}
    assert got == expected


def test_precedence_argument_then_environment_then_host(
    program_venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv_python = str(program_venv / "bin" / "python")
    monkeypatch.delenv(PROGRAM_PYTHON_ENV, raising=False)
    # Unset: the interpreter make install recorded in this venv (test_program_env.py
    # shows each step with a record of its own), else this one.
    recorded = Path(sys.prefix) / "execlens-program-python"
    default = recorded.read_text().strip() if recorded.is_file() else sys.executable
    assert resolve_program_python() == default
    monkeypatch.setenv(PROGRAM_PYTHON_ENV, venv_python)
    assert resolve_program_python() == venv_python
    assert resolve_program_python(sys.executable) == sys.executable
    with Engine(workers=1) as engine:
        assert engine.python == venv_python
        assert engine.program_environment()["prefix"] == str(program_venv)


def test_a_missing_program_interpreter_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = str(tmp_path / "nowhere" / "python")
    with pytest.raises(EngineError, match="nowhere/python"):
        Engine(workers=1, python=missing)
    monkeypatch.setenv(PROGRAM_PYTHON_ENV, missing)
    with pytest.raises(EngineError, match=PROGRAM_PYTHON_ENV):
        Engine(workers=1)


@pytest.mark.attack
def test_attack_network_under_the_program_interpreter(program_engine: Engine) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    program = (
        "import socket\ndef f(port):\n    try:\n"
        "        socket.create_connection(('127.0.0.1', port), timeout=0.5)\n"
        "        return 'connected'\n    except OSError as exc:\n"
        "        return type(exc).__name__\n"
    )
    try:
        outcome = program_engine.run(Job(program, call=f"f({port})", limits=FAST))
    finally:
        listener.close()
    assert outcome.status is Status.OK and outcome.decoded() != "connected"


@pytest.mark.attack
def test_attack_file_write_under_the_program_interpreter(
    program_engine: Engine, program_venv: Path
) -> None:
    targets = [
        str(program_venv / "planted.py"),
        "/tmp/execlens-progenv-pwned",
        str(Path(__file__).resolve().parent / "execlens-progenv-pwned"),
    ]
    program = (
        "def f(targets):\n    wrote = []\n    for path in targets:\n        try:\n"
        "            open(path, 'w').write('pwned')\n            wrote.append(path)\n"
        "        except OSError:\n            pass\n    return wrote\n"
    )
    outcome = program_engine.run(Job(program, call=f"f({targets!r})", limits=FAST))
    assert outcome.status is Status.OK and outcome.decoded() == []
    assert not any(os.path.exists(target) for target in targets)


@pytest.mark.attack
def test_attack_proc_under_the_program_interpreter(program_engine: Engine) -> None:
    if not program_engine.isolation_report().active("pid_namespace"):
        pytest.skip("no PID namespace on this machine")
    marker = f"EXECLENS-PROGENV-ARGV-{uuid.uuid4().hex}"
    host_process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", marker])
    deadline = time.monotonic() + 10.0
    while marker.encode() not in Path(f"/proc/{host_process.pid}/cmdline").read_bytes():
        assert time.monotonic() < deadline, "the host process never showed its marker"
        time.sleep(0.01)
    program = (
        "import os\ndef f(marker):\n    found = []\n    for e in os.listdir('/proc'):\n"
        "        if e.isdigit():\n            try:\n"
        "                data = open(f'/proc/{e}/cmdline', 'rb').read()\n"
        "            except OSError:\n                continue\n"
        "            if marker.encode() in data:\n                found.append(e)\n"
        "    return found\n"
    )
    try:
        outcome = program_engine.run(Job(program, call=f"f({marker!r})", limits=FAST))
    finally:
        host_process.kill()
        host_process.wait()
    assert outcome.status is Status.OK and outcome.decoded() == []


def test_tracing_under_the_program_interpreter(program_venv: Path) -> None:
    program = (
        "def f(n):\n    total = 0\n    for i in range(n):\n        total += i\n    return total\n"
    )
    with trace_engine(workers=1, python=str(program_venv / "bin" / "python")) as engine:
        assert engine.preload_errors == {}
        trace = trace_program(engine, program, "f(4)")
    assert trace.ok and trace.output == 6
    assert trace.covered(4) and trace.states("total", 4)[-1] == 6


def test_the_server_side_imports_only_the_standard_library_and_execlens(
    program_engine: Engine,
) -> None:
    program = (
        "import sys\ndef f():\n    return sorted({name.split('.')[0] for name in "
        "list(sys.modules)} - set(sys.stdlib_module_names))\n"
    )
    outcome = program_engine.run(Job(program, call="f()"))
    assert outcome.status is Status.OK, outcome.message
    # What the server and zygote hold before the fork, plus this job's own imports.
    assert outcome.decoded() == ["__main__", "execlens"]


_SHIM_PROBE = r"""
import json, sys
from execlens.engine import Engine, Job
program = (
    "import sys\n"
    "import execlens.judge  # not preloaded: imported lazily in the sandbox\n"
    "try:\n"
    "    import hostonly\n"
    "    seen = 'host package visible'\n"
    "except ImportError:\n"
    "    seen = 'hidden'\n"
)
with Engine(workers=1, python=sys.argv[1]) as engine:
    outcome = engine.run(Job(program, call="seen"))
print(json.dumps({"status": outcome.status, "value": outcome.decoded(),
                  "message": outcome.message}))
"""


@pytest.mark.timeout(180)
def test_execlens_installed_beside_host_packages_brings_none_of_them(
    tmp_path: Path, program_venv: Path
) -> None:
    import shutil

    import execlens

    site = tmp_path / "site-packages"  # execlens installed beside a host-only package
    shutil.copytree(
        Path(execlens.__file__).parent,
        site / "execlens",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    (site / "hostonly").mkdir()
    (site / "hostonly" / "__init__.py").write_text("")
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop(PROGRAM_PYTHON_ENV, None)
    done = subprocess.run(
        [sys.executable, "-c", _SHIM_PROBE, str(program_venv / "bin" / "python")],
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["status"] == "ok", report
    assert report["value"] == "hidden"
