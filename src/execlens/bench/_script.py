"""Running a program the way an upstream judge does: as a script, ``python main.py``.

Some official judges decide on what the *process* did -- its exit status (MultiPL-E, which
CRUXEval-X's judge calls: status OK iff the exit status is 0) or whether it wrote anything
to stderr (CodeMind's SR) -- not on how the program's code ended.  Those differ: a program
that calls ``os._exit(0)`` before its assertions exits 0 without ending normally, one that
sends stderr to ``/dev/null`` fails silently, ``sys.exit("0")`` prints ``0`` and exits 1.
To decide as upstream decides, the official scorers run the source as a script in a
process of its own and read its status and streams.

That process runs *inside* the sandbox: the engine job is a small launcher (ours) that
writes the source to a file in its scratch directory and runs it with the sandbox's own
interpreter (``sys.executable``), a fixed hash seed, stdin from ``/dev/null``, stdout and
stderr to files (read back up to a cap), in a session of its own that is killed whole on
timeout.  The launcher and the program never share a process; the program inherits every
limit and isolation layer of the sandbox.  :func:`script_job` builds the job,
:func:`script_result` reads its outcome, :func:`script_failure` gives the verdict of a
script that left no status to judge (the launcher failed, or the script timed out).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from execlens.engine import Job, Limits

if TYPE_CHECKING:
    from execlens.engine import Outcome
    from execlens.judge import Verdict

__all__ = ["ScriptResult", "script_failure", "script_job", "script_result"]

#: What is kept of each stream (MultiPL-E keeps 2 KB; a traceback's last line must fit).
STREAM_CAP = 8192

_LAUNCHER = """\
import os, signal, subprocess, sys, tempfile


def _tail(path, cap):
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        handle.seek(max(0, size - cap))
        data = handle.read()
    return data.decode("utf-8", "replace"), size


def run(source, timeout, cap, hash_seed):
    folder = tempfile.mkdtemp(prefix="script-")
    path = os.path.join(folder, "main.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(source)
    env = dict(os.environ, PYTHONHASHSEED=str(hash_seed))
    with open(os.path.join(folder, "out"), "wb") as out, open(
        os.path.join(folder, "err"), "wb"
    ) as err:
        process = subprocess.Popen(
            [sys.executable, path],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            cwd=folder,
            env=env,
            start_new_session=True,
        )
        try:
            code = process.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out, code = True, None
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
    stdout, stdout_size = _tail(os.path.join(folder, "out"), cap)
    stderr, stderr_size = _tail(os.path.join(folder, "err"), cap)
    return {
        "exit_code": code,
        "timed_out": timed_out,
        "stdout": stdout,
        "stderr": stderr,
        "stdout_bytes": stdout_size,
        "stderr_bytes": stderr_size,
    }
"""


@dataclass(frozen=True)
class ScriptResult:
    """What the script's process did (``problem`` set: the launcher itself failed).

    ``exit_code`` is the process status (negative: killed by that signal; None: timed
    out or never known); ``stdout``/``stderr`` are the last :data:`STREAM_CAP` bytes,
    ``stderr_bytes`` how many were written in all.
    """

    exit_code: int | None
    timed_out: bool
    stdout: str
    stderr: str
    stderr_bytes: int
    problem: Outcome | None = None

    @property
    def exited_zero(self) -> bool:
        """Status 0 within the time limit (MultiPL-E's ``OK``)."""
        return self.problem is None and not self.timed_out and self.exit_code == 0

    def last_error_line(self) -> str:
        """The last non-blank stderr line (a traceback's exception), or ``""``."""
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return lines[-1].strip() if lines else ""


def script_job(
    source: str,
    *,
    timeout: float,
    memory_mb: int = 1024,
    hash_seed: int = 0,
    tag: Any = None,
) -> Job:
    """The engine job running ``source`` as ``python main.py`` for at most ``timeout`` s.

    The job's own wall time leaves the launcher room to kill the script and report.
    """
    return Job(
        program=_LAUNCHER,
        entry_point="run",
        args=(source, float(timeout), STREAM_CAP, int(hash_seed)),
        limits=Limits(wall_time=timeout + 10.0, memory_mb=memory_mb, output_bytes=64 * 1024),
        hash_seed=0,
        tag=tag,
    )


def script_result(outcome: Outcome) -> ScriptResult:
    """The script's result from its launcher's outcome."""
    if not outcome.ok:
        return ScriptResult(None, False, "", "", 0, problem=outcome)
    try:
        data = outcome.decoded()
        return ScriptResult(
            data["exit_code"],
            bool(data["timed_out"]),
            str(data["stdout"]),
            str(data["stderr"]),
            int(data["stderr_bytes"]),
        )
    except (KeyError, TypeError, ValueError):  # a malformed envelope: the launcher's fault
        return ScriptResult(None, False, "", "", 0, problem=outcome)


def script_failure(run: ScriptResult, timeout_detail: str) -> Verdict | None:
    """The verdict of a script whose status and streams cannot decide, else None.

    The launcher failed: its engine failure's verdict (an outcome that finished but
    held no readable result: ``sandbox_error``, ``launcher``).  The script ran past its
    limit: ``timeout`` with ``timeout_detail``.  Every official scorer that runs a
    script meets these two the same way; what a finished script's status means is the
    scorer's own."""
    from execlens.judge import Verdict, VerdictStatus, failure_verdict

    if run.problem is not None:
        if run.problem.ok:
            return Verdict.failing(VerdictStatus.SANDBOX_ERROR, "launcher", "no result read")
        return failure_verdict(run.problem)
    if run.timed_out:
        return Verdict.failing(VerdictStatus.TIMEOUT, "", timeout_detail)
    return None
