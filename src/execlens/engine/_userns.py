"""Namespaces without root: entering a user namespace, and capabilities in and out of it.

A fork server that is not root, or is root without ``CAP_SYS_ADMIN`` (a default Docker or
Kubernetes container), cannot create mount, PID, network, IPC or UTS namespaces
directly.  As bubblewrap and nsjail do, it first creates a *user namespace*: there it
holds every capability over namespaces it then creates, and nothing over the host's.

Two kinds of uid map, chosen by what the host process may do (:func:`enter`):

* ``mapped`` — root without ``CAP_SYS_ADMIN`` but with ``CAP_SETUID``/``CAP_SETGID``: a
  helper forked *before* the unshare stays in the host's namespace and writes a two-line
  map, ``0 → 0`` for the server and ``R → R`` for the children (``R`` a random high id
  per server).  Children then drop to ``R`` exactly as on a root host: a uid no host
  process or file has, no capabilities, ``setgroups`` allowed.
* ``single`` — any other user: the kernel lets a process map only its own uid, so the
  server, its zygote and the children are all ``R`` inside (the host user's uid
  outside).  Children shed every capability with ``capset`` instead of a uid change; the
  PID namespace hides every host process from them, Landlock's signal scope keeps them
  from signalling their own server and zygote, and ``PR_SET_DUMPABLE=0`` keeps those
  two's memory and ``/proc`` entries closed.
"""

from __future__ import annotations

import ctypes
import os

from execlens.engine._mounts import check_call, libc

__all__ = [
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_SYS_ADMIN",
    "UserNamespace",
    "drop_bounding_set",
    "drop_capabilities",
    "effective_capabilities",
    "enter",
    "userns_limit",
]

CAP_SETGID = 6
CAP_SETUID = 7
CAP_SYS_ADMIN = 21
_CLONE_NEWUSER = 0x10000000
_PR_CAPBSET_DROP = 24
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_SYS_CAPSET = {"x86_64": 126, "aarch64": 91, "riscv64": 91, "ppc64le": 184, "s390x": 185}


def effective_capabilities() -> int:
    """This process's effective capability set, as a bit mask (``/proc/self/status``)."""
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("CapEff:"):
                return int(line.split()[1], 16)
    return 0


def has_capability(mask: int, cap: int) -> bool:
    """Whether ``cap`` is in ``mask``."""
    return bool(mask >> cap & 1)


def userns_limit() -> str:
    """``user.max_user_namespaces`` as the kernel reports it ('' where unreadable)."""
    try:
        with open("/proc/sys/user/max_user_namespaces") as handle:
            return handle.read().strip()
    except OSError:
        return ""


class UserNamespace:
    """The user namespace a server entered: how its ids map, who the children are."""

    def __init__(self, kind: str, uid: int, gid: int, host_uid: int, host_gid: int) -> None:
        self.kind = kind  # "mapped" (two ids) or "single" (the host user's own id only)
        self.uid = uid  # the children's uid inside
        self.gid = gid
        self.host_uid = host_uid  # the same uid as the host sees it
        self.host_gid = host_gid

    def describe(self) -> str:
        """One sentence for the report."""
        if self.kind == "mapped":
            return (
                f"a user namespace mapping root to root (the server) and {self.uid} to "
                f"{self.host_uid} (the children), written by a helper left outside"
            )
        return (
            f"a user namespace mapping only the host user's uid {self.host_uid} "
            f"(as {self.uid} inside)"
        )


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _failure(exc: OSError) -> str:
    reason = os.strerror(exc.errno) if exc.errno else str(exc)
    if exc.errno == 28:  # ENOSPC: the per-user count is at its limit, e.g. 0
        limit = userns_limit()
        reason = f"user namespaces are refused here (user.max_user_namespaces={limit or '?'})"
    elif exc.errno == 1:  # EPERM: a seccomp filter (Docker's default) or a policy
        reason = "the kernel refused it (a container's seccomp profile or a security policy)"
    return reason


def enter(uid: int) -> tuple[UserNamespace | None, str]:
    """Move this (single-threaded) process into a new user namespace.

    ``uid`` is the children's id inside.  Returns the namespace, or ``None`` and why not.
    After a failure past the ``unshare`` itself the process is left in a namespace where
    it can create nothing: the caller falls back to the layers that need no namespace.
    """
    host_uid, host_gid = os.geteuid(), os.getegid()
    caps = effective_capabilities()
    privileged = (
        host_uid == 0 and has_capability(caps, CAP_SETUID) and has_capability(caps, CAP_SETGID)
    )
    if privileged:
        return _enter_mapped(uid)
    try:
        check_call(libc.unshare(_CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
    except OSError as exc:
        return None, _failure(exc)
    try:
        _write("/proc/self/setgroups", "deny")  # required before an unprivileged gid map
        _write("/proc/self/uid_map", f"{uid} {host_uid} 1\n")
        _write("/proc/self/gid_map", f"{uid} {host_gid} 1\n")
    except OSError as exc:
        return None, "a user namespace without a uid map: " + _failure(exc)
    return UserNamespace("single", uid, uid, host_uid, host_gid), ""


def _enter_mapped(uid: int) -> tuple[UserNamespace | None, str]:
    """Root without ``CAP_SYS_ADMIN``: a helper in the host's namespace writes the map."""
    go_r, go_w = os.pipe()
    done_r, done_w = os.pipe()
    parent = os.getpid()
    helper = os.fork()
    if helper == 0:  # the helper: wait for the unshare, write both maps, report, exit
        os.close(go_w)
        os.close(done_r)
        status = 1
        try:
            if os.read(go_r, 1) == b"1":
                for name in ("uid_map", "gid_map"):
                    _write(f"/proc/{parent}/{name}", f"0 0 1\n{uid} {uid} 1\n")
                status = 0
        except OSError as exc:
            os.write(done_w, str(exc).encode()[:200])
        os._exit(status)
    os.close(go_r)
    os.close(done_w)
    try:
        check_call(libc.unshare(_CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
    except OSError as exc:
        os.write(go_w, b"0")
        os.close(go_w)
        os.close(done_r)
        os.waitpid(helper, 0)
        return None, _failure(exc)
    os.write(go_w, b"1")
    os.close(go_w)
    message = os.read(done_r, 256).decode(errors="replace")
    os.close(done_r)
    _, status = os.waitpid(helper, 0)
    if status != 0:
        return None, f"a user namespace without a uid map: {message or 'the helper failed'}"
    return UserNamespace("mapped", uid, uid, uid, uid), ""


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


_HEADER = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
_NO_CAPS = (_CapData * 2)()
_CAPSET = _SYS_CAPSET.get(os.uname().machine)


def drop_capabilities() -> None:
    """Clear this process's effective, permitted and inheritable sets (``capset``).

    Called after fork in a child of a ``single`` user namespace; prepared objects only.
    """
    if _CAPSET is None:
        raise OSError(38, "capset: unknown system call number on this architecture")
    check_call(libc.syscall(_CAPSET, ctypes.byref(_HEADER), ctypes.byref(_NO_CAPS)), "capset")


def drop_bounding_set() -> None:
    """Empty the bounding set: no ``execve`` (of a setuid or file-capability binary, or
    as uid 0) can grant a capability again.  Needs ``CAP_SETPCAP``; effective sets stay."""
    last = 40
    try:
        with open("/proc/sys/kernel/cap_last_cap") as handle:
            last = int(handle.read())
    except (OSError, ValueError):
        pass
    for cap in range(last + 1):
        libc.prctl(_PR_CAPBSET_DROP, cap, None, 0, 0)  # EINVAL past the last cap: ignored
