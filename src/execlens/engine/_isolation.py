"""Isolation layers set up once per fork server, and their report.

Each layer is tried in the server before any job runs; what succeeded is inherited by
every forked child at no per-job cost.  A layer that cannot be set up is reported with
the reason (``execlens doctor`` prints the report).

Layers:

* ``network``      — a private network namespace with no interfaces up (else a seccomp
  socket filter, else missing).
* ``filesystem``   — a private mount namespace holding a *minimal root*: a fresh tmpfs
  into which only what the program interpreter needs is bound read-only (its standard
  library, import roots, venv, execlens's package, the shared libraries they load, a
  shell), three device nodes, a synthetic ``/etc`` and private tmpfs on ``/tmp``,
  ``/var/tmp`` and ``/dev/shm`` (the scratch dirs live there); the server pivots into it
  and the host's root is detached (see ``_rootfs``).  No ``/home``, no host ``/etc``,
  no project.  ``filesystem="host"`` keeps the older read-only view of the whole host
  (for comparisons only: the layer then counts as missing).
* ``pid_namespace`` — the server becomes pid 1 of its own PID namespace with a fresh
  ``/proc`` (mounted in the filesystem layer's mount namespace): a child sees only its
  own sandbox's processes, never the host's (``/proc/<pid>/cmdline`` of other
  processes); ``kill(-1)`` reaches nothing outside it.  The process the host started
  stays outside as a waiter: it exits when the server does, and the server dies with it.
* ``unprivileged_uid`` — children run as a random high uid/gid (one per server) with no
  supplementary groups.
* ``process_limit`` — ``RLIMIT_NPROC`` bounds forks; only enforced for a non-root uid.
* ``seccomp``      — a syscall filter compiled once by the host (libseccomp via
  pyseccomp), handed to each server as BPF and loaded by each child with
  ``PR_SET_NO_NEW_PRIVS`` + ``PR_SET_SECCOMP`` (two prctl calls).
* ``rlimits``      — CPU, address space, file size, open files, core dumps.
* ``clean_env``    — the server starts with a minimal environment, so neither
  ``os.environ`` nor ``/proc/self/environ`` holds host secrets.
"""

from __future__ import annotations

import base64
import ctypes
import errno
import os
import resource
import signal
import sys
from typing import Any

from execlens.engine._rootfs import (
    DEVICES,
    MS_BIND,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_PRIVATE,
    MS_RDONLY,
    MS_REC,
    MS_REMOUNT,
    SANDBOX_TMPFS_DIRS,
    TOOLS,
    build_root,
    detach,
    is_under,
    outermost,
)
from execlens.engine._rootfs import check_call as _check
from execlens.engine._rootfs import libc as _libc
from execlens.engine._rootfs import mount as _mount

__all__ = [
    "IsolationReport",
    "LayerStatus",
    "SeccompProgram",
    "compile_seccomp_filters",
    "set_child_subreaper",
    "setup_server_isolation",
]

_CLONE_NEWNS = 0x00020000
_CLONE_NEWNET = 0x40000000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_PDEATHSIG = 1

SCRATCH_ROOT = "/tmp/execlens-scratch"


class LayerStatus:
    """Whether one isolation layer is active, and why not when it is not."""

    __slots__ = ("active", "detail", "name")

    def __init__(self, name: str, active: bool, detail: str = "") -> None:
        self.name = name
        self.active = active
        self.detail = detail

    def __repr__(self) -> str:
        return f"LayerStatus({self.name!r}, active={self.active}, detail={self.detail!r})"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"name": self.name, "active": self.active, "detail": self.detail}


