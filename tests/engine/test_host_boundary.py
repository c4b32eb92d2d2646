"""Attacks on the host and on the next job through what the kernel shares (issue 23).

Each runs hostile code through the real engine, with whatever isolation ``auto`` gets on
this machine (root, or a user namespace of each server's own); ``test_deployments.py``
runs them again as root without ``CAP_SYS_ADMIN`` and as a non-root user.  Named cases:
the caller's ``/proc/<pid>/environ`` and ``mem`` and signals; a link planted where the
next scratch dir would go, then a server crash; System V shared memory between two jobs
and two engines; ``/dev/shm`` between jobs; a write under a submount of a ``mount_ro``
directory; ``AF_VSOCK`` and other socket families.
"""

from __future__ import annotations

import ctypes
import os
import signal
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from execlens.engine import Engine, Job, Limits, Outcome, Status

pytestmark = pytest.mark.attack

FAST = Limits(wall_time=5.0, memory_mb=256)
SECRET_ENV = "EXECLENS_CALLER_SECRET"


def run(engine: Engine, program: str, call: str | None = None) -> Outcome:
    return engine.run(Job(program, call=call, limits=FAST))


def _layers(engine: Engine, *names: str) -> None:
    report = engine.isolation_report()
    missing = [name for name in names if not report.active(name)]
    if missing:
        pytest.skip(f"doctor reports no {', '.join(missing)} layer here")


# ----------------------------------------------------------- the caller's process
_CALLER = (
    "import os, signal\n"
    "def probe(pid, address):\n"
    "    got = {}\n"
    "    for who, target in (('caller', pid), ('parent', os.getppid())):\n"
    "        for name in ('environ', 'mem', 'maps', 'root/etc/hostname'):\n"
    "            try:\n"
    "                with open(f'/proc/{target}/{name}', 'rb') as handle:\n"
    "                    if name == 'mem':\n"
    "                        handle.seek(address)\n"
    "                    got[f'{who} {name}'] = handle.read(4096).decode('latin-1')\n"
    "            except (OSError, ValueError) as exc:\n"
    "                got[f'{who} {name}'] = type(exc).__name__\n"
    "        try:\n"
    "            os.kill(target, signal.SIGUSR1)\n"
    "            got[f'{who} signal'] = 'sent'\n"
    "        except OSError as exc:\n"
    "            got[f'{who} signal'] = type(exc).__name__\n"
    "    return got\n"
)


def test_attack_reading_the_callers_environ_and_memory_and_signalling_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A trainer's HF_TOKEN in its environment and memory, read through /proc by pid."""
    secret = f"hf_CALLER_{uuid.uuid4().hex}"
    monkeypatch.setenv(SECRET_ENV, secret)
    in_memory = ctypes.create_string_buffer(secret.encode() * 64)
    received: list[int] = []
    previous = signal.signal(signal.SIGUSR1, lambda number, frame: received.append(number))
    try:
        with Engine(workers=1) as engine:
            outcome = run(
                engine, _CALLER, call=f"probe({os.getpid()}, {ctypes.addressof(in_memory)})"
            )
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert outcome.status is Status.OK, outcome.message
    got = outcome.decoded()
    assert secret not in repr(got)
    assert received == [], "the sandbox signalled the process that started it"
    for key in ("caller environ", "caller mem", "parent environ", "parent mem"):
        assert got[key].endswith("Error"), (key, got[key])
    assert got["parent signal"] != "sent", "a job may signal its own zygote"


