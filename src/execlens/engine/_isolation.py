"""Isolation layers set up once per fork server, and their report.

Each layer is tried in the server before any job runs; what succeeded is inherited by
every forked child at no per-job cost, except two system calls each child makes right
after ``fork`` (:meth:`ServerIsolation.confine_child`, :meth:`ServerIsolation.drop_privileges`).
A layer that cannot be had is reported with the reason, and with *how* each active one
was obtained (``via``: root, a user namespace, Landlock, seccomp, a cgroup...).
``execlens doctor`` prints the report; every run records it.

How the namespaces are had:

* **root** with ``CAP_SYS_ADMIN``: directly;
* otherwise **a user namespace** of the server's own (``_userns``): root without
  ``CAP_SYS_ADMIN`` (a plain container) and any other user, as bubblewrap and nsjail do;
* where user namespaces are refused, no namespace at all: **Landlock** (``_landlock``)
  then keeps the filesystem, and seccomp the network.

Layers:

* ``network`` — a private network namespace with no interface up (else seccomp allows
  unix sockets only).  Either way seccomp allows only the socket families honest programs
  use (``_seccomp``).
* ``filesystem`` — the *minimal root* (``_rootfs``) in a private mount namespace; where
  there is none, Landlock rules granting only what the root plan lists.
  ``filesystem="host"`` keeps the read-only host view (``_hostview``; counts as missing).
* ``pid_namespace`` — the server is pid 1 of its own PID namespace with a fresh ``/proc``.
* ``ipc_namespace``, ``uts_namespace`` — System V IPC and the host name of its own
  (``_namespaces``); leftovers of a job are removed before the next (``_scratch``).
* ``unprivileged_uid`` — children run as a random high uid/gid (one per server), no
  groups, no capabilities; in a user namespace that maps only the host user's uid they
  keep it but shed every capability, and Landlock's signal scope keeps them from their
  own server and zygote.
* ``process_limit`` — ``RLIMIT_NPROC`` bounds forks (counted per uid, per user namespace).
* ``cgroup`` — memory and process counts of the whole job (``_cgroup``), where delegated.
* ``landlock`` — per-child filesystem, TCP and signal rules (``_landlock``).
* ``seccomp`` — the syscall filter, loaded by each zygote.
* ``rlimits``, ``clean_env``, ``reaper`` — as before.

Modes: ``full`` refuses to start without every layer but ``landlock`` and ``cgroup`` (the
kernel may lack them without fault); ``auto`` refuses without the filesystem or PID layer
and names the opt-in; ``degraded`` runs with what there is (the host warns on each run);
``none`` runs with rlimits only (trusted code).
"""

from __future__ import annotations

import os
import resource
from typing import Any

from execlens.engine import _cgroup, _landlock, _namespaces, _rootfs, _userns
from execlens.engine._errors import IsolationUnavailable
from execlens.engine._hostview import setup_host_view
from execlens.engine._mounts import libc
from execlens.engine._namespaces import set_child_subreaper, set_parent_death_signal
from execlens.engine._scratch import JOB_NAME, make_private_parent
from execlens.engine._seccomp import SeccompProgram, compile_seccomp_filters
from execlens.engine._setup_report import (
    ALLOWED_ENV,
    IsolationReport,
    LayerStatus,
    refusal,
    require_full,
)

__all__ = [
    "IsolationReport",
    "LayerStatus",
    "SeccompProgram",
    "ServerIsolation",
    "compile_seccomp_filters",
    "set_child_subreaper",
    "set_parent_death_signal",
    "setup_server_isolation",
]

_PR_SET_DUMPABLE = 4
_STAGING = "/tmp"
_DEVICE_WRITES = ("/dev/null", "/dev/zero", "/dev/tty", "/dev/urandom", "/dev/random")


def _pick_uid() -> int:
    # A random high id per server: two servers (or two engines) never share one, so
    # RLIMIT_NPROC and kill(-1) are confined to a single server's children.
    return 200_000 + int.from_bytes(os.urandom(4), "big") % 1_800_000_000