class IsolationReport:
    """All layers of one server, as set up on this machine."""

    def __init__(
        self,
        uid: int | None = None,
        gid: int | None = None,
        python: str | None = None,
        kernel: str | None = None,
    ) -> None:
        self.layers: list[LayerStatus] = []
        # What the sandbox's filesystem shows: every path bound into the minimal root
        # (["/"] for the host view, [] without a mount namespace).
        self.visible: list[str] = []
        self.uid = uid
        self.gid = gid
        self.python = python if python is not None else sys.version.split()[0]
        self.kernel = kernel if kernel is not None else os.uname().release

    def add(self, name: str, active: bool, detail: str = "") -> None:
        """Record one layer's status."""
        self.layers.append(LayerStatus(name, active, detail))

    def active(self, name: str) -> bool:
        """Whether the named layer is active."""
        return any(layer.name == name and layer.active for layer in self.layers)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "layers": [layer.to_dict() for layer in self.layers],
            "uid": self.uid,
            "gid": self.gid,
            "python": self.python,
            "kernel": self.kernel,
            "visible": list(self.visible),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IsolationReport:
        """Rebuild from :meth:`to_dict` output."""
        report = cls(
            uid=data.get("uid"),
            gid=data.get("gid"),
            python=data.get("python", ""),
            kernel=data.get("kernel", ""),
        )
        report.layers = [LayerStatus(**layer) for layer in data.get("layers", [])]
        report.visible = list(data.get("visible", []))
        return report


def _mount_table() -> list[tuple[str, set[str]]]:
    """(mount point, per-mount options) for every mount, outermost first."""
    table = []
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            parts = line.split()
            mount_point = parts[4].replace("\\040", " ")
            options = set(parts[5].split(","))
            table.append((mount_point, options))
    return table


def _flags_of(options: set[str]) -> int:
    flags = 0
    if "nosuid" in options:
        flags |= MS_NOSUID
    if "nodev" in options:
        flags |= MS_NODEV
    if "noexec" in options:
        flags |= MS_NOEXEC
    return flags


def _others_can_traverse(path: str) -> bool:
    try:
        return bool(os.stat(path).st_mode & 0o001)
    except OSError:
        return True  # a missing path needs no traversal fix


def _import_roots() -> list[str]:
    roots = {
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
    }
    roots.update(p for p in sys.path if p and os.path.isdir(p))
    # execlens itself, wherever a link on the path leads (see _process._execlens_root).
    roots.add(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return sorted(os.path.realpath(r) for r in roots)


def _blocked_ancestors(paths: list[str]) -> dict[str, list[str]]:
    """For each path, its outermost ancestor an unprivileged user cannot traverse."""
    blocked: dict[str, list[str]] = {}
    for path in paths:
        current = "/"
        for part in path.strip("/").split("/"):
            current = os.path.join(current, part)
            if current != path and os.path.isdir(current) and not _others_can_traverse(current):
                blocked.setdefault(current, []).append(path)
                break
    return blocked


class _BindBack:
    """Directories to show again after a tmpfs covers the directory holding them.

    Each is opened (``O_PATH``) *before* it is covered and bound back from
    ``/proc/self/fd/N`` afterwards: the open descriptor still reaches the covered
    directory, so no staging mount point is needed (one under ``/tmp`` would itself be
    covered).  Opened after ``unshare``, so the source mount is in our namespace.
    """

    def __init__(self, paths: list[str]) -> None:
        self.fds = {path: os.open(path, os.O_PATH | os.O_DIRECTORY) for path in paths}

    def restore(self, cover: str) -> list[str]:
        """Bind back, read-only, every path under ``cover`` (just covered by a tmpfs)."""
        restored = []
        for path, fd in self.fds.items():
            if is_under(path, cover) and path != cover:
                os.makedirs(path, exist_ok=True)
                _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
                _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY)
                restored.append(path)
        return restored

    def close(self) -> None:
        for fd in self.fds.values():
            os.close(fd)


