"""The sandbox's minimal root: what a fork server binds into a fresh tmpfs, and the binding.

Two halves.  :func:`plan_root` runs in a server *before* isolation (in the host's view)
and lists what the program interpreter needs: its standard library, every ``sys.path``
entry, the program venv, execlens's own package, the interpreter binary, ``/bin/sh``,
two small tools and ``/sbin/ldconfig`` (``ctypes.util.find_library`` runs it), and — found
by reading the ``DT_NEEDED`` entries of every ELF file among them (``_elf``) — the exact
shared libraries those load, plus the loader itself.  Nothing is guessed by directory.
Paths a user asked for (``mount_ro``) join the list.  The plan is plain JSON, so the host
caches it after the first server and hands it to the next.

:func:`build_root` then, in the server's private mount namespace (owned by the host's
user namespace as root, or by a user namespace of the server's own), mounts a tmpfs,
recreates each planned path there (symlinks as symlinks, real files and directories as
bind mounts, read-only *recursively*: a submount of a ``mount_ro`` directory is as
read-only as the directory), adds the device nodes, a synthetic ``/etc``, a ``/proc``
(a fresh one for the PID namespace where it has one) and the writable places, and pivots
into it, detaching the host's root.  All of it happens once per server.

Writable, and nothing else (each a mount of one tmpfs, sized to the job's memory by the
server, so scratch files and shared memory together stay within it):

* ``/tmp/execlens-scratch/job`` — the job's scratch dir (its cwd, ``HOME``, ``TMPDIR``),
  emptied by the server between children;
* ``/dev/shm`` — the job's own POSIX shared memory and semaphores (``multiprocessing``'s
  locks, queues and pools), emptied between children too.

``/tmp`` itself is a read-only mount of that tmpfs (nothing can be planted beside the
scratch dir, whatever uid owns it); ``/var/tmp`` is an empty read-only directory.

``/etc`` holds, each decided on its own:

* ``passwd``, ``group`` — synthetic: root and the sandbox uid/gid only;
* ``nsswitch.conf`` — synthetic, ``files`` only, so glibc never dlopens a host NSS module;
* ``hosts`` — synthetic, ``localhost`` only (no host names, no resolver config);
* ``services``, ``protocols`` — synthetic, the well-known entries ``socket.getservbyname``
  and ``getprotobyname`` look up (no host-specific additions);
* ``localtime`` — the host's, read-only; ``/usr/share/zoneinfo`` for ``zoneinfo``;
* ``ld.so.cache`` — the host's, read-only: the loader's soname index (``ctypes``,
  ``find_library``); it names installed libraries, not their contents;
* nothing else: no ``shadow``, ``hostname``, ``resolv.conf``, ``ssl``, ``machine-id``…
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from execlens.engine._elf import Libraries
from execlens.engine._mounts import (
    MS_BIND,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_RDONLY,
    MS_REC,
    MS_REMOUNT,
    detach,
    libc,
    make_read_only,
    mount,
)
from execlens.engine._namespaces import HOSTNAME

__all__ = [
    "DEVICES",
    "RESERVED",
    "SCRATCH_DIR",
    "SCRATCH_PARENT",
    "SHM_DIR",
    "TOOLS",
    "build_root",
    "check_mount_ro",
    "mount_fresh_proc",
    "plan_root",
]

# The stdlib runs /bin/sh itself (os.system, os.popen, subprocess(shell=True)) and
# ``uname`` (platform.processor()); ``id`` lets a spawned process show which uid it got.
TOOLS = ("uname", "id")
_FIXED_TOOLS = ("/sbin/ldconfig",)
# ``/dev/tty`` names the caller's own controlling terminal; children have none, so it
# opens to ENXIO, as on the host (without the node, programs would see ENOENT instead).
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", "/dev/tty")
# Data the interpreter itself reads: time zones (zoneinfo, time.localtime) and the
# locale the servers run under (LANG=C.UTF-8).
_SYSTEM_DATA = (
    "/etc/localtime",
    "/etc/ld.so.cache",
    "/usr/share/zoneinfo",
    "/usr/lib/locale/C.utf8",
)
#: Private, writable tmpfs in every sandbox of the read-only host view.
SANDBOX_TMPFS_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
#: The server's scratch parent (not writable by the sandbox) and the job's scratch dir.
SCRATCH_PARENT = "/tmp/execlens-scratch"
SCRATCH_DIR = SCRATCH_PARENT + "/job"
#: The job's own shared memory (a mount of the scratch tmpfs's ``shm`` directory).
SHM_DIR = "/dev/shm"
_SHM_SOURCE = SCRATCH_PARENT + "/shm"
_MAX_LINKS = 40
_TMP_FLAGS = MS_NOSUID | MS_NODEV
# pivot_root has no glibc wrapper: the raw syscall, by architecture.
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}


# ---------------------------------------------------------------------------- plan
class _Plan:
    """Paths to recreate: symlinks met on the way (path → target) and real paths to bind."""

    def __init__(self) -> None:
        self.links: dict[str, str] = {}
        self.binds: set[str] = set()

    def _resolve(self, path: str, depth: int = 0) -> str | None:
        """The real path of ``path``, recording every symlink met on the way."""
        if depth > _MAX_LINKS:
            return None
        current = "/"
        parts = [p for p in path.split("/") if p and p != "."]
        for index, part in enumerate(parts):
            if part == "..":
                current = os.path.dirname(current)
                continue
            candidate = os.path.join(current, part)
            if os.path.islink(candidate):
                target = os.readlink(candidate)
                self.links[candidate] = target
                rest = "/".join(parts[index + 1 :])
                joined = os.path.join(current, target)  # an absolute target replaces it
                return self._resolve(os.path.join(joined, rest) if rest else joined, depth + 1)
            current = candidate
        return current

    def add(self, path: str) -> bool:
        """Make ``path`` resolve in the new root as on the host; ``False`` if missing."""
        real = self._resolve(os.path.abspath(path))
        if real is None or real == "/" or not os.path.exists(real):
            return False
        self.binds.add(real)
        return True


def is_under(path: str, directory: str) -> bool:
    """Whether ``path`` is ``directory`` or inside it (both absolute, normalised)."""
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def outermost(paths: Iterable[str]) -> list[str]:
    """``paths`` without those inside another one (binding the outer one covers them)."""
    kept: list[str] = []
    for path in sorted(set(paths)):
        if not any(is_under(path, outer) for outer in kept):
            kept.append(path)
    return kept


def _python_roots() -> list[str]:
    """The directories the program interpreter imports from (this process is it)."""
    # The standard library (sys.path holds it and lib-dynload too; not asked of
    # sysconfig, whose import would add a module the children inherit).
    roots = {os.path.dirname(os.__file__)}
    # The cwd entry ``-m`` puts first is ``/`` for a server: never the whole host.
    roots.update(p for p in sys.path if p and p != "/" and os.path.exists(p))
    if sys.prefix != sys.base_prefix:
        roots.add(sys.prefix)  # a venv: pyvenv.cfg, bin/python, its site-packages
    # execlens itself, wherever a link on the path leads (see _process._execlens_root).
    roots.add(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    return sorted(roots)


def _extension_modules(roots: Sequence[str]) -> list[str]:
    """Every shared object under the import roots (extension modules, bundled libs)."""
    found = []
    for root in outermost(os.path.realpath(r) for r in roots):
        if os.path.isfile(root):
            continue
        for directory, _, files in os.walk(root):
            for name in files:
                if name.endswith(".so") or ".so." in name:
                    found.append(os.path.join(directory, name))
    return found


# Where the view's own structure lives: a user's directory may not replace these.
RESERVED = ("/", "/proc", "/dev", "/etc", *SANDBOX_TMPFS_DIRS)


def check_mount_ro(path: str) -> str:
    """The real path of a ``mount_ro`` entry; ``ValueError``/``FileNotFoundError`` if unusable."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"mount_ro path {path} does not exist")
    real = os.path.realpath(path)
    if real in RESERVED:
        raise ValueError(
            f"mount_ro path {path} would replace the sandbox's own {real}; "
            "give a directory below it"
        )
    return real


