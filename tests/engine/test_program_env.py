"""The program environment by default (issue 16): one resolver, a fingerprint, requirements.

Resolution order is ``--program-python``/``Engine(python=...)`` > ``$EXECLENS_PROGRAM_PYTHON``
> the interpreter ``make install`` recorded under the host venv's prefix > this
interpreter; each step is shown with a real recorded file in a temporary prefix.  The
host venv (``sys.executable`` under ``make test``: NumPy 2) stands in for "the wrong
environment", a bare venv for "no NumPy", and the interpreter ``make install`` recorded
(``.venv-programs``: NumPy 1.x) for the right one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from execlens.engine import (
    PROGRAM_PYTHON_ENV,
    RECORDED_PROGRAM_PYTHON,
    Engine,
    EngineError,
    locate_program_python,
    program_environment_warning,
    program_fingerprint,
    record_program_python,
    recorded_program_python_file,
    resolve_program_python,
    unmet_requirements,
)

REPO = Path(__file__).resolve().parents[2]
REVAL_NEEDS = {"reval": ("numpy<2",)}


@pytest.fixture(scope="session")
def bare_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with the standard library only: programs there have no NumPy."""
    dest = tmp_path_factory.getbasetemp() / "bare-program-venv"
    if not (dest / "bin" / "python").exists():
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", "--without-pip", str(dest)], check=True, timeout=120)
    return dest


def _host_numpy_major() -> int:
    import numpy

    return int(numpy.__version__.split(".")[0])


def _recorded_programs_python() -> str:
    """The interpreter ``make install`` recorded for this host venv (skip when absent)."""
    recorded = recorded_program_python_file()
    if not recorded.is_file():
        pytest.skip(f"{recorded} not found: run `make install` (it records .venv-programs)")
    return recorded.read_text(encoding="utf-8").strip()