def _setup_filesystem(
    report: IsolationReport, root_plan: dict[str, Any] | None, uid: int | None, gid: int | None
) -> bool:
    """A private mount namespace with the minimal root (``root_plan``), or, without a plan
    or where building it fails, the read-only host view.  Returns whether the mount
    namespace exists (the PID namespace layer mounts its ``/proc`` there)."""
    try:
        _check(_libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
        _mount(None, "/", None, MS_REC | MS_PRIVATE)
    except OSError as exc:
        report.add("filesystem", False, f"no mount namespace ({exc.strerror})")
        return False
    if root_plan is None:
        return _setup_host_view(
            report,
            "the read-only host view was asked for "
            "(filesystem='host'): every world-readable host "
            "file is visible",
        )
    staging = "/tmp"
    try:
        visible = build_root(root_plan, staging, uid, gid)
        os.makedirs(SCRATCH_ROOT, mode=0o711, exist_ok=True)
    except OSError as exc:
        # Still in the host's root (the pivot is the last step): undo the staging
        # tmpfs and fall back to the read-only host view, reported as missing.
        try:
            detach(staging)
        except OSError:
            pass
        return _setup_host_view(
            report,
            f"the minimal root could not be built ({exc}); fell back to the read-only host view",
        )
    report.visible = visible
    python = root_plan.get("python", [])
    detail = (
        f"minimal root: a fresh tmpfs; bound read-only: the interpreter's import "
        f"roots ({', '.join(python)}), {root_plan.get('libraries', 0)} shared "
        f"libraries and the loader, /bin/sh, {', '.join(TOOLS)}, "
        f"{', '.join(DEVICES)}, /usr/share/zoneinfo; synthetic /etc (passwd and "
        f"group naming root and the sandbox uid, nsswitch.conf, hosts; localtime and "
        f"ld.so.cache bound); private tmpfs on {', '.join(SANDBOX_TMPFS_DIRS)}; "
        f"writable: the job's scratch dir only; {len(visible)} paths visible "
        f"(doctor lists them)"
    )
    if root_plan.get("mount_ro"):
        detail += "; mount_ro: " + ", ".join(root_plan["mount_ro"])
    report.add("filesystem", True, detail)
    return True


def _setup_host_view(report: IsolationReport, why: str) -> bool:
    """The read-only view of the whole host (the layer before the minimal root)."""
    hidden: list[str] = []
    bound_back: list[str] = []
    bind_back: _BindBack | None = None
    try:
        roots = _import_roots()
        # The Python install and every import root (e.g. a project checked out under
        # /tmp, or a venv in /root) must stay importable by the sandbox uid after the
        # covers below go on: the zygote imports modules lazily after the fork server
        # has started.
        blocked = _blocked_ancestors(roots)
        covered = [r for r in roots if any(is_under(r, d) for d in SANDBOX_TMPFS_DIRS)]
        bind_back = _BindBack(outermost(covered + [p for ps in blocked.values() for p in ps]))
        # Hide what the sandbox user could not traverse anyway (e.g. /root, 0700).
        for ancestor in blocked:
            _mount("tmpfs", ancestor, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=1m")
            bound_back += bind_back.restore(ancestor)
            hidden.append(ancestor)
        # Everything read-only, mount by mount (a recursive bind remount does not exist).
        for mount_point, options in _mount_table():
            if mount_point.startswith(("/proc", "/sys", "/dev/pts")):
                continue
            try:
                _mount(
                    None, mount_point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | _flags_of(options)
                )
            except OSError:
                continue
        # Not world-writable: the only place a child may write is its own scratch dir.
        for directory in SANDBOX_TMPFS_DIRS:
            if os.path.isdir(directory):
                _mount("tmpfs", directory, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=512m")
                bound_back += bind_back.restore(directory)
        os.makedirs(SCRATCH_ROOT, mode=0o711, exist_ok=True)
    except OSError as exc:
        report.add("filesystem", False, f"mount setup failed ({exc})")
        return False
    finally:
        if bind_back is not None:
            bind_back.close()
    detail = (
        why
        + "; read-only view; private root-owned tmpfs on "
        + ", ".join(SANDBOX_TMPFS_DIRS)
        + "; writable: the job's scratch dir only"
    )
    if hidden:
        detail += "; hidden: " + ", ".join(hidden)
    if bound_back:
        detail += "; import roots shown again read-only: " + ", ".join(bound_back)
    report.visible = ["/"]
    report.add("filesystem", False, detail)
    return True


def _setup_network(report: IsolationReport) -> bool:
    try:
        _check(_libc.unshare(_CLONE_NEWNET), "unshare(CLONE_NEWNET)")
    except OSError as exc:
        report.add("network", False, f"no network namespace ({exc.strerror})")
        return False
    report.add("network", True, "private network namespace, no interface up")
    return True


def _setup_pid_namespace(report: IsolationReport, filesystem: bool) -> int | None:
    """Move the server into a new PID namespace as its pid 1, with its own ``/proc``.

    ``unshare(CLONE_NEWPID)`` only places this process's *children* in the new
    namespace, so it forks once: the child carries on as the server (pid 1, the
    namespace's init, which reaps whatever the zygote leaves), the parent stays behind
    as a waiter the host holds.  Returns the server's pid as the host sees it, or
    ``None`` when the layer is missing (the server then runs as before).
    """
    if not filesystem:
        report.add(
            "pid_namespace",
            False,
            "needs the filesystem layer's mount namespace for a private /proc",
        )
        return None
    try:
        _check(_libc.unshare(_CLONE_NEWPID), "unshare(CLONE_NEWPID)")
    except OSError as exc:
        report.add("pid_namespace", False, f"no PID namespace ({exc.strerror})")
        return None
    # Errors after this point cannot fall back: this process can no longer fork into
    # the host's namespace.  Both sides report through the server (the child).
    pid = os.fork()
    if pid:
        _wait_for_server(pid)
    set_parent_death_signal()  # the waiter dies with the host: the namespace follows
    host_pid = int(os.readlink("/proc/self"))  # still the host's /proc: the host's pid
    try:
        # The host's /proc (carried into the minimal root for the line above) goes
        # away entirely, not just under a cover.
        detach("/proc")
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError as exc:
        raise RuntimeError(f"PID namespace without a private /proc: {exc}") from exc
    report.add(
        "pid_namespace",
        True,
        "the server is pid 1 of its own PID namespace; a private /proc shows the "
        "sandbox's processes only",
    )
    return host_pid


def _wait_for_server(pid: int) -> None:
    """The waiter: hold no descriptor of the server's, exit when the server does."""
    os.closerange(3, 1 << 16)  # the host sees EOF the moment the server is gone
    try:
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
    except ChildProcessError:
        code = 1
    os._exit(code if code >= 0 else 128 - code)


def _pick_uid() -> int:
    # A random high id per server: two servers (or two engines) never share one, so
    # RLIMIT_NPROC and kill(-1) are confined to a single server's children.
    return 200_000 + int.from_bytes(os.urandom(4), "big") % 1_800_000_000


class SeccompProgram:
    """A compiled seccomp BPF program, ready to load in a child with two prctl calls."""

    def __init__(self, bpf: bytes) -> None:
        class _Filter(ctypes.Structure):
            _fields_ = [
                ("code", ctypes.c_ushort),
                ("jt", ctypes.c_ubyte),
                ("jf", ctypes.c_ubyte),
                ("k", ctypes.c_uint),
            ]

        class _Program(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Filter))]

        count = len(bpf) // 8
        self._filters = (_Filter * count).from_buffer_copy(bpf)
        self._program = _Program(count, ctypes.cast(self._filters, ctypes.POINTER(_Filter)))
        self.instructions = count

    def load(self) -> None:
        """Install the filter in the calling process (irreversible)."""
        _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, None, 0, 0), "PR_SET_NO_NEW_PRIVS")
        _check(
            _libc.prctl(
                _PR_SET_SECCOMP,
                _SECCOMP_MODE_FILTER,
                ctypes.cast(ctypes.byref(self._program), ctypes.c_void_p),
                0,
                0,
            ),
            "PR_SET_SECCOMP",
        )