# ------------------------------------------------------------------ the scratch dir
@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A host file only its owner may read: what a planted link would hand over."""
    path = tmp_path / "victim"
    path.write_text("the host's")
    path.chmod(0o600)
    return path


def test_attack_links_planted_at_the_next_scratch_path_then_a_server_crash(
    victim: Path,
) -> None:
    """Links at every scratch path a next server could use, then the server is killed;
    the replacement must not chown, chmod or write through any of them."""
    before = victim.stat()
    program = (
        "import os\n"
        "def plant(victim, host_pid):\n"
        "    planted = []\n"
        "    here = os.getcwd()\n"
        "    names = [f'/tmp/execlens-scratch-{n}' for n in range(host_pid, host_pid + 64)]\n"
        "    names += ['/tmp/execlens-scratch', '/tmp/execlens-scratch/job',\n"
        "              os.path.join(os.path.dirname(here), 'job-next'),\n"
        "              os.path.join(here, 'job'), '/dev/shm/job', '/var/tmp/execlens-scratch']\n"
        "    for name in names:\n"
        "        try:\n"
        "            os.symlink(victim, name)\n"
        "            planted.append(name)\n"
        "        except OSError:\n"
        "            pass\n"
        "    return planted\n"
    )
    with Engine(workers=1) as engine:
        server = engine.isolation_report()
        pool = next(iter(engine._pools.values()))
        host_pid = pool.servers[0].pid
        outcome = run(engine, program, call=f"plant({str(victim)!r}, {host_pid})")
        assert outcome.status is Status.OK, outcome.message
        planted = outcome.decoded()
        os.kill(host_pid, signal.SIGKILL)  # the crash a job could cause
        # The request that meets the dead server fails (sandbox_error); the next runs
        # in its replacement.
        run(engine, "x = 1\n", call="x")
        after_crash = run(engine, "import os\n", call="sorted(os.listdir('.'))")
        assert after_crash.status is Status.OK, after_crash.message
        assert after_crash.decoded() == [], "the new scratch dir is not empty"
        assert engine.restarts >= 1
    after = victim.stat()
    assert (after.st_uid, after.st_gid, stat.S_IMODE(after.st_mode)) == (
        before.st_uid,
        before.st_gid,
        stat.S_IMODE(before.st_mode),
    )
    assert victim.read_text() == "the host's"
    # What it planted stayed in its own tmpfs: nothing in the host's /tmp leads anywhere.
    for name in planted:
        assert not (os.path.islink(name) and os.readlink(name) == str(victim)), name
    assert server.method in ("root", "user namespace", "landlock")


def test_a_deep_tree_and_links_left_in_scratch_are_removed_without_following_them(
    victim: Path,
) -> None:
    """Deeper than Python's recursion limit, with unreadable directories and links to a
    host file: the next job still starts in an empty scratch dir, the file untouched."""
    before = victim.stat()
    program = (
        "import os\n"
        "def leave(victim, depth):\n"
        "    top = os.getcwd()\n"
        "    for level in range(depth):\n"
        "        os.mkdir('d')\n"
        "        os.chdir('d')\n"
        "        if level % 500 == 0:\n"
        "            os.symlink(victim, 'link')\n"
        "            os.symlink('/', 'root')\n"
        "    os.chdir(top)\n"
        "    os.mkdir('locked')\n"
        "    open('locked/file', 'w').close()\n"
        "    os.chmod('locked', 0)\n"
        "    os.chmod('.', 0)\n"
        "    return depth\n"
    )
    with Engine(workers=1) as engine:
        left = run(engine, program, call=f"leave({str(victim)!r}, 3000)")
        after = run(
            engine, "import os\n", call="[sorted(os.listdir('.')), oct(os.stat('.').st_mode)]"
        )
    assert left.status is Status.OK, left.message
    assert after.status is Status.OK, after.message
    assert after.decoded() == [[], oct(0o40700)]
    now = victim.stat()
    assert (now.st_uid, now.st_gid, now.st_mode) == (before.st_uid, before.st_gid, before.st_mode)


# ------------------------------------------------------------------- IPC and shm
_SYSV = (
    "import ctypes\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "libc.shmat.restype = ctypes.c_void_p\n"
    "IPC_CREAT = 0o1000\n"
    "def leave(key, message, size):\n"
    "    ident = libc.shmget(key, size, IPC_CREAT | 0o666)\n"
    "    if ident < 0:\n"
    "        return ['shmget', ctypes.get_errno()]\n"
    "    address = libc.shmat(ident, None, 0)\n"
    "    ctypes.memmove(address, message, len(message))\n"
    "    ctypes.memset(address + len(message), 1, size - len(message))\n"
    "    return ['left', ident]\n"
    "def find(key, size):\n"
    "    ident = libc.shmget(key, 0, 0)\n"
    "    if ident < 0:\n"
    "        return ['absent', ctypes.get_errno()]\n"
    "    address = libc.shmat(ident, None, 0)\n"
    "    return ['found', ctypes.string_at(address, 64)]\n"
    "def segments():\n"
    "    # Those not already removed (SHM_DEST: a dying process may still detach one).\n"
    "    with open('/proc/sysvipc/shm') as handle:\n"
    "        rows = [line.split() for line in handle.read().splitlines()[1:]]\n"
    "    return sum(1 for row in rows if not int(row[2], 8) & 0o1000)\n"
)


def test_attack_sysv_shared_memory_between_two_jobs_and_two_engines() -> None:
    key = 0x5EC0000 + os.getpid() % 0xFFFF
    message = b"EXECLENS-SYSV-" + uuid.uuid4().hex.encode()
    size = 64 * 1024 * 1024
    with Engine(workers=1) as first, Engine(workers=1) as second:
        _layers(first, "ipc_namespace")
        left = run(first, _SYSV, call=f"leave({key}, {message!r}, {size})")
        assert left.status is Status.OK, left.message
        assert left.decoded()[0] == "left", left.decoded()
        same_server = run(first, _SYSV, call=f"[find({key}, {size}), segments()]")
        other_engine = run(second, _SYSV, call=f"[find({key}, {size}), segments()]")
    for outcome in (same_server, other_engine):
        assert outcome.status is Status.OK, outcome.message
        (found, _), count = outcome.decoded()
        assert found == "absent" and count == 0, outcome.decoded()
    # Nor in the host's own IPC namespace.
    with open("/proc/sysvipc/shm") as handle:
        host_keys = {int(line.split()[0]) for line in handle.read().splitlines()[1:]}
    assert key not in host_keys


def test_dev_shm_is_the_jobs_own_and_empty_for_the_next() -> None:
    program = (
        "import os\n"
        "def write(name):\n"
        "    with open('/dev/shm/' + name, 'w') as handle:\n"
        "        handle.write('left behind')\n"
        "    return sorted(os.listdir('/dev/shm'))\n"
        "def look():\n"
        "    return sorted(os.listdir('/dev/shm'))\n"
    )
    name = f"execlens-{uuid.uuid4().hex}"
    with Engine(workers=1) as engine:
        _layers(engine, "filesystem", "ipc_namespace")
        wrote = run(engine, program, call=f"write({name!r})")
        looked = run(engine, program, call="look()")
    assert wrote.status is Status.OK and wrote.decoded() == [name], wrote.message
    assert looked.status is Status.OK and looked.decoded() == [], looked.decoded()
    assert not os.path.exists(f"/dev/shm/{name}")


# ------------------------------------------------------------------- mount_ro
@pytest.fixture
def tree_with_submount(tmp_path: Path) -> Iterator[Path]:
    """A directory holding another mount: the harness's (``EXECLENS_TEST_SUBMOUNT``), or
    a tmpfs this test mounts as root and removes again."""
    prepared = os.environ.get("EXECLENS_TEST_SUBMOUNT")
    if prepared:
        yield Path(prepared)
        return
    if os.geteuid() != 0:
        pytest.skip("mounting a submount needs root (test_deployments.py prepares one)")
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    (data / "top.txt").write_text("top")
    libc = ctypes.CDLL(None, use_errno=True)
    sub = str(data / "sub").encode()
    if libc.mount(b"tmpfs", sub, b"tmpfs", 0, b"size=1m"):
        pytest.skip(f"cannot mount a tmpfs here: {os.strerror(ctypes.get_errno())}")
    try:
        (data / "sub" / "inner.txt").write_text("inner")
        yield data
    finally:
        libc.umount2(sub, 2)


def test_attack_writing_under_a_submount_of_a_mount_ro_directory(
    tree_with_submount: Path,
) -> None:
    data = tree_with_submount
    program = (
        "import os\n"
        "def attack(data):\n"
        "    done = []\n"
        "    for path in ('top.txt', 'new.txt', 'sub/inner.txt', 'sub/new.txt'):\n"
        "        try:\n"
        "            with open(os.path.join(data, path), 'a') as handle:\n"
        "                handle.write('pwned')\n"
        "            done.append(path)\n"
        "        except OSError as exc:\n"
        "            done.append(type(exc).__name__)\n"
        "    return [done, open(os.path.join(data, 'sub/inner.txt')).read()]\n"
    )
    with Engine(workers=1, mount_ro=[str(data)]) as engine:
        _layers(engine, "filesystem")
        outcome = run(engine, program, call=f"attack({str(data)!r})")
    assert outcome.status is Status.OK, outcome.message
    done, inner = outcome.decoded()
    assert inner == "inner", "the submount is not visible read-only"
    assert all(item.endswith("Error") for item in done), done
    assert not (data / "sub" / "new.txt").exists()
    assert (data / "sub" / "inner.txt").read_text() == "inner"


# ------------------------------------------------------------------- sockets
def test_attack_vsock_and_other_socket_families() -> None:
    # The raw system call, so a family with high bits set reaches the filter as such.
    program = (
        "import ctypes, os, platform\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.syscall.argtypes = [ctypes.c_long] * 4\n"
        "SOCKET = {'x86_64': 41, 'aarch64': 198}.get(platform.machine())\n"
        "def families():\n"
        "    got = {}\n"
        "    for name, family, kind, proto in (\n"
        "            ('vsock', 40, 1, 0), ('alg', 38, 5, 0), ('packet', 17, 3, 0),\n"
        "            ('bluetooth', 31, 1, 0), ('vsock-high-bits', 40 | (1 << 32), 1, 0),\n"
        "            ('netlink-audit', 16, 3, 9), ('unix', 1, 1, 0), ('inet', 2, 1, 0),\n"
        "            ('inet6', 10, 2, 0), ('netlink-route', 16, 3, 0)):\n"
        "        fd = libc.syscall(SOCKET, family, kind, proto)\n"
        "        if fd >= 0:\n"
        "            os.close(fd)\n"
        "            got[name] = 'created'\n"
        "        else:\n"
        "            got[name] = os.strerror(ctypes.get_errno())\n"
        "    return got\n"
    )
    import platform

    if platform.machine() not in ("x86_64", "aarch64"):
        pytest.skip("the socket system call's number is only listed for x86_64 and aarch64")
    with Engine(workers=1) as engine:
        _layers(engine, "seccomp", "network")
        network = engine.isolation_report().layer("network")
        outcome = run(engine, program, call="families()")
    assert outcome.status is Status.OK, outcome.message
    got = outcome.decoded()
    for name in ("vsock", "alg", "packet", "bluetooth", "vsock-high-bits", "netlink-audit"):
        assert got[name] != "created", (name, got)
    # What honest programs make still works (a private network namespace, or unix only).
    assert got["unix"] == "created"
    if network is not None and network.via != "seccomp":
        assert got["inet"] == got["inet6"] == got["netlink-route"] == "created", got


def test_a_job_signalling_its_neighbours_reaches_only_its_own_processes() -> None:
    """kill(-1) and a signal to every pid it can see: the job's own children die, its
    server and zygote (same uid in a one-uid user namespace) do not."""
    program = (
        "import os, signal, subprocess\n"
        "def spray():\n"
        "    child = subprocess.Popen(['/bin/sh', '-c', 'sleep 30'])\n"
        "    refused = 0\n"
        "    for entry in os.listdir('/proc'):\n"
        "        if entry.isdigit() and int(entry) not in (os.getpid(), child.pid):\n"
        "            try:\n"
        "                os.kill(int(entry), signal.SIGKILL)\n"
        "            except OSError:\n"
        "                refused += 1\n"
        "    child.kill(); child.wait()\n"
        "    return refused\n"
    )
    with Engine(workers=1) as engine:
        _layers(engine, "pid_namespace")
        restarts = engine.restarts
        outcome = run(engine, program, call="spray()")
        after = run(engine, "x = 1\n", call="x")
        assert engine.restarts == restarts
    assert outcome.status is Status.OK, outcome.message
    assert after.status is Status.OK and after.decoded() == 1


def test_a_forking_job_is_held_to_its_memory_as_a_whole() -> None:
    """Four processes of 48 MB each stay under a 64 MB limit one by one (RLIMIT_AS is per
    process) but not together: a cgroup counts the job, where one is delegated."""
    program = (
        "import os, time\n"
        "def grow():\n"
        "    children = []\n"
        "    for _ in range(4):\n"
        "        pid = os.fork()\n"
        "        if pid == 0:\n"
        "            block = bytearray(48 * 1024 * 1024)\n"
        "            time.sleep(3)\n"
        "            os._exit(0)\n"
        "        children.append(pid)\n"
        "    return [os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) for p in children]\n"
    )
    with Engine(workers=1) as engine:
        _layers(engine, "cgroup")
        outcome = engine.run(
            Job(program, call="grow()", limits=Limits(wall_time=20.0, memory_mb=64))
        )
    # The kernel's OOM killer ends a child (or the job): never four of 48 MB at once.
    assert not (outcome.status is Status.OK and outcome.decoded() == [0, 0, 0, 0]), outcome


def test_children_hold_no_capabilities_and_cannot_gain_any() -> None:
    program = (
        "import subprocess, sys\n"
        "READ = 'print(open(\"/proc/self/status\").read())'\n"
        "def fields(text):\n"
        "    return {k: v.strip() for k, v in (line.split(':', 1) for line in text.splitlines()\n"
        "            if line.startswith(('Cap', 'NoNewPrivs')))}\n"
        "def caps():\n"
        "    spawned = subprocess.run([sys.executable, '-c', READ],\n"
        "                             capture_output=True, text=True)\n"
        "    return [fields(open('/proc/self/status').read()), fields(spawned.stdout)]\n"
    )
    with Engine(workers=1) as engine:
        outcome = run(engine, program, call="caps()")
    assert outcome.status is Status.OK, outcome.message
    for status in outcome.decoded():  # the child, and a program it runs (after execve)
        for name in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
            assert int(status[name], 16) == 0, (name, status)
        assert status["NoNewPrivs"] == "1"


def test_attack_writing_into_the_users_home() -> None:
    home = Path.home()
    name = f"execlens-pwned-{uuid.uuid4().hex}"
    program = (
        "import os\n"
        "def attack(home, name):\n"
        "    for path in (os.path.join(home, name), os.path.expanduser('~/' + name)):\n"
        "        try:\n"
        "            open(path, 'w').write('pwned')\n"
        "        except OSError:\n"
        "            pass\n"
        "    return os.path.exists(os.path.join(home, name))\n"
    )
    with Engine(workers=1) as engine:
        outcome = run(engine, program, call=f"attack({str(home)!r}, {name!r})")
    assert outcome.status is Status.OK, outcome.message
    assert not (home / name).exists()


def test_scratch_and_dev_shm_together_hold_no_more_than_the_jobs_memory() -> None:
    """Files are not process memory: the scratch tmpfs is sized to the job's memory."""
    program = (
        "import os\n"
        "def fill():\n"
        "    written = 0\n"
        "    try:\n"
        "        for index in range(8):\n"
        "            for where in ('.', '/dev/shm'):\n"
        "                with open(f'{where}/block{index}', 'wb') as handle:\n"
        "                    handle.write(b'x' * (15 << 20))\n"
        "                written += 15\n"
        "    except OSError as exc:\n"
        "        return [written, exc.errno]\n"
        "    return [written, 0]\n"
    )
    limits = Limits(wall_time=20.0, memory_mb=64, file_size_mb=32)
    with Engine(workers=1) as engine:
        _layers(engine, "filesystem", "ipc_namespace")
        full = engine.run(Job(program, call="fill()", limits=limits))
        after = engine.run(Job("import os\n", call="os.listdir('/dev/shm')", limits=limits))
    assert full.status is Status.OK, full.message
    written, error = full.decoded()
    assert error == 28 and written <= 64, (written, error)  # ENOSPC
    assert after.status is Status.OK and after.decoded() == []