def plan_root(mount_ro: Sequence[str] = ()) -> dict[str, Any]:
    """What the minimal root must hold for this interpreter, as JSON-ready lists.

    ``{"links": [[path, target]...], "binds": [real paths], "python": [import roots],
    "libraries": N, "mount_ro": [...]}``.  Runs in the server before any isolation.
    """
    plan = _Plan()
    python = _python_roots()
    for root in python:
        plan.add(root)
    executables = [sys.executable, os.path.realpath(sys.executable), "/bin/sh"]
    server_path = os.environ.get("PATH", "/usr/bin:/bin")
    executables += [found for tool in TOOLS if (found := shutil.which(tool, path=server_path))]
    # ctypes.util.find_library runs this exact path (``ldconfig -p`` reads ld.so.cache).
    executables += [path for path in _FIXED_TOOLS if os.path.exists(path)]
    libraries = Libraries()
    for path in executables:
        plan.add(path)
        libraries.add(path)
    for path in _extension_modules(python):  # already inside a bound root
        libraries.add(path)
    for library in sorted(libraries.found):
        plan.add(library)
    for path in _SYSTEM_DATA:
        plan.add(path)
    user = []
    for path in mount_ro:
        check_mount_ro(path)
        if not plan.add(path):
            raise FileNotFoundError(f"mount_ro path {path} does not exist")
        user.append(os.path.realpath(path))
    binds = outermost(plan.binds)
    links = {k: v for k, v in plan.links.items() if not any(is_under(k, b) for b in binds)}
    return {
        "links": sorted(links.items()),
        "binds": binds,
        "python": sorted({os.path.realpath(p) for p in python}),
        "libraries": len(libraries.found),
        "mount_ro": user,
    }