# Syscalls no model-written program needs and that widen the attack surface.
_DENIED_SYSCALLS = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "init_module",
    "finit_module",
    "delete_module",
    "acct",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "sethostname",
    "setdomainname",
    "iopl",
    "ioperm",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "open_by_handle_at",
    "name_to_handle_at",
    "quotactl",
    "syslog",
    "lookup_dcookie",
    "vhangup",
    "fanotify_init",
    "mknod",
    "mknodat",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsmount",
    "fsconfig",
    "fspick",
    "mount_setattr",
)
_AF_UNIX = 1


def build_seccomp_bpf(block_network: bool) -> tuple[bytes, str]:
    """Compile the syscall filter with libseccomp (in the host, once) into BPF bytes.

    The servers only load the result, so they never import pyseccomp themselves.
    """
    import tempfile

    import pyseccomp as seccomp

    filt = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    denied = 0
    for name in _DENIED_SYSCALLS:
        try:
            filt.add_rule(seccomp.ERRNO(errno.EPERM), name)
            denied += 1
        except (RuntimeError, ValueError, OSError):
            continue  # not a syscall on this architecture
    # clone3 passes its flags in memory a filter cannot read: make libc fall back to clone.
    filt.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for bit in (
        0x00020000,
        0x04000000,
        0x08000000,
        0x10000000,
        0x20000000,
        0x40000000,
        0x02000000,
        0x00000080,
    ):
        filt.add_rule(
            seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, bit, bit)
        )
    detail = f"{denied} syscalls denied, clone3 → ENOSYS, namespace clones denied"
    if block_network:
        filt.add_rule(seccomp.ERRNO(errno.EACCES), "socket", seccomp.Arg(0, seccomp.NE, _AF_UNIX))
        detail += ", non-unix sockets denied"
    with tempfile.TemporaryFile() as handle:
        filt.export_bpf(handle)
        handle.seek(0)
        bpf = handle.read()
    return bpf, detail


