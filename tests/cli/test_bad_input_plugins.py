"""Bad ``$EXECLENS_PLUGINS`` (plug-in modules imported when the registries load): every
verb ends with exit code 2 and one ``error:`` line naming the module and the variable,
never a traceback.  Each case runs ``execlens`` in a fresh process, as a user does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _run(tmp_path: Path, plugins: str, *args: str) -> subprocess.CompletedProcess[str]:
    src = Path(__file__).resolve().parents[2] / "src"
    path = os.pathsep.join(p for p in (str(tmp_path), str(src), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path, "EXECLENS_PLUGINS": plugins}
    return subprocess.run(
        [sys.executable, "-m", "execlens", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def _refused(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


@pytest.mark.parametrize("verb", [["tasks", "build", "x.jsonl", "-o", "t.jsonl"], ["doctor"]])
def test_plugin_module_that_does_not_exist(tmp_path: Path, verb: list[str]) -> None:
    _refused(
        _run(tmp_path, "execlens_no_such_plugin", *verb),
        "$EXECLENS_PLUGINS",
        "'execlens_no_such_plugin'",
        "ModuleNotFoundError",
    )


def test_plugin_module_that_raises_on_import(tmp_path: Path) -> None:
    (tmp_path / "broken_kind.py").write_text("raise RuntimeError('half-written plug-in')\n")
    _refused(
        _run(tmp_path, "broken_kind", "doctor"),
        "'broken_kind'",
        "RuntimeError: half-written plug-in",
    )


def test_plugin_registering_a_kind_twice(tmp_path: Path) -> None:
    (tmp_path / "twice_kind.py").write_text(
        "from execlens.tasks.kinds import KindBase, register_kind\n"
        "class Coverage(KindBase):\n"
        "    name = 'coverage'\n"
        "register_kind(Coverage())\n"
    )
    _refused(
        _run(tmp_path, "twice_kind", "doctor"),
        "'twice_kind'",
        "a question kind named 'coverage' is registered already",
    )


def test_plugin_registering_what_is_no_kind(tmp_path: Path) -> None:
    (tmp_path / "not_kind.py").write_text(
        "from execlens.tasks.kinds import register_kind\nregister_kind(object())\n"
    )
    _refused(_run(tmp_path, "not_kind", "doctor"), "'not_kind'", "is not a QuestionKind")
