"""The minimal root (issue 19): what ``mount_ro`` adds, what the report lists, and the
options that choose the view.  The attacks on it live in ``test_attacks.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from execlens.engine import Engine, Job, Limits, Status

REPO_ROOT = Path(__file__).resolve().parents[2]
FAST = Limits(wall_time=5.0)
_PROBE = (
    "import os\n"
    "def probe(data, sibling):\n"
    "    read = open(os.path.join(data, 'table.csv')).read()\n"
    "    try:\n"
    "        open(os.path.join(data, 'new.txt'), 'w').write('x')\n"
    "        wrote = 'wrote'\n"
    "    except OSError as exc:\n"
    "        wrote = type(exc).__name__\n"
    "    return [read, wrote, os.path.exists(sibling)]\n"
)


@pytest.fixture
def data_tree() -> Iterator[tuple[Path, Path]]:
    """A data directory beside a sibling file, in the project's parent (not in the view)."""
    base = REPO_ROOT.parent / f"execlens-mount-ro-{uuid.uuid4().hex}"
    data = base / "data"
    data.mkdir(parents=True)
    (data / "table.csv").write_text("a,b\n1,2\n")
    sibling = base / "private.txt"
    sibling.write_text("not for the sandbox")
    for path in (base, data):
        path.chmod(0o755)
    try:
        yield data, sibling
    finally:
        for path in (data / "table.csv", data / "new.txt", sibling):
            path.unlink(missing_ok=True)
        data.rmdir()
        base.rmdir()


def _minimal(engine: Engine) -> None:
    if not engine.isolation_report().active("filesystem"):
        pytest.skip("doctor reports no filesystem layer (minimal root) here")


def test_mount_ro_shows_a_data_directory_read_only_and_nothing_beside_it(
    data_tree: tuple[Path, Path],
) -> None:
    data, sibling = data_tree
    with Engine(workers=1, mount_ro=[str(data)]) as engine:
        _minimal(engine)
        report = engine.isolation_report()
        outcome = engine.run(
            Job(_PROBE, call=f"probe({str(data)!r}, {str(sibling)!r})", limits=FAST)
        )
    assert outcome.status is Status.OK, outcome.message
    assert outcome.decoded() == ["a,b\n1,2\n", "OSError", False]
    assert not (data / "new.txt").exists()
    assert str(data) in report.visible
    assert (
        "mount_ro: " + str(data)
        in report.layers[[layer.name for layer in report.layers].index("filesystem")].detail
    )


def test_without_mount_ro_the_data_directory_is_absent(data_tree: tuple[Path, Path]) -> None:
    data, _ = data_tree
    with Engine(workers=1) as engine:
        _minimal(engine)
        outcome = engine.run(Job("import os\n", call=f"os.path.exists({str(data)!r})", limits=FAST))
    assert outcome.status is Status.OK and outcome.decoded() is False


def test_the_report_lists_what_is_visible(engine: Engine) -> None:
    _minimal(engine)
    visible = engine.isolation_report().visible
    # The interpreter's own tree and the devices; never a home, the project or host /etc.
    assert "/dev/null" in visible and "/etc/passwd" in visible
    assert any(path.endswith("src") or "execlens" in path for path in visible)
    assert not any(path.startswith(("/home", "/root/.cache", "/etc/shadow")) for path in visible)
    assert str(REPO_ROOT) not in visible and "/" not in visible


def test_numpy_pandas_scipy_sympy_bs4_import_inside_the_minimal_root(engine: Engine) -> None:
    _minimal(engine)
    program = (
        "import numpy, pandas, scipy.linalg, scipy.optimize, sympy, bs4, sqlite3, ssl, "
        "zoneinfo, ctypes\n"
        "def f():\n"
        "    return [float(numpy.linalg.det(numpy.eye(2))),"
        " int(pandas.Series([1, 2]).sum()),"
        " str(sympy.expand((sympy.Symbol('x') + 1) ** 2)),"
        " str(zoneinfo.ZoneInfo('Europe/Paris')), ctypes.CDLL('libc.so.6').getpid() > 0]\n"
    )
    outcome = engine.run(Job(program, call="f()", limits=Limits(wall_time=60.0, memory_mb=2048)))
    if outcome.status is Status.EXCEPTION and "No module named" in outcome.message:
        pytest.skip(f"the program environment lacks a package: {outcome.message}")
    assert outcome.status is Status.OK, outcome.message
    assert outcome.decoded() == [1.0, 3, "x**2 + 2*x + 1", "Europe/Paris", True]


