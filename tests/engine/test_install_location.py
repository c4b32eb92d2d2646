"""The sandbox keeps execlens importable wherever it is installed.

The filesystem layer covers ``/tmp`` (and ``/var/tmp``, ``/dev/shm``) with a private
tmpfs and hides directories the sandbox uid cannot traverse.  A checkout under ``/tmp``
(pytest's ``tmp_path`` is one) must still import its own modules in the sandbox — the
zygote imports some lazily after start-up — while nothing else under the cover shows.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import execlens
from execlens.engine import Engine

_PROBE = r'''
import json, sys
from execlens.engine import Engine, Job
program = """
import os
import execlens.judge  # not preloaded: imported from the checkout inside the sandbox
def f(root, secret):
    try:
        open(os.path.join(root, "planted.py"), "w").write("x = 1")
        wrote = True
    except OSError as exc:
        wrote = type(exc).__name__
    return [execlens.judge.__file__, wrote, os.path.exists(secret)]
"""
root, secret = sys.argv[1], sys.argv[2]
with Engine(workers=1, isolation="full") as engine:
    layer = [l for l in engine.isolation_report().layers if l.name == "filesystem"][0]
    outcome = engine.run(Job(program, call=f"f({root!r}, {secret!r})"))
print(json.dumps({"status": outcome.status, "value": outcome.decoded(),
                  "message": outcome.message, "detail": layer.detail}))
'''


def _filesystem_layer_active() -> bool:
    with Engine(workers=1) as engine:
        return engine.isolation_report().active("filesystem")


@pytest.mark.timeout(180)
def test_a_checkout_under_tmp_imports_its_own_modules_in_the_sandbox(tmp_path: Path) -> None:
    if not _filesystem_layer_active():
        pytest.skip("the filesystem layer (mount namespace) is not active on this machine")
    checkout = tmp_path / "checkout" / "src"
    shutil.copytree(
        Path(execlens.__file__).parent,
        checkout / "execlens",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    secret = tmp_path / "secret.txt"
    secret.write_text("host-only")
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(checkout / "execlens"), str(secret)],
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["status"] == "ok", report
    imported_from, wrote, secret_visible = report["value"]
    assert imported_from.startswith(str(checkout)), imported_from
    assert wrote in ("OSError", "PermissionError"), wrote  # read-only: EROFS or EACCES
    assert not (checkout / "execlens" / "planted.py").exists()
    assert secret_visible is False  # only the import root is shown, not the rest of /tmp
    assert str(checkout) in report["detail"]