def test_resolution_order_flag_env_recorded_host(
    tmp_path: Path, bare_venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix = tmp_path / "host-venv"
    programs = str(bare_venv / "bin" / "python")
    monkeypatch.delenv(PROGRAM_PYTHON_ENV, raising=False)
    # Nothing recorded: this interpreter.
    located = locate_program_python(prefix=prefix)
    assert (located.path, located.source) == (sys.executable, "this interpreter")
    # Recorded by make install (the file the Makefile writes under the venv's prefix).
    written = record_program_python(programs, prefix)
    assert written == prefix / RECORDED_PROGRAM_PYTHON
    located = locate_program_python(prefix=prefix)
    assert (located.path, located.source) == (programs, "recorded by make install")
    assert located.origin == str(written)
    # The variable overrides the record...
    monkeypatch.setenv(PROGRAM_PYTHON_ENV, sys.executable)
    located = locate_program_python(prefix=prefix)
    assert (located.path, located.source) == (sys.executable, f"${PROGRAM_PYTHON_ENV}")
    # ...and an explicit interpreter (--program-python) overrides both.
    located = locate_program_python("/some/python", prefix=prefix)
    assert (located.path, located.source) == ("/some/python", "given")
    # An empty variable counts as unset.
    monkeypatch.setenv(PROGRAM_PYTHON_ENV, "")
    assert locate_program_python(prefix=prefix).path == programs


def test_a_recorded_relative_path_is_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    written = record_program_python(".venv-programs/bin/python", tmp_path / "prefix")
    assert written.read_text().strip() == str(tmp_path / ".venv-programs" / "bin" / "python")


def test_without_the_variable_the_engine_runs_programs_where_make_install_recorded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    recorded = _recorded_programs_python()
    monkeypatch.delenv(PROGRAM_PYTHON_ENV, raising=False)
    assert resolve_program_python() == recorded
    with Engine(workers=1) as engine:
        info = engine.program_environment(("numpy",))
    assert info["prefix"] == str(Path(recorded).parent.parent)
    assert int(info["packages"]["numpy"].split(".")[0]) == 1


def test_a_recorded_interpreter_that_is_gone_is_an_error_naming_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Run in a fresh process whose sys.prefix holds a record pointing nowhere: the
    # engine must name the record, not fall back to the host's NumPy 2 in silence.
    prefix = tmp_path / "prefix"
    record_program_python(tmp_path / "deleted-venv" / "bin" / "python", prefix)
    env = {k: v for k, v in os.environ.items() if k != PROGRAM_PYTHON_ENV}
    code = (
        "import sys; sys.prefix = sys.argv[1]\n"
        "from execlens.engine import resolve_program_python, EngineError\n"
        "try:\n    resolve_program_python()\n"
        "except EngineError as exc:\n    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(prefix)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "recorded by make install" in done.stdout
    assert str(prefix / RECORDED_PROGRAM_PYTHON) in done.stdout
    assert "deleted-venv/bin/python" in done.stdout
    with pytest.raises(EngineError, match="deleted-venv"):
        Engine(workers=1, python=str(tmp_path / "deleted-venv" / "bin" / "python"))


def test_the_program_environment_script_records_for_make_install(
    tmp_path: Path, bare_venv: Path
) -> None:
    dest, prefix = tmp_path / "programs", tmp_path / "host"
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "program_env.py"),
            str(dest),
            "--no-packages",
            "--record-in",
            str(prefix),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["recorded"] == str(prefix / RECORDED_PROGRAM_PYTHON)
    assert locate_program_python(prefix=prefix).path == str(dest / "bin" / "python")


def test_fingerprint_names_interpreter_python_numpy_and_every_distribution(bare_venv: Path) -> None:
    host = program_fingerprint(sys.executable)
    bare = program_fingerprint(str(bare_venv / "bin" / "python"))
    assert host.executable == sys.executable and host.version == sys.version.split()[0]
    assert host.package("numpy") is not None and host.package("NumPy") == host.package("numpy")
    assert bare.package("numpy") is None
    # Two venvs over one base interpreter are two environments (symlinks are kept).
    assert host.key() != bare.key() and host.digest != bare.digest
    assert set(host.key()) == {"executable", "python", "numpy", "distributions"}
    assert program_fingerprint(sys.executable) is host  # once per interpreter


def test_requirements_are_checked_against_the_environment(bare_venv: Path) -> None:
    host = program_fingerprint(sys.executable)
    found = host.package("numpy")
    assert unmet_requirements(["numpy"], host) == []
    assert unmet_requirements([f"numpy>={found}", f"numpy<={found}"], host) == []
    assert unmet_requirements([f"numpy!={found}"], host) == [f"numpy!={found} (found {found})"]
    assert unmet_requirements(["numpy<1.0"], host) == [f"numpy<1.0 (found {found})"]
    bare = program_fingerprint(str(bare_venv / "bin" / "python"))
    assert unmet_requirements(["numpy<2"], bare) == ["numpy<2 (not installed)"]
    with pytest.raises(ValueError, match="unsupported"):
        unmet_requirements(["numpy~=1.2"], host)


def test_warning_for_numpy_2_and_for_no_numpy_not_for_the_program_env(bare_venv: Path) -> None:
    if _host_numpy_major() < 2:
        pytest.skip("the host has NumPy 1.x: it cannot stand in for the wrong environment")
    host = program_environment_warning(REVAL_NEEDS, sys.executable)
    assert host is not None and "reval needs numpy<2 (found 2." in host
    assert sys.executable in host and "\n" not in host
    bare = program_environment_warning(REVAL_NEEDS, str(bare_venv / "bin" / "python"))
    assert bare is not None and "numpy<2 (not installed)" in bare
    assert program_environment_warning(REVAL_NEEDS, _recorded_programs_python()) is None
    # An unusable interpreter warns nothing: the engine reports it by name.
    assert program_environment_warning(REVAL_NEEDS, "/nonexistent/python") is None


def test_benchmarks_declare_what_their_programs_need() -> None:
    from execlens.bench import get_benchmark

    assert get_benchmark("reval").program_requirements == ("numpy<2",)
    assert getattr(get_benchmark("cruxeval"), "program_requirements", ()) == ()
