"""The engine's attack suite: one named test per attack on the host.

Each test runs hostile code through the real engine and asserts (1) the named status,
(2) that the host and the next job are unaffected (same servers, a sentinel job still
succeeds, no process of the sandbox uid is left alive), and (3) that nothing leaked
outside the scratch dir.  Attacks that could take the whole machine down if a layer
failed (fork bomb, kill(-1)) run only when ``doctor`` reports the confining layers.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from execlens.engine import Engine, Job, Limits, Outcome, Status
from execlens.values import ObjectRecord, Truncated, values_equal

pytestmark = pytest.mark.attack

REPO_ROOT = Path(__file__).resolve().parents[2]
FAST = Limits(wall_time=1.5, memory_mb=256)


def _sandbox_pids(uids: set[int]) -> list[int]:
    """Live (non-zombie) processes owned by any of the sandbox uids."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        real_uid = int(fields.get("Uid", "-1").split()[0])
        if real_uid in uids and not fields.get("State", "").strip().startswith("Z"):
            found.append(int(entry))
    return found


@pytest.fixture(scope="module")
def sandbox(engine: Engine) -> Iterator[Engine]:
    yield engine


@pytest.fixture
def host_unaffected(sandbox: Engine) -> Iterator[None]:
    """After the attack: same servers, no leftover sandbox process, next job fine."""
    restarts = sandbox.restarts
    # The children's uid as the host sees it; where it is the host user's own (a user
    # namespace mapping only that uid) processes cannot be told apart by uid.
    servers_before = {r.host_uid for r in sandbox.server_reports()} - {os.getuid()}
    yield
    sentinel = sandbox.run(Job("def f(x):\n    return x * 2\n", call="f(21)"))
    assert sentinel.status is Status.OK and sentinel.decoded() == 42
    assert sandbox.restarts == restarts, "an attack killed an execution server"
    uids = {uid for uid in servers_before if uid is not None}
    if uids:
        # SIGKILLed children may still be tearing down their memory for a moment.
        deadline = time.monotonic() + 3.0
        while _sandbox_pids(uids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _sandbox_pids(uids) == [], "a sandbox process outlived its job"


def run(sandbox: Engine, program: str, call: str | None = None, limits: Limits = FAST) -> Outcome:
    return sandbox.run(Job(program, call=call, limits=limits))


def _layer(sandbox: Engine, name: str) -> bool:
    return all(report.active(name) for report in sandbox.server_reports())


@pytest.fixture
def marker_dir(tmp_path: Path) -> Iterator[Path]:
    """A host directory inside the repo (visible in the host view), removed afterwards;
    a temporary one where the repo is not writable (a non-root user's run)."""
    path = REPO_ROOT / ".attack-targets" / uuid.uuid4().hex
    try:
        path.mkdir(parents=True)
    except PermissionError:
        yield tmp_path
        return
    try:
        yield path
    finally:
        for child in sorted(path.rglob("*"), reverse=True):
            child.unlink() if child.is_file() or child.is_symlink() else child.rmdir()
        path.rmdir()
        try:
            path.parent.rmdir()
        except OSError:
            pass


# --------------------------------------------------------------------------- time
def test_attack_infinite_loop(sandbox: Engine, host_unaffected: None) -> None:
    outcome = run(sandbox, "while True:\n    pass\n")
    assert outcome.status is Status.TIMEOUT
    assert 1.0 <= outcome.duration < 5.0


def test_attack_loop_ignoring_sigterm_and_sigalrm(sandbox: Engine, host_unaffected: None) -> None:
    program = (
        "import signal\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
        "signal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
        "signal.alarm(1)\n"
        "while True:\n    pass\n"
    )
    assert run(sandbox, program).status is Status.TIMEOUT


def test_attack_catching_the_timeout(sandbox: Engine, host_unaffected: None) -> None:
    program = (
        "while True:\n"
        "    try:\n"
        "        while True:\n"
        "            pass\n"
        "    except BaseException:\n"
        "        pass\n"
    )
    assert run(sandbox, program).status is Status.TIMEOUT


# ------------------------------------------------------------------------- memory
def test_attack_memory_bomb(sandbox: Engine, host_unaffected: None) -> None:
    program = "blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 1024 * 1024))\n"
    outcome = run(sandbox, program)
    assert outcome.status is Status.MEMORY_EXCEEDED
    assert outcome.peak_memory_mb is not None and outcome.peak_memory_mb < 256 + 64


def test_attack_raising_own_limits(sandbox: Engine, host_unaffected: None) -> None:
    program = (
        "import resource\n"
        "raised = []\n"
        "for name in ('RLIMIT_AS', 'RLIMIT_CPU', 'RLIMIT_NPROC', 'RLIMIT_FSIZE'):\n"
        "    limit = getattr(resource, name)\n"
        "    try:\n"
        "        resource.setrlimit(limit, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))\n"
        "        raised.append(name)\n"
        "    except (ValueError, OSError):\n"
        "        pass\n"
        "data = bytearray(2 * 1024 * 1024 * 1024)\n"
    )
    outcome = run(sandbox, program)
    assert outcome.status is Status.MEMORY_EXCEEDED


# -------------------------------------------------------------------------- output
def test_attack_huge_stdout(sandbox: Engine, host_unaffected: None) -> None:
    outcome = run(sandbox, "while True:\n    print('x' * 1000)\n")
    assert outcome.status is Status.OUTPUT_LIMIT
    assert outcome.stdout_truncated
    assert len(outcome.stdout) <= FAST.output_bytes


def test_attack_huge_stdout_through_the_raw_fd(sandbox: Engine, host_unaffected: None) -> None:
    outcome = run(sandbox, "import os\nwhile True:\n    os.write(1, b'y' * 65536)\n")
    assert outcome.status is Status.OUTPUT_LIMIT
    assert len(outcome.stdout) <= FAST.output_bytes


def test_attack_huge_return_value(sandbox: Engine, host_unaffected: None) -> None:
    outcome = run(sandbox, "def f():\n    return ['z' * 100] * 5_000_000\n", call="f()")
    assert outcome.status is Status.OK
    value = outcome.decoded()
    assert isinstance(value, Truncated) and value.length == 5_000_000
    assert not values_equal(value, ["z" * 100] * 5_000_000, "python")


# --------------------------------------------------------------------- filesystem
def test_attack_writing_and_deleting_files_outside_scratch(
    sandbox: Engine, host_unaffected: None, marker_dir: Path
) -> None:
    victim = marker_dir / "victim.txt"
    victim.write_text("intact")
    targets = [
        str(marker_dir / "new.txt"),
        "/tmp/execlens-pwned",
        "/var/tmp/execlens-pwned",
        str(REPO_ROOT / "execlens-pwned"),
        "/etc/execlens-pwned",
    ]
    program = (
        "import os\n"
        "def attack(targets, victim):\n"
        "    done = []\n"
        "    for path in targets:\n"
        "        try:\n"
        "            with open(path, 'w') as handle:\n"
        "                handle.write('pwned')\n"
        "            done.append('wrote ' + path)\n"
        "        except OSError:\n"
        "            pass\n"
        "    for action in (lambda: os.remove(victim), lambda: open(victim, 'w').write('x'),\n"
        "                   lambda: os.chmod(victim, 0o777),\n"
        "                   lambda: os.rename(victim, victim + '.moved')):\n"
        "        try:\n"
        "            action()\n"
        "            done.append('touched victim')\n"
        "        except OSError:\n"
        "            pass\n"
        "    with open('inside-scratch.txt', 'w') as handle:\n"
        "        handle.write('fine')\n"
        "    done.append('scratch ok' if open('inside-scratch.txt').read() == 'fine' else '?')\n"
        "    return done\n"
    )
    outcome = run(sandbox, program, call=f"attack({targets!r}, {str(victim)!r})")
    assert outcome.status is Status.OK
    assert outcome.decoded() == ["scratch ok"]
    assert victim.read_text() == "intact"
    assert sorted(p.name for p in marker_dir.iterdir()) == ["victim.txt"]
    for target in targets:
        assert not os.path.exists(target), f"{target} leaked onto the host"
    # /dev/shm is the job's own (test_kernel_objects): writable, never the host's.
    shm = run(sandbox, "open('/dev/shm/execlens-pwned', 'w').write('x')\n")
    assert shm.status is Status.OK, shm.message
    assert not os.path.exists("/dev/shm/execlens-pwned")


def test_attack_reading_root_only_files(
    sandbox: Engine, host_unaffected: None, marker_dir: Path
) -> None:
    secret = marker_dir / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE")
    secret.chmod(0o600)
    program = (
        "def attack(paths):\n"
        "    got = []\n"
        "    for path in paths:\n"
        "        try:\n"
        "            got.append(open(path).read())\n"
        "        except OSError as exc:\n"
        "            got.append(type(exc).__name__)\n"
        "    return got\n"
    )
    outcome = run(
        sandbox, program, call=f"attack([{str(secret)!r}, '/etc/shadow', '/root/.bashrc'])"
    )
    assert outcome.status is Status.OK
    assert "TOP-SECRET-VALUE" not in repr(outcome.decoded())
    assert all(item.endswith("Error") for item in outcome.decoded())


def test_attack_spawned_processes_inherit_the_sandbox(
    sandbox: Engine, host_unaffected: None
) -> None:
    program = (
        "import subprocess\n"
        "def f():\n"
        "    done = subprocess.run(['/bin/sh', '-c', 'id -u; echo pwned > /tmp/execlens-sh-pwned; "
        "echo rc=$?'], capture_output=True, text=True)\n"
        "    return done.stdout\n"
    )
    outcome = run(sandbox, program, call="f()")
    assert outcome.status is Status.OK
    uid_line, rc_line = outcome.decoded().split()[:2]
    assert int(uid_line) != 0
    assert rc_line != "rc=0"
    assert not os.path.exists("/tmp/execlens-sh-pwned")


# ------------------------------------------------------------------------ network
def test_attack_connecting_to_localhost(sandbox: Engine, host_unaffected: None) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    accepted: list[object] = []

    def accept() -> None:
        try:
            accepted.append(listener.accept())
        except OSError:
            pass

    waiter = threading.Thread(target=accept)
    waiter.start()
    program = (
        "import socket\n"
        "def f(port):\n"
        "    try:\n"
        "        socket.create_connection(('127.0.0.1', port), timeout=0.5).sendall(b'pwned')\n"
        "        return 'connected'\n"
        "    except OSError as exc:\n"
        "        return type(exc).__name__\n"
    )
    outcome = run(sandbox, program, call=f"f({port})")
    waiter.join()
    listener.close()
    assert outcome.status is Status.OK
    assert outcome.decoded() != "connected"
    assert accepted == []


# ------------------------------------------------------------------------ secrets
def test_attack_reading_environment_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXECLENS_TEST_SECRET", "hunter2-secret-token")
    program = (
        "import os\n"
        "def f(host_pid):\n"
        "    seen = [repr(dict(os.environ))]\n"
        "    for path in ('/proc/self/environ', f'/proc/{os.getppid()}/environ',\n"
        "                 f'/proc/{host_pid}/environ', '/proc/1/environ'):\n"
        "        try:\n"
        "            seen.append(open(path, 'rb').read().decode('latin-1'))\n"
        "        except OSError as exc:\n"
        "            seen.append(type(exc).__name__)\n"
        "    return seen\n"
    )
    with Engine(workers=1) as fresh:
        outcome = fresh.run(Job(program, call=f"f({os.getpid()})", limits=FAST))
    assert outcome.status is Status.OK
    assert "hunter2-secret-token" not in repr(outcome.decoded())


# ---------------------------------------------------------------------- processes
def _wait_for_argv(pid: int, marker: str) -> None:
    """Until the host process has exec'd: its marker is visible from the host's /proc."""
    deadline = time.monotonic() + 10.0
    while marker.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes():
        assert time.monotonic() < deadline, "the host process never showed its marker"
        time.sleep(0.01)


def test_attack_reading_host_process_arguments_through_proc(
    sandbox: Engine, host_unaffected: None
) -> None:
    if not _layer(sandbox, "pid_namespace"):
        pytest.skip("doctor reports no PID namespace here: /proc shows every host process")
    marker = f"EXECLENS-HOST-ARGV-{uuid.uuid4().hex}"
    host_process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", marker])
    try:
        _wait_for_argv(host_process.pid, marker)
        program = (
            "import os\n"
            "def attack(marker, host_pids):\n"
            "    visible, found = [], []\n"
            "    for entry in os.listdir('/proc'):\n"
            "        if not entry.isdigit():\n"
            "            continue\n"
            "        visible.append(int(entry))\n"
            "        try:\n"
            "            if marker.encode() in open(f'/proc/{entry}/cmdline', 'rb').read():\n"
            "                found.append(entry)\n"
            "        except OSError:\n"
            "            pass\n"
            "    direct = []\n"
            "    for pid in host_pids:\n"
            "        try:\n"
            "            direct.append(open(f'/proc/{pid}/cmdline', 'rb').read().decode())\n"
            "        except OSError as exc:\n"
            "            direct.append(type(exc).__name__)\n"
            "    return [found, direct, len(visible)]\n"
        )
        host_pids = [host_process.pid, os.getpid()]
        outcome = run(sandbox, program, call=f"attack({marker!r}, {host_pids!r})")
    finally:
        host_process.kill()
        host_process.wait()
    assert outcome.status is Status.OK, outcome.message
    found, direct, visible = outcome.decoded()
    assert found == []
    assert marker not in repr(direct)
    # Only the sandbox's own processes: the server (pid 1), its zygote, this child.
    assert visible <= 4


def test_attack_killing_the_parent(sandbox: Engine, host_unaffected: None) -> None:
    program = (
        "import os, signal\n"
        "def f():\n"
        "    try:\n"
        "        os.kill(os.getppid(), signal.SIGKILL)\n"
        "        return 'sent'\n"
        "    except OSError as exc:\n"
        "        return type(exc).__name__\n"
    )
    outcome = run(sandbox, program, call="f()")
    assert outcome.status is Status.OK
    assert outcome.decoded() == "PermissionError"


def test_attack_kill_minus_one(sandbox: Engine, host_unaffected: None) -> None:
    if not (_layer(sandbox, "unprivileged_uid") or _layer(sandbox, "pid_namespace")):
        pytest.skip(
            "kill(-1) is only run when doctor reports an unprivileged uid or PID "
            "namespace confining it; neither is active here"
        )
    program = "import os, signal\nos.kill(-1, signal.SIGKILL)\n"
    outcome = run(sandbox, program, call="'survived'")
    # Linux never delivers kill(-1) to the caller; the only processes of its uid are its own.
    assert outcome.status is Status.OK
    assert outcome.decoded() == "survived"


def test_attack_fork_bomb(sandbox: Engine, host_unaffected: None) -> None:
    if not (_layer(sandbox, "unprivileged_uid") and _layer(sandbox, "process_limit")):
        pytest.skip(
            "the fork bomb is only run when doctor reports an unprivileged uid and a "
            "process limit confining it; they are not both active here"
        )
    program = (
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    )
    outcome = run(sandbox, program, limits=Limits(wall_time=1.5, max_processes=16))
    assert outcome.status is Status.TIMEOUT


def test_attack_sys_exit_zero_is_not_success(sandbox: Engine, host_unaffected: None) -> None:
    outcome = run(sandbox, "import sys\nsys.exit(0)\n", call="'unreachable'")
    assert outcome.status is Status.EXCEPTION
    assert outcome.exception is not None and outcome.exception.type == "SystemExit"


def test_attack_os_exit_zero_is_not_success(sandbox: Engine, host_unaffected: None) -> None:
    outcome = run(sandbox, "import os\nos._exit(0)\n", call="'unreachable'")
    assert outcome.status is Status.CRASHED
    assert outcome.exit_code == 0
    assert "without returning a result" in outcome.message


def test_attack_ctypes_segfault(sandbox: Engine, host_unaffected: None) -> None:
    outcome = run(sandbox, "import ctypes\nctypes.string_at(0)\n")
    assert outcome.status is Status.CRASHED
    assert outcome.signal == 11


def test_attack_deep_recursion(sandbox: Engine, host_unaffected: None) -> None:
    outcome = run(sandbox, "def f(n):\n    return f(n + 1)\n", call="f(0)")
    assert outcome.status is Status.EXCEPTION
    assert outcome.exception is not None and outcome.exception.type == "RecursionError"


def test_attack_deep_recursion_past_the_c_stack(sandbox: Engine, host_unaffected: None) -> None:
    program = "import sys\nsys.setrecursionlimit(10**7)\ndef f(n):\n    return f(n + 1)\n"
    outcome = run(sandbox, program, call="f(0)")
    # 3.11 keeps Python frames off the C stack, so this ends by memory, time or a crash.
    assert outcome.status in (
        Status.CRASHED,
        Status.MEMORY_EXCEEDED,
        Status.EXCEPTION,
        Status.TIMEOUT,
    )


def test_attack_threads_left_running(sandbox: Engine, host_unaffected: None) -> None:
    program = (
        "import threading, time\n"
        "def spin():\n"
        "    while True:\n"
        "        time.sleep(0.01)\n"
        "for _ in range(4):\n"
        "    threading.Thread(target=spin).start()\n"
    )
    outcome = run(sandbox, program, call="threading.active_count()")
    assert outcome.status is Status.OK
    assert outcome.decoded() == 5


def test_attack_monkeypatching_builtins_does_not_leak(
    sandbox: Engine, host_unaffected: None
) -> None:
    patched = "import builtins\nbuiltins.len = lambda obj: 42\nbuiltins.print = None\n"
    clean = "def f(x):\n    return len(x)\n"
    limits = Limits(wall_time=2.0)
    # Same program in one batch (one child), then a different program afterwards.
    batch = sandbox.submit_batch(
        [
            Job(patched, call="len('abc')", limits=limits),
            Job(patched, call="len('abcd')", limits=limits),
        ]
    )
    assert [f.result().decoded() for f in batch] == [42, 42]
    mixed = list(sandbox.map([Job(clean, call="f('abc')", limits=limits)] * 3, batch_size=3))
    assert [o.decoded() for o in mixed] == [3, 3, 3]
    # A patch made by one input of a batch is undone before the next input.
    first = "import builtins\nbuiltins.sorted = lambda x: 'patched'\n"
    futures = sandbox.submit_batch(
        [
            Job(first, call="sorted([2, 1])", limits=limits),
            Job(first, call="__builtins__.sorted is sorted", limits=limits),
        ]
    )
    assert [f.result().decoded() for f in futures] == ["patched", True]


def test_attack_garbage_written_to_inherited_fds(sandbox: Engine, host_unaffected: None) -> None:
    program = (
        "import os\n"
        "for fd in range(0, 1024):\n"
        "    try:\n"
        "        os.write(fd, b'\\x00\\x00\\x00\\x10garbage-garbage!')\n"
        "    except OSError:\n"
        "        pass\n"
    )
    outcome = run(sandbox, program, call="'done'")
    assert outcome.status is Status.CRASHED
    assert "result channel" in outcome.message


def test_attack_forged_result_frame(sandbox: Engine, host_unaffected: None) -> None:
    program = (
        "import json, os, struct\n"
        "body = json.dumps({'t': '0' * 16, 'i': 0, 'status': 'ok',\n"
        "                   'value': {'__type__': 'int', '__value__': 1}}).encode()\n"
        "for fd in range(3, 256):\n"
        "    try:\n"
        "        os.write(fd, struct.pack('>I', len(body)) + body)\n"
        "    except OSError:\n"
        "        pass\n"
        "os._exit(0)\n"
    )
    outcome = run(sandbox, program)
    assert outcome.status is Status.CRASHED


def test_attack_lying_eq_and_repr(sandbox: Engine, host_unaffected: None) -> None:
    program = (
        "class Liar:\n"
        "    def __init__(self):\n"
        "        self.real = 'no'\n"
        "    def __eq__(self, other):\n"
        "        return True\n"
        "    __hash__ = object.__hash__\n"
        "    def __repr__(self):\n"
        "        return '5'\n"
        "def f():\n"
        "    return Liar()\n"
    )
    outcome = run(sandbox, program, call="f()")
    assert outcome.status is Status.OK
    value = outcome.decoded()
    assert isinstance(value, ObjectRecord) and value.type_name == "Liar"
    assert value.attributes == {"real": "no"}
    for mode in ("exact", "python", "tolerant"):
        assert not values_equal(value, 5, mode)
        assert not values_equal(5, value, mode)


# ------------------------------------------------ host files (the minimal root, issue 19)
_READ_ALL = (
    "import os\n"
    "def attack(paths):\n"
    "    got = []\n"
    "    for path in paths:\n"
    "        try:\n"
    "            with open(path, 'rb') as handle:\n"
    "                got.append(handle.read().decode('latin-1'))\n"
    "        except OSError as exc:\n"
    "            got.append(type(exc).__name__)\n"
    "    return got\n"
)


def _require_minimal_root(sandbox: Engine) -> None:
    if not _layer(sandbox, "filesystem"):
        pytest.skip("doctor reports no filesystem layer (minimal root) here")


@pytest.fixture
def fake_home_token() -> Iterator[tuple[Path, str]]:
    """A user's Hugging Face token, mode 0644, in a fake home directory under /home."""
    home = Path("/home") / f"execlens-attack-{uuid.uuid4().hex}"
    secret = f"hf_EXECLENS_TOKEN_{uuid.uuid4().hex}"
    token = home / ".cache" / "huggingface" / "token"
    try:
        token.parent.mkdir(parents=True)
    except OSError as exc:
        pytest.skip(f"cannot create a fake home directory under /home: {exc}")
    try:
        for directory in (home, home / ".cache", token.parent):
            directory.chmod(0o755)
        token.write_text(secret)
        token.chmod(0o644)
        yield token, secret
    finally:
        token.unlink(missing_ok=True)
        for directory in (token.parent, home / ".cache", home):
            directory.rmdir()


@pytest.fixture
def parent_dir_file() -> Iterator[tuple[Path, str]]:
    """A world-readable file in the project's parent directory (another repository's)."""
    secret = f"EXECLENS-NEIGHBOUR-{uuid.uuid4().hex}"
    path = REPO_ROOT.parent / f"execlens-attack-{uuid.uuid4().hex}.txt"
    try:
        path.write_text(secret)
    except OSError as exc:
        pytest.skip(f"cannot write in the project's parent directory: {exc}")
    path.chmod(0o644)
    try:
        yield path, secret
    finally:
        path.unlink(missing_ok=True)


def test_attack_reading_a_0644_token_in_a_home_directory(
    sandbox: Engine, host_unaffected: None, fake_home_token: tuple[Path, str]
) -> None:
    _require_minimal_root(sandbox)
    token, secret = fake_home_token
    program = _READ_ALL + (
        "def listing():\n"
        "    try:\n"
        "        return os.listdir('/home')\n"
        "    except OSError as exc:\n"
        "        return type(exc).__name__\n"
    )
    outcome = run(sandbox, program, call=f"[attack([{str(token)!r}]), listing()]")
    assert outcome.status is Status.OK, outcome.message
    assert secret not in repr(outcome.decoded())
    assert outcome.decoded() == [["FileNotFoundError"], "FileNotFoundError"]


def test_attack_reading_a_file_in_the_projects_parent_directory(
    sandbox: Engine, host_unaffected: None, parent_dir_file: tuple[Path, str]
) -> None:
    _require_minimal_root(sandbox)
    path, secret = parent_dir_file
    readme = REPO_ROOT / "README.md"  # the project itself is not in the view either
    program = _READ_ALL + (
        "def listing(path):\n"
        "    try:\n"
        "        return sorted(os.listdir(path))\n"
        "    except OSError as exc:\n"
        "        return type(exc).__name__\n"
    )
    call = f"[attack([{str(path)!r}, {str(readme)!r}]), listing({str(REPO_ROOT.parent)!r})]"
    outcome = run(sandbox, program, call=call)
    assert outcome.status is Status.OK, outcome.message
    got, listed = outcome.decoded()
    assert secret not in repr(outcome.decoded())
    assert got == ["FileNotFoundError", "FileNotFoundError"]
    # Only the way down to the project's program venv and execlens's source, if at all.
    assert path.name not in repr(listed)


def test_attack_reading_etc_passwd_sees_only_the_synthetic_one(
    sandbox: Engine, host_unaffected: None
) -> None:
    _require_minimal_root(sandbox)
    outcome = run(sandbox, _READ_ALL, call="attack(['/etc/passwd', '/etc/group'])")
    assert outcome.status is Status.OK, outcome.message
    passwd, group = outcome.decoded()
    uids = {report.uid for report in sandbox.server_reports()}
    names = {line.split(":")[0] for line in passwd.splitlines()}
    ids = {int(line.split(":")[2]) for line in passwd.splitlines()}
    assert names <= {"root", "sandbox"} and ids <= {0} | {u for u in uids if u is not None}
    host_names = {
        line.split(":")[0]
        for line in Path("/etc/passwd").read_text().splitlines()
        if line and not line.startswith("#")
    } - {"root"}
    assert not host_names & names
    assert {line.split(":")[0] for line in group.splitlines()} <= {"root", "sandbox"}


def test_attack_reading_etc_shadow_and_host_configuration(
    sandbox: Engine, host_unaffected: None
) -> None:
    _require_minimal_root(sandbox)
    paths = [
        "/etc/shadow",
        "/etc/hostname",
        "/etc/resolv.conf",
        "/etc/machine-id",
        "/etc/os-release",
        "/etc/ssh/ssh_host_rsa_key.pub",
        "/root/.bashrc",
    ]
    walk = (
        "def etc_files():\n"
        "    found = []\n"
        "    for top, dirs, files in os.walk('/etc'):\n"
        "        found += [os.path.join(top, f) for f in files\n"
        "                  if not os.path.islink(os.path.join(top, f))]\n"
        "    return sorted(found)\n"
    )
    outcome = run(sandbox, _READ_ALL + walk, call=f"[attack({paths!r}), etc_files()]")
    assert outcome.status is Status.OK, outcome.message
    got, files = outcome.decoded()
    assert got == ["FileNotFoundError"] * len(paths)
    # Whatever this distribution keeps in /etc: the sandbox's regular files there are
    # its synthetic ones and those the report lists as bound (links, e.g. Debian's
    # /etc/alternatives met on the way to a tool, are names, not contents).
    synthetic = {"group", "hosts", "nsswitch.conf", "passwd", "protocols", "services"}
    visible = set(sandbox.isolation_report().visible)
    unexpected = [f for f in files if f.removeprefix("/etc/") not in synthetic and f not in visible]
    assert unexpected == []


def test_attack_symlink_out_of_the_scratch_dir(
    sandbox: Engine,
    host_unaffected: None,
    fake_home_token: tuple[Path, str],
    parent_dir_file: tuple[Path, str],
) -> None:
    _require_minimal_root(sandbox)
    token, secret = fake_home_token
    neighbour, neighbour_secret = parent_dir_file
    program = _READ_ALL + (
        "def escape(targets):\n"
        "    links = []\n"
        "    for index, target in enumerate(targets):\n"
        "        os.symlink(target, f'link{index}')\n"
        "        links.append(f'link{index}')\n"
        "    os.symlink('/', 'root')\n"
        "    links += [f'root{t}' for t in targets]\n"
        "    return attack(links)\n"
    )
    targets = [str(token), str(neighbour), "/etc/shadow", str(REPO_ROOT / "README.md")]
    outcome = run(sandbox, program, call=f"escape({targets!r})")
    assert outcome.status is Status.OK, outcome.message
    assert secret not in repr(outcome.decoded())
    assert neighbour_secret not in repr(outcome.decoded())
    assert outcome.decoded() == ["FileNotFoundError"] * (2 * len(targets))


def test_attack_dotdot_out_of_the_scratch_dir(
    sandbox: Engine,
    host_unaffected: None,
    fake_home_token: tuple[Path, str],
    parent_dir_file: tuple[Path, str],
) -> None:
    _require_minimal_root(sandbox)
    token, secret = fake_home_token
    neighbour, neighbour_secret = parent_dir_file
    up = "../" * 12
    paths = [
        up + str(token).lstrip("/"),
        up + str(neighbour).lstrip("/"),
        up + "etc/shadow",
        "./" + up + "etc/hostname",
    ]
    program = _READ_ALL + (
        "def climb(paths):\n"
        "    here = os.getcwd()\n"
        "    return [attack(paths), sorted(os.listdir('../..')), here]\n"
    )
    outcome = run(sandbox, program, call=f"climb({paths!r})")
    assert outcome.status is Status.OK, outcome.message
    got, top, here = outcome.decoded()
    assert secret not in repr(got) and neighbour_secret not in repr(got)
    assert got == ["FileNotFoundError"] * len(paths)
    assert here.startswith("/tmp/")
    assert "home" not in top  # ../.. of the scratch dir is the minimal root


def test_attack_reading_host_files_through_proc_1_root(
    sandbox: Engine, host_unaffected: None, fake_home_token: tuple[Path, str]
) -> None:
    _require_minimal_root(sandbox)
    token, secret = fake_home_token
    paths = [
        f"/proc/1/root{token}",
        "/proc/1/root/etc/shadow",
        "/proc/1/root/etc/hostname",
        f"/proc/1/cwd{token}",
        f"/proc/self/root{token}",
        "/proc/self/root/etc/shadow",
        f"/proc/2/root{token}",
    ]
    outcome = run(sandbox, _READ_ALL, call=f"attack({paths!r})")
    assert outcome.status is Status.OK, outcome.message
    assert secret not in repr(outcome.decoded())
    assert all(item.endswith("Error") for item in outcome.decoded()), outcome.decoded()


def test_attack_codeio_function_reading_a_host_file_during_collect(
    fake_home_token: tuple[Path, str], parent_dir_file: tuple[Path, str]
) -> None:
    from execlens.synth import SYNTH_PRELOAD, collect_functions

    token, secret = fake_home_token
    neighbour, neighbour_secret = parent_dir_file
    refcode = (
        "def main_solution(n):\n"
        f"    paths = [{str(token)!r}, {str(neighbour)!r}, '/etc/hostname']\n"
        "    found = []\n"
        "    for path in paths:\n"
        "        try:\n"
        "            found.append(open(path).read()[:64])\n"
        "        except OSError as exc:\n"
        "            found.append(type(exc).__name__)\n"
        "    return {'n': n, 'found': found}\n"
    )
    record = {
        "id": "attack/host-file",
        "keep": 3,
        "stored_ios": None,
        "refcode": refcode,
        "input_generator": (
            "import random\ndef input_generator():\n    return {'n': random.randint(0, 9)}\n"
        ),
    }
    with Engine(workers=1, preload=SYNTH_PRELOAD) as engine:
        if not engine.isolation_report().active("filesystem"):
            pytest.skip("doctor reports no filesystem layer (minimal root) here")
        [out] = collect_functions(engine, [record])
    dumped = repr(out)
    assert secret not in dumped and neighbour_secret not in dumped
    assert out.get("pairs"), out.get("reject")
    for pair in out["pairs"]:
        assert pair["output"]["found"] == ["FileNotFoundError"] * 3