# --------------------------------------------------------------------------- build
def _pivot_root(new_root: str) -> None:
    """Make ``new_root`` the root and detach the old one (no way back to it remains)."""
    number = _SYS_PIVOT_ROOT.get(os.uname().machine)
    os.chdir(new_root)
    if number is not None and libc.syscall(number, b".", b".") == 0:
        # The old root now sits on top of the new one, at "/": detach it.
        detach(".")
    else:  # an architecture without a known number: chroot (seccomp denies children it)
        os.chroot(".")
    os.chdir("/")


def _mkdirs(path: str) -> None:
    os.makedirs(path, mode=0o755, exist_ok=True)


def _bind(fd: int, target: str, is_dir: bool, flags: int) -> None:
    if is_dir:
        _mkdirs(target)
    else:
        _mkdirs(os.path.dirname(target))
        if not os.path.lexists(target):
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
    mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
    make_read_only(target, flags)


_SERVICES = (
    ("ftp", 21),
    ("ssh", 22),
    ("telnet", 23),
    ("smtp", 25),
    ("domain", 53),
    ("http", 80),
    ("pop3", 110),
    ("ntp", 123),
    ("imap", 143),
    ("https", 443),
)
_PROTOCOLS = (("ip", 0, "IP"), ("icmp", 1, "ICMP"), ("tcp", 6, "TCP"), ("udp", 17, "UDP"))


def _etc_files(uid: int | None, gid: int | None) -> dict[str, str]:
    own_uid = uid if uid is not None else os.getuid()
    own_gid = gid if gid is not None else os.getgid()
    passwd = "root:x:0:0:root:/root:/usr/sbin/nologin\n"
    group = "root:x:0:\n"
    if own_uid != 0:
        passwd += f"sandbox:x:{own_uid}:{own_gid}:execlens sandbox:/tmp:/usr/sbin/nologin\n"
    if own_gid != 0:
        group += f"sandbox:x:{own_gid}:\n"
    services = "".join(
        f"{name}\t{port}/tcp\n" + (f"{name}\t{port}/udp\n" if name in ("domain", "ntp") else "")
        for name, port in _SERVICES
    )
    return {
        "passwd": passwd,
        "group": group,
        "nsswitch.conf": (
            "passwd: files\ngroup: files\nhosts: files\nservices: files\nprotocols: files\n"
        ),
        # The UTS namespace's host name resolves, as on most distributions.
        "hosts": f"127.0.0.1\tlocalhost\n127.0.1.1\t{HOSTNAME}\n::1\tlocalhost\n",
        "services": services,
        "protocols": "".join(f"{n}\t{num}\t{alias}\n" for n, num, alias in _PROTOCOLS),
    }


def _writable_places(staging: str, uid: int | None, gid: int | None, tmp_mb: int) -> None:
    """The one scratch tmpfs at ``/tmp``: the job's dir and ``/dev/shm`` as writable
    mounts of it (``/tmp`` itself turns read-only once the view is built, so nothing
    can be planted beside them)."""
    tmp = staging + "/tmp"
    _mkdirs(tmp)
    mount("tmpfs", tmp, "tmpfs", _TMP_FLAGS, f"mode=755,size={tmp_mb}m")
    os.mkdir(staging + SCRATCH_PARENT, 0o711)
    for path in (SCRATCH_DIR, _SHM_SOURCE):
        os.mkdir(staging + path, 0o700)
        if uid is not None and gid is not None:
            os.chown(staging + path, uid, gid)
        os.chmod(staging + path, 0o700)
    # The job dir a mount point of its own: it cannot be renamed or removed, and stays
    # writable when /tmp turns read-only below.
    mount(staging + SCRATCH_DIR, staging + SCRATCH_DIR, None, MS_BIND)
    _mkdirs(staging + SHM_DIR)
    mount(staging + _SHM_SOURCE, staging + SHM_DIR, None, MS_BIND)
    _mkdirs(staging + "/var/tmp")


