"""Skip reasons ask the interpreter programs run under, not the host's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from execlens.tasks import missing_modules, skip_reason


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A program interpreter with nothing installed (a venv without pip)."""
    root = tmp_path_factory.mktemp("bare-venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    return str(root / "bin" / "python")


def test_a_module_the_host_has_is_missing_for_a_bare_program_env(bare_python: str) -> None:
    source = "import numpy as np\nimport json\nfrom collections import Counter\n"
    assert missing_modules(source, python=sys.executable) == []
    assert missing_modules(source, python=bare_python) == ["numpy"]
    assert skip_reason(source, python=bare_python) == "needs numpy (not installed)"


def test_the_program_python_variable_is_the_default(
    bare_python: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EXECLENS_PROGRAM_PYTHON", bare_python)
    assert missing_modules("import numpy\n") == ["numpy"]
    monkeypatch.setenv("EXECLENS_PROGRAM_PYTHON", sys.executable)
    assert missing_modules("import numpy\n") == []


def test_stdlib_and_unparsable_sources_need_nothing(bare_python: str) -> None:
    assert missing_modules("import os, re\nfrom itertools import chain\n", python=bare_python) == []
    assert missing_modules("def broken(:\n", python=bare_python) == []
    assert missing_modules(None, "", python=bare_python) == []


def test_an_unusable_interpreter_falls_back_to_this_one(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    assert missing_modules("import numpy\n", python=str(fake)) == []
    assert missing_modules("import no_such_module_xyz\n", python=str(fake)) == [
        "no_such_module_xyz"
    ]
