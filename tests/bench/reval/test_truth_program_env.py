"""Ground truth is keyed by the program environment (issue 16): truth traced under one
interpreter is never served for another.

DREval/122 calls ``np.mat``: under the program environment ``make install`` recorded
(NumPy 1.x) its runs trace; under a bare venv (no NumPy) they raise.  Both truths go to
one cache directory: the second interpreter gets its own files, traced afresh, and the
first interpreter's are read back unchanged.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from execlens.bench.reval import build_reval_truth, load_reval
from execlens.engine import recorded_program_python_file
from execlens.trace import trace_engine


@pytest.fixture(scope="module")
def interpreters(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """(the recorded program environment's python, a bare venv's python)."""
    recorded = recorded_program_python_file()
    if not recorded.is_file():
        pytest.skip(f"{recorded} not found: run `make install` (it records .venv-programs)")
    bare = tmp_path_factory.mktemp("bare") / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(bare)], check=True, timeout=120)
    return recorded.read_text(encoding="utf-8").strip(), str(bare / "bin" / "python")


@pytest.fixture(scope="module")
def problems(data_dir: Path) -> list:
    path = data_dir / "reval"
    if not (path / "DREval_data.jsonl").is_file():
        pytest.skip(f"REval data not found in {path}")
    return [p for p in load_reval(path).records if p.task_id == "DREval/122"]


def _truth(problems: list, python: str, cache: Path) -> dict:
    with trace_engine(workers=1, python=python) as engine:
        return {
            mode: truth.to_dict()
            for mode, truth in build_reval_truth(problems, engine, cache_dir=cache).items()
        }


def test_another_interpreter_is_another_truth_never_a_stale_one(
    problems: list, interpreters: tuple[str, str], tmp_path: Path
) -> None:
    numpy1, bare = interpreters
    first = _truth(problems, numpy1, tmp_path)
    files = {path.name: path.stat().st_mtime_ns for path in tmp_path.iterdir()}
    assert len(files) == 2  # one per mode
    # NumPy 1.x: the np.mat runs trace and every question has an answer.
    assert not first["official"]["skipped"] and not first["official"]["notes"]

    other = _truth(problems, bare, tmp_path)
    assert len(list(tmp_path.iterdir())) == 4  # new keys: traced, not read back
    for mode in ("official", "strict"):
        assert other[mode]["key"] != first[mode]["key"]
        # Without NumPy the runs raise: a different truth, as it must be.
        assert other[mode] != first[mode]
    assert any(
        "numpy" in note.lower() or "ModuleNotFoundError" in note
        for note in {**other["official"]["notes"], **other["official"]["skipped"]}.values()
    )

    again = _truth(problems, numpy1, tmp_path)
    assert again == first
    # The first interpreter's files were read, not rewritten.
    assert {name: (tmp_path / name).stat().st_mtime_ns for name in files} == files
