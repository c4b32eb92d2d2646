"""The root command (``execlens.cli``) on Typer alone: Typer >= 0.26 vendors Click and no
longer installs it, so the CLI must not import the standalone ``click`` package."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_SRC = str(Path(__file__).resolve().parents[2] / "src")

# ``sys.modules["click"] = None`` makes ``import click`` fail as it does where Click is not
# installed; then the CLI runs as the console script would.
_WITHOUT_CLICK = (
    "import sys; sys.modules['click'] = None; sys.argv[0] = 'execlens'; "
    "from execlens.cli import main; main()"
)


def _execlens_without_click(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([_SRC, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT_CLICK, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_the_cli_runs_where_click_is_not_installed() -> None:
    done = _execlens_without_click("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("execlens")


def test_a_verbs_usage_error_keeps_its_exit_code_without_click() -> None:
    # Raised inside the root's ``invoke`` (the verb parses there): it must pass through
    # as Typer's own usage error (exit 2, its message), not as a traceback.
    done = _execlens_without_click("run", "--no-such-option")
    assert done.returncode == 2, done.stderr
    assert "No such option" in done.stderr
    assert "Traceback" not in done.stderr