def test_a_spawned_interpreter_and_shell_work_inside_the_minimal_root(engine: Engine) -> None:
    _minimal(engine)
    program = (
        "import subprocess, sys\n"
        "def f():\n"
        "    py = subprocess.run([sys.executable, '-c', 'print(6 * 7)'],"
        " capture_output=True,"
        " text=True).stdout\n"
        "    sh = subprocess.run('echo $((2 + 3))', shell=True,"
        " capture_output=True, text=True"
        ").stdout\n"
        "    return [py.strip(), sh.strip()]\n"
    )
    outcome = engine.run(Job(program, call="f()", limits=Limits(wall_time=30.0)))
    assert outcome.status is Status.OK, outcome.message
    assert outcome.decoded() == ["42", "5"]


def test_full_isolation_refuses_the_host_view() -> None:
    with pytest.raises(ValueError, match="minimal root"):
        Engine(workers=1, isolation="full", filesystem="host")


def test_the_host_view_counts_as_a_missing_filesystem_layer() -> None:
    with Engine(workers=1, filesystem="host") as engine:
        layer = next(
            layer for layer in engine.isolation_report().layers if layer.name == "filesystem"
        )
    assert layer.active is False and "host view" in layer.detail


def test_run_mount_ro_from_the_command_line(data_tree: tuple[Path, Path], tmp_path: Path) -> None:
    data, sibling = data_tree
    program = tmp_path / "probe.py"
    program.write_text(_PROBE)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "execlens",
            "run",
            str(program),
            "--call",
            f"probe({str(data)!r}, {str(sibling)!r})",
            "--mount-ro",
            str(data),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["status"] == "ok"


def test_an_interpreter_whose_libraries_need_each_other_through_origin_rpaths() -> None:
    """The host venv (torch's libraries find each other through $ORIGIN rpaths, in
    cycles) as the program interpreter: planning its root must terminate, and torch must
    load inside it."""
    pytest.importorskip("torch")
    with Engine(workers=1, python=sys.executable) as engine:
        outcome = engine.run(
            Job(
                "def f():\n    import torch\n    return int(torch.ones(2).sum())\n",
                call="f()",
                limits=Limits(wall_time=60.0, memory_mb=4096),
            )
        )
    assert outcome.status is Status.OK, outcome
    assert outcome.decoded() == 2


_LAYOUTS = {
    "system": "/usr/bin/python3",  # Debian's interpreter under /usr
    "pyenv": sys.base_prefix + "/bin/python3",  # a pyenv (or any base) install, no venv
}


@pytest.mark.parametrize("layout", sorted(_LAYOUTS))
def test_other_interpreter_layouts_get_a_working_minimal_root(layout: str) -> None:
    """Full isolation with an interpreter outside any venv: its stdlib and the shared
    libraries of its extension modules (ssl, sqlite3, decimal) load inside the root, and
    the host's /home and /etc stay out of sight."""
    python = _LAYOUTS[layout]
    if not os.path.exists(python):
        pytest.skip(f"no {layout} interpreter at {python} on this machine")
    program = (
        "import os, ssl, sqlite3, decimal\n"
        "def f():\n"
        "    return [os.path.exists('/home'), os.path.exists('/etc/hostname'),\n"
        "            sqlite3.connect(':memory:').execute('select 1').fetchone()[0]]\n"
    )
    with Engine(workers=1, python=python, isolation="full") as engine:
        outcome = engine.run(Job(program, call="f()", limits=FAST))
    assert outcome.status is Status.OK, outcome
    assert outcome.decoded() == [False, False, 1]