def compile_seccomp_filters() -> dict[str, Any]:
    """Both filter variants as base64 BPF (``plain``, ``socket_filter``), or ``error``."""
    try:
        filters: dict[str, Any] = {}
        for key, block in (("plain", False), ("socket_filter", True)):
            bpf, detail = build_seccomp_bpf(block_network=block)
            filters[key] = {"bpf": base64.b64encode(bpf).decode("ascii"), "detail": detail}
        return filters
    except Exception as exc:  # noqa: BLE001 - any failure means the layer is missing
        return {"error": f"{type(exc).__name__}: {exc}"}


class ServerIsolation:
    """What a server set up, for its children to apply after each fork."""

    def __init__(
        self,
        report: IsolationReport,
        uid: int | None,
        gid: int | None,
        seccomp: SeccompProgram | None,
        scratch_root: str,
        host_pid: int | None = None,
    ) -> None:
        self.report = report
        self.uid = uid
        self.gid = gid
        self.seccomp = seccomp
        self.scratch_root = scratch_root
        # The server's pid as the host sees it (differs from getpid() in a PID namespace).
        self.host_pid = host_pid if host_pid is not None else os.getpid()


def setup_server_isolation(
    mode: str,
    seccomp_filters: dict[str, Any] | None = None,
    root_plan: dict[str, Any] | None = None,
) -> ServerIsolation:
    """Set up every layer ``mode`` asks for (``full``, ``auto``, ``none``) in this process.

    ``full`` raises :class:`RuntimeError` naming the missing layers; ``auto`` keeps what
    works; ``none`` only applies per-child rlimits (for trusted code and debugging).
    ``root_plan`` (from :func:`_rootfs.plan_root`) is the minimal root to build; without
    one the filesystem layer is the read-only host view, reported as missing.
    """
    report = IsolationReport()
    report.add(
        "clean_env",
        not any(k for k in os.environ if k not in _ALLOWED_ENV),
        "server started with a minimal environment",
    )
    report.add("rlimits", True, "CPU, address space, file size, open files, core=0")
    is_root = os.geteuid() == 0
    report.add(
        "reaper",
        True,
        "the zygote is a child subreaper: orphans are reaped, "
        "leftovers are SIGKILLed after every job",
    )
    if mode == "none":
        for name in (
            "network",
            "filesystem",
            "pid_namespace",
            "unprivileged_uid",
            "process_limit",
            "seccomp",
        ):
            report.add(name, False, "disabled (isolation='none')")
        scratch = os.path.join("/tmp", f"execlens-scratch-{os.getpid()}")
        os.makedirs(scratch, exist_ok=True)
        return ServerIsolation(report, None, None, None, scratch)
    network = _setup_network(report)
    # Picked first: the minimal root's /etc/passwd names it.
    uid = gid = _pick_uid() if is_root else None
    filesystem = _setup_filesystem(report, root_plan, uid, gid)
    host_pid = _setup_pid_namespace(report, filesystem)
    if is_root:
        report.add("unprivileged_uid", True, f"children run as uid/gid {uid}, no groups")
        report.add("process_limit", True, "RLIMIT_NPROC per server uid bounds forks and threads")
    else:
        report.add(
            "unprivileged_uid",
            False,
            "the host does not run as root, so children keep the host's uid",
        )
        report.add(
            "process_limit",
            True,
            "RLIMIT_NPROC applies to the host user's processes (shared with the host)",
        )
    report.uid, report.gid = uid, gid
    seccomp_program = None
    choice = (seccomp_filters or {}).get("plain" if network else "socket_filter")
    if choice and choice.get("bpf"):
        seccomp_program = SeccompProgram(base64.b64decode(choice["bpf"]))
        report.add("seccomp", True, choice["detail"])
        if not network:
            # seccomp's socket filter stands in for the missing network namespace.
            for layer in report.layers:
                if layer.name == "network":
                    layer.active = True
                    layer.detail += "; replaced by a seccomp filter denying non-unix sockets"
    else:
        reason = (seccomp_filters or {}).get("error", "no filter was compiled")
        report.add("seccomp", False, f"libseccomp unavailable: {reason}")
    if mode == "full":
        missing = [layer.name for layer in report.layers if not layer.active]
        if is_root is False:
            missing = [m for m in missing if m != "unprivileged_uid"]
        if missing:
            raise RuntimeError(
                "isolation='full' but these layers are missing: " + ", ".join(missing)
            )
    scratch_root = (
        SCRATCH_ROOT if filesystem else os.path.join("/tmp", f"execlens-scratch-{os.getpid()}")
    )
    os.makedirs(scratch_root, mode=0o711, exist_ok=True)
    return ServerIsolation(report, uid, gid, seccomp_program, scratch_root, host_pid)


_ALLOWED_ENV = frozenset(
    {
        "PATH",
        "LANG",
        "LC_ALL",
        "HOME",
        "PYTHONHASHSEED",
        "PYTHONPATH",
        "PYTHONDONTWRITEBYTECODE",
        "OPENBLAS_NUM_THREADS",
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
        "NUMEXPR_NUM_THREADS",
        "PYTHONIOENCODING",
        "TMPDIR",
        "PWD",
        "SHLVL",
        "_",
        "LC_CTYPE",
        "LD_BIND_NOW",
    }
)


def set_child_subreaper() -> None:
    """Make orphaned descendants reparent to this process (so it can reap them)."""
    _check(_libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, None, 0, 0), "PR_SET_CHILD_SUBREAPER")


_SIGKILL = int(signal.SIGKILL)


def set_parent_death_signal() -> None:
    """Have the kernel SIGKILL this process when its parent dies (server follows host)."""
    # Plain ints: the children call this after every fork, where each Python object
    # touched costs a copy-on-write fault.
    _libc.prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0)


def current_limits() -> dict[str, tuple[int, int]]:
    """The current rlimits of this process, for diagnostics."""
    names = ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC")
    return {name: resource.getrlimit(getattr(resource, name)) for name in names}