def _mount_proc(staging: str, fresh: bool, proc_fd: int) -> bool:
    """``/proc`` in the new root: a fresh one (this PID namespace's), else the host's.

    Returns whether it is a fresh one.  Inside a user namespace the kernel grants a fresh
    ``/proc`` only while an uncovered one is visible (the host's, still at ``/proc``
    here); a container whose ``/proc`` has covered entries gets the host's instead.
    """
    target = staging + "/proc"
    _mkdirs(target)
    if fresh:
        try:
            mount_fresh_proc(target)
            return True
        except OSError:
            pass
    mount(f"/proc/self/fd/{proc_fd}", target, None, MS_BIND | MS_REC)
    return False


def mount_fresh_proc(target: str) -> None:
    """Mount this PID namespace's own ``/proc`` at ``target`` (over whatever is there)."""
    mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)


def build_root(
    plan: dict[str, Any],
    staging: str,
    uid: int | None,
    gid: int | None,
    fresh_proc: bool = False,
    tmp_mb: int = 512,
) -> tuple[list[str], bool]:
    """Build the planned root on a tmpfs at ``staging`` and pivot into it.

    Call in a private mount namespace (``/`` made private).  Every source is opened
    (``O_PATH``) before the tmpfs covers ``staging``, and bound from its descriptor, so a
    source under ``staging`` itself (a checkout under ``/tmp``) still reaches the view.
    ``fresh_proc``: mount this PID namespace's own ``/proc`` (the caller is its pid 1);
    else the host's is carried along.  Returns what is visible and whether ``/proc`` is a
    fresh one.
    """
    sources: list[tuple[str, int, bool]] = []
    try:
        for path in plan["binds"]:
            fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
            sources.append((path, fd, os.path.isdir(path)))
        devices = [
            (path, os.open(path, os.O_PATH | os.O_CLOEXEC))
            for path in DEVICES
            if os.path.exists(path)
        ]
        proc_fd = os.open("/proc", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            mount("tmpfs", staging, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=16m")
            os.chmod(staging, 0o755)
            _writable_places(staging, uid, gid, tmp_mb)
            for path, fd, is_dir in sources:
                _bind(fd, staging + path, is_dir, MS_NOSUID | MS_NODEV)
            for path, target in plan["links"]:
                _mkdirs(os.path.dirname(staging + path))
                if not os.path.lexists(staging + path):
                    os.symlink(target, staging + path)
            for path, fd in devices:
                # nodev would make them unusable; a read-only mount still lets a
                # character device be written (only regular files are refused).
                _bind(fd, staging + path, False, MS_NOSUID | MS_NOEXEC)
            for name, target in (
                ("fd", "/proc/self/fd"),
                ("stdin", "/proc/self/fd/0"),
                ("stdout", "/proc/self/fd/1"),
                ("stderr", "/proc/self/fd/2"),
            ):
                if not os.path.lexists(f"{staging}/dev/{name}"):
                    os.symlink(target, f"{staging}/dev/{name}")
            _mkdirs(staging + "/etc")
            for name, text in _etc_files(uid, gid).items():
                if not os.path.lexists(f"{staging}/etc/{name}"):
                    with open(f"{staging}/etc/{name}", "w") as handle:
                        handle.write(text)
                    os.chmod(f"{staging}/etc/{name}", 0o644)
            private_proc = _mount_proc(staging, fresh_proc, proc_fd)
            # /tmp's own mount only (not recursive): the job dir and /dev/shm stay
            # writable.  Last, since planned paths under /tmp were made inside it.
            mount(None, staging + "/tmp", None, MS_REMOUNT | MS_BIND | MS_RDONLY | _TMP_FLAGS)
            # The skeleton itself read-only: only the scratch dir and /dev/shm stay
            # writable (their own mounts).
            mount(None, staging, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
        finally:
            os.close(proc_fd)
            for _, fd in devices:
                os.close(fd)
    finally:
        for _, fd, _ in sources:
            os.close(fd)
    _pivot_root(staging)
    visible = sorted(
        [*plan["binds"], *(p for p, _ in devices), *(f"/etc/{n}" for n in _etc_files(uid, gid))]
    )
    return visible, private_proc