def _per_userns_nproc() -> bool:
    """Whether RLIMIT_NPROC counts per user namespace (Linux 5.14's ucounts)."""
    try:
        major, minor = (int(p) for p in os.uname().release.split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (5, 14)


class ServerIsolation:
    """What a server set up, for its children to apply after each fork."""

    def __init__(self, report: IsolationReport, scratch_dir: str) -> None:
        self.report = report
        self.uid: int | None = None  # the children's uid, where they get one of their own
        self.gid: int | None = None
        self.single_uid = False  # a one-uid user namespace: shed capabilities instead
        self.nproc_extra = 0  # processes of the children's uid that are not the job's
        self.nproc_limit = True  # whether RLIMIT_NPROC is worth setting
        hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
        self.nproc_hard = hard if hard != resource.RLIM_INFINITY else 1 << 30
        self.seccomp: SeccompProgram | None = None
        self.landlock: _landlock.Ruleset | None = None
        self.scratch_dir = scratch_dir
        self.shm_dir: str | None = None
        self.private_ipc = False
        self.tmpfs_mount: str | None = None
        self.cgroup: _cgroup.JobCgroup | None = None
        # The server's pid as the host sees it (differs from getpid() in a PID namespace).
        self.host_pid = os.getpid()

    def confine_child(self) -> None:
        """In a child right after fork, before it closes inherited descriptors: enter a
        Landlock domain of its own (the ruleset's descriptor is one of those)."""
        if self.landlock is not None:
            self.landlock.restrict()

    def drop_privileges(self, nproc: tuple[int, int]) -> None:
        """In a child: its process limit, then its uid or its capabilities go."""
        if self.single_uid:
            if self.nproc_limit:
                # No raising the hard limit here: that takes CAP_SYS_RESOURCE outside.
                limit = min(nproc[0] + self.nproc_extra, self.nproc_hard)
                resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
            _userns.drop_capabilities()
        elif self.uid is not None and self.gid is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, nproc)
            os.setgroups(())
            os.setresgid(self.gid, self.gid, self.gid)
            os.setresuid(self.uid, self.uid, self.uid)


def setup_server_isolation(
    mode: str,
    seccomp_filters: dict[str, Any] | None = None,
    root_plan: dict[str, Any] | None = None,
) -> ServerIsolation:
    """Set up every layer ``mode`` asks for (``full``, ``auto``, ``degraded``, ``none``).

    ``full`` and ``auto`` raise :class:`IsolationUnavailable` naming what is missing
    (see the module docstring); ``root_plan`` (from :func:`_rootfs.plan_root`) is the
    minimal root to build; without one the filesystem layer is the read-only host view.
    """
    report = IsolationReport()
    report.add(
        "clean_env",
        not any(k for k in os.environ if k not in ALLOWED_ENV),
        "server started with a minimal environment",
    )
    report.add("rlimits", True, "CPU, address space, file size, open files, core=0", "rlimit")
    report.add(
        "reaper",
        True,
        "the zygote is a child subreaper: orphans are reaped, "
        "leftovers are SIGKILLed after every job",
    )
    if mode == "none":
        for name in ("network", "filesystem", "pid_namespace", "ipc_namespace"):
            report.add(name, False, "disabled (isolation='none')")
        for name in ("uts_namespace", "unprivileged_uid", "process_limit", "seccomp"):
            report.add(name, False, "disabled (isolation='none')")
        report.method = "none"
        report.scratch_parent = make_private_parent()
        return ServerIsolation(report, os.path.join(report.scratch_parent, JOB_NAME))
    iso = _Setup(report, root_plan, seccomp_filters).run()
    if mode == "full":
        require_full(report)
    elif mode == "auto":
        message = refusal(report, root_plan is not None)
        if message:
            raise IsolationUnavailable(message)
    # Nothing the server holds may be read or traced through /proc by its children.
    libc.prctl(_PR_SET_DUMPABLE, 0, None, 0, 0)
    return iso


class _Setup:
    """The steps of :func:`setup_server_isolation` past ``isolation='none'``, in order."""

    def __init__(
        self,
        report: IsolationReport,
        root_plan: dict[str, Any] | None,
        seccomp_filters: dict[str, Any] | None,
    ) -> None:
        self.report = report
        self.plan = root_plan
        self.filters = seccomp_filters or {}
        self.uid = _pick_uid()
        self.caps = _userns.effective_capabilities()
        self.root = os.geteuid() == 0
        self.via = ""  # how the namespaces were had: "root" or "user namespace"
        self.userns: _userns.UserNamespace | None = None
        self.why_no_namespaces = ""
        self.why_mounts = ""

    def run(self) -> ServerIsolation:
        self._namespaces_privilege()
        network = self._simple("network", _namespaces.CLONE_NEWNET, "no interface up")
        ipc = self._simple(
            "ipc_namespace",
            _namespaces.CLONE_NEWIPC,
            "System V IPC of its own, emptied between jobs; POSIX queues denied",
        )
        self._simple(
            "uts_namespace",
            _namespaces.CLONE_NEWUTS,
            f"host name {_namespaces.HOSTNAME!r}, not the host's",
        )
        mount_ns = self._mount_namespace()
        cgroup, cgroup_why = _cgroup.create() if mount_ns else (None, "needs a PID namespace")
        host_pid = self._pid_namespace(mount_ns, cgroup)
        if host_pid is None and cgroup is not None:
            cgroup.remove()
            cgroup, cgroup_why = None, "needs a PID namespace"
        iso = self._filesystem(mount_ns, host_pid)
        iso.private_ipc = ipc
        self._users(iso)
        self._cgroup(iso, cgroup, cgroup_why)
        self._seccomp(iso, network)
        self._landlock(iso, mount_ns)
        if self.report.layer("filesystem") is None:
            why = self.why_no_namespaces or self.why_mounts or "no mount namespace"
            self.report.add("filesystem", False, f"{why}, and no Landlock to fall back on")
        if self.via:
            _userns.drop_bounding_set()
        self.report.method = self.via or ("landlock" if iso.landlock else "none")
        self.report.uid, self.report.gid = iso.uid, iso.gid
        self.report.host_uid = self.userns.host_uid if self.userns is not None else iso.uid
        return iso

    # ------------------------------------------------------------------ namespaces
    def _namespaces_privilege(self) -> None:
        if _userns.has_capability(self.caps, _userns.CAP_SYS_ADMIN):
            self.via = "root"
            return
        self.userns, why = _userns.enter(self.uid)
        if self.userns is not None:
            self.via = "user namespace"
            self.report.add("user_namespace", True, self.userns.describe(), "user namespace")
        else:
            who = "root without CAP_SYS_ADMIN" if self.root else "not root"
            self.why_no_namespaces = (
                f"the host process is {who} and cannot make a user namespace: {why}"
            )
            self.report.add("user_namespace", False, self.why_no_namespaces)

    def _simple(self, name: str, flag: int, detail: str) -> bool:
        if not self.via:
            self.report.add(name, False, self.why_no_namespaces)
            return False
        failed = _namespaces.unshare_simple(flag)
        if failed:
            self.report.add(name, False, f"unshare refused ({failed})")
            return False
        self.report.add(name, True, detail, self.via)
        return True

    def _mount_namespace(self) -> bool:
        if not self.via:
            return False
        try:
            _namespaces.private_mounts()
        except OSError as exc:
            self.why_mounts = f"no mount namespace ({exc.strerror})"
            if self.via == "user namespace":
                self.why_mounts += (
                    ": the user namespace came without capabilities (a policy such as "
                    "Ubuntu's kernel.apparmor_restrict_unprivileged_userns)"
                )
            return False
        return True

    def _pid_namespace(self, mount_ns: bool, cgroup: _cgroup.JobCgroup | None) -> int | None:
        if not mount_ns:
            reason = self.why_no_namespaces or self.why_mounts
            self.report.add("pid_namespace", False, reason or "needs a mount namespace")
            return None
        try:
            return _namespaces.enter_pid_namespace(cgroup)
        except OSError as exc:
            self.report.add("pid_namespace", False, f"no PID namespace ({exc.strerror})")
            return None

    # ------------------------------------------------------------------ filesystem
    def _filesystem(self, mount_ns: bool, host_pid: int | None) -> ServerIsolation:
        """The minimal root (or host view) in the mount namespace, else a private
        scratch parent in the host's /tmp for Landlock to confine the children to."""
        report = self.report
        child_uid = self._children_uid()
        if mount_ns and self.plan is not None:
            try:
                visible, private_proc = _rootfs.build_root(
                    self.plan, _STAGING, *child_uid, fresh_proc=host_pid is not None
                )
            except OSError as exc:
                return self._host_view(
                    host_pid,
                    f"the minimal root could not be built ({exc}); fell back to the "
                    "read-only host view",
                )
            report.visible = visible
            report.add("filesystem", True, _rootfs_detail(self.plan, visible), self.via)
            self._pid_report(host_pid, private_proc)
            iso = ServerIsolation(report, _rootfs.SCRATCH_DIR)
            iso.shm_dir = _rootfs.SHM_DIR
            iso.tmpfs_mount = _rootfs.SCRATCH_DIR
            return self._identify(iso, host_pid)
        if mount_ns:
            return self._host_view(
                host_pid,
                "the read-only host view was asked for (filesystem='host'): every "
                "world-readable host file is visible",
            )
        report.scratch_parent = make_private_parent()
        iso = ServerIsolation(report, os.path.join(report.scratch_parent, JOB_NAME))
        return self._identify(iso, host_pid)

    def _host_view(self, host_pid: int | None, why: str) -> ServerIsolation:
        detail, error = setup_host_view(why)
        self.report.add("filesystem", False, detail or error)
        if host_pid is not None:
            try:
                _rootfs.mount_fresh_proc("/proc")
                self._pid_report(host_pid, True)
            except OSError:
                self._pid_report(host_pid, False)
        if error:
            self.report.scratch_parent = make_private_parent()
            scratch = os.path.join(self.report.scratch_parent, JOB_NAME)
            return self._identify(ServerIsolation(self.report, scratch), host_pid)
        self.report.visible = ["/"]
        os.mkdir(_rootfs.SCRATCH_PARENT, 0o711)
        iso = ServerIsolation(self.report, _rootfs.SCRATCH_DIR)
        iso.shm_dir = "/dev/shm"
        return self._identify(iso, host_pid)

    def _identify(self, iso: ServerIsolation, host_pid: int | None) -> ServerIsolation:
        if host_pid is not None:
            iso.host_pid = host_pid
        return iso

    def _pid_report(self, host_pid: int | None, private_proc: bool) -> None:
        if host_pid is None:
            return
        if private_proc:
            self.report.add(
                "pid_namespace",
                True,
                "the server is pid 1 of its own PID namespace; a private /proc shows the "
                "sandbox's processes only",
                self.via,
            )
        else:
            self.report.add(
                "pid_namespace",
                False,
                "a PID namespace, but the kernel refused it a /proc of its own (the "
                "host's /proc has covered entries, as in a container): /proc shows the "
                "host's processes",
            )

    # ------------------------------------------------------------------ the rest
    def _children_uid(self) -> tuple[int | None, int | None]:
        """The uid/gid children run as, where they get one of their own."""
        if self.userns is not None:
            return self.userns.uid, self.userns.gid
        if self.root and all(
            _userns.has_capability(self.caps, c) for c in (_userns.CAP_SETUID, _userns.CAP_SETGID)
        ):
            return self.uid, self.uid
        return None, None

    def _users(self, iso: ServerIsolation) -> None:
        report = self.report
        iso.uid, iso.gid = self._children_uid()
        if self.userns is not None and self.userns.kind == "single":
            iso.single_uid = True
            # The waiter, the server and the zygote share the uid in the namespace.
            iso.nproc_extra = 3
            iso.nproc_limit = _per_userns_nproc()
            scoped = _landlock.abi_version() >= 6
            report.add(
                "unprivileged_uid",
                scoped,
                f"children run as uid {iso.uid} inside (the host user's uid "
                f"{self.userns.host_uid} outside) with no capabilities; "
                + (
                    "Landlock scopes their signals to the job"
                    if scoped
                    else "Landlock cannot scope signals on this kernel (ABI < 6): a job "
                    "could signal its own server's zygote"
                ),
                "user namespace",
            )
        elif iso.uid is not None:
            via = "user namespace" if self.userns is not None else "root"
            report.add(
                "unprivileged_uid",
                True,
                f"children run as uid/gid {iso.uid}, no groups, no capabilities",
                via,
            )
        else:
            report.add(
                "unprivileged_uid",
                False,
                "children keep the host's uid (no user namespace, no CAP_SETUID)",
            )
        if iso.nproc_limit and (iso.uid is not None):
            report.add(
                "process_limit",
                True,
                "RLIMIT_NPROC per server uid bounds forks and threads",
                "rlimit",
            )
        else:
            report.add(
                "process_limit",
                False,
                "RLIMIT_NPROC would count the host user's own processes here",
            )
            iso.nproc_limit = False

    def _cgroup(self, iso: ServerIsolation, cgroup: _cgroup.JobCgroup | None, why: str) -> None:
        if cgroup is not None:
            try:
                cgroup.enter()
            except OSError as exc:
                why = f"could not enter {cgroup.path} ({exc.strerror})"
                cgroup = None
        if cgroup is None:
            self.report.add("cgroup", False, f"per-process rlimits only: {why}")
            return
        iso.cgroup = cgroup
        self.report.add(
            "cgroup",
            True,
            f"{cgroup.path}: memory.max = the job's memory, pids.max = its processes, "
            "for the whole job (every process, shared memory, tmpfs)",
            "cgroup v2",
        )

    def _seccomp(self, iso: ServerIsolation, network: bool) -> None:
        choice = self.filters.get("plain" if network else "socket_filter")
        if choice and choice.get("bpf"):
            import base64

            iso.seccomp = SeccompProgram(base64.b64decode(choice["bpf"]))
            self.report.add("seccomp", True, choice["detail"], "seccomp")
            if not network:
                # seccomp's socket filter stands in for the missing network namespace.
                layer = self.report.layer("network")
                if layer is not None:
                    layer.active = True
                    layer.via = "seccomp"
                    layer.detail += "; replaced by a seccomp filter denying non-unix sockets"
        else:
            reason = self.filters.get("error", "no filter was compiled")
            self.report.add("seccomp", False, f"libseccomp unavailable: {reason}")

    def _landlock(self, iso: ServerIsolation, mount_ns: bool) -> None:
        abi = _landlock.abi_version()
        if abi == 0:
            self.report.add("landlock", False, "the kernel offers no Landlock (or disabled it)")
            return
        try:
            ruleset = _landlock.Ruleset(abi)
            writable = [iso.scratch_dir] + ([iso.shm_dir] if iso.shm_dir else [])
            ruleset.allow(writable, _landlock.READ | _landlock.WRITE)
            ruleset.allow(_DEVICE_WRITES, _landlock.READ | _landlock.WRITE_FILE)
            if mount_ns:
                ruleset.allow(["/"], _landlock.READ)
                scope = "reads: the sandbox's view"
            else:
                readable = list(self.plan["binds"]) if self.plan else ["/"]
                ruleset.allow(readable, _landlock.READ)
                scope = f"reads: the {len(readable)} planned paths only (no /proc)"
        except OSError as exc:
            self.report.add("landlock", False, f"ruleset refused: {exc}")
            return
        iso.landlock = ruleset
        self.report.add(
            "landlock",
            True,
            f"{ruleset.describe()}; {scope}; writes: the scratch dir"
            + (", /dev/shm" if iso.shm_dir else "")
            + " and the device nodes",
            "landlock",
        )
        if not mount_ns:
            self.report.add(
                "filesystem",
                True,
                "no mount namespace: Landlock rules allow reading only the "
                f"{len(self.plan['binds']) if self.plan else 0} paths the root plan lists "
                "and writing only the scratch dir (no /etc, /home or /proc)",
                "landlock",
            )


def _rootfs_detail(plan: dict[str, Any], visible: list[str]) -> str:
    detail = (
        f"minimal root: a fresh tmpfs; bound read-only (recursively): the interpreter's "
        f"import roots ({', '.join(plan.get('python', []))}), {plan.get('libraries', 0)} "
        f"shared libraries and the loader, /bin/sh, {', '.join(_rootfs.TOOLS)}, ldconfig, "
        f"{', '.join(_rootfs.DEVICES)}, /usr/share/zoneinfo; synthetic /etc (passwd, "
        f"group, nsswitch.conf, hosts, services, protocols; localtime and ld.so.cache "
        f"bound); writable: the job's scratch dir and /dev/shm only, one tmpfs sized to "
        f"the job's memory; {len(visible)} paths visible (doctor lists them)"
    )
    if plan.get("mount_ro"):
        detail += "; mount_ro: " + ", ".join(plan["mount_ro"])
    return detail


def current_limits() -> dict[str, tuple[int, int]]:
    """The current rlimits of this process, for diagnostics."""
    names = ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_NPROC")
    return {name: resource.getrlimit(getattr(resource, name)) for name in names}
