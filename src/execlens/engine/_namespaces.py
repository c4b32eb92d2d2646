"""The namespaces a fork server creates for itself: network, IPC, UTS, mount and PID.

Each is one ``unshare`` in the server before any job runs (as root, or inside the
server's own user namespace, ``_userns``); every forked child inherits it at no cost.

* network — no interface up: no address, not even loopback, reaches anything;
* IPC — System V objects and POSIX message queues of no other server or host process
  (``_sysvipc`` clears them between this server's jobs);
* UTS — a host name of its own, ``execlens``: the host's name is not shown, and
  ``socket.gethostname()`` answers the same on every machine;
* PID — the server becomes pid 1 of a namespace of its own (:func:`enter_pid_namespace`).
"""

from __future__ import annotations

import os
import signal
from typing import TYPE_CHECKING

from execlens.engine._mounts import MS_PRIVATE, MS_REC, check_call, libc, mount

if TYPE_CHECKING:
    from execlens.engine._cgroup import JobCgroup

__all__ = [
    "HOSTNAME",
    "enter_pid_namespace",
    "private_mounts",
    "set_child_subreaper",
    "set_parent_death_signal",
    "unshare_simple",
]

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
HOSTNAME = "execlens"
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_PDEATHSIG = 1
_SIGKILL = int(signal.SIGKILL)


def unshare_simple(flag: int) -> str:
    """``unshare(flag)`` for the network, IPC or UTS namespace; '' or why it failed."""
    try:
        check_call(libc.unshare(flag), "unshare")
    except OSError as exc:
        return exc.strerror or str(exc)
    if flag == CLONE_NEWUTS:
        name = HOSTNAME.encode()
        check_call(libc.sethostname(name, len(name)), "sethostname")
        check_call(libc.setdomainname(b"(none)", 6), "setdomainname")
    return ""


def private_mounts() -> None:
    """A mount namespace of our own, with nothing propagating back to the host."""
    check_call(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    mount(None, "/", None, MS_REC | MS_PRIVATE)


def enter_pid_namespace(cgroup: JobCgroup | None = None) -> int:
    """Make the rest of this process's life pid 1 of a new PID namespace.

    ``unshare(CLONE_NEWPID)`` only places this process's *children* in the namespace,
    so it forks once: the child carries on as the server (the namespace's init, which
    reaps whatever the zygote leaves), the parent stays behind as a waiter the host
    holds, and exits when the server does.  Returns the server's pid as the host sees
    it.  ``OSError`` if the namespace cannot be made (nothing changed then).  The waiter
    removes the server's ``cgroup`` once the server is gone.
    """
    check_call(libc.unshare(CLONE_NEWPID), "unshare(CLONE_NEWPID)")
    pid = os.fork()
    if pid:
        _wait_for_server(pid, cgroup)
    set_parent_death_signal()  # the waiter dies with the host: the namespace follows
    return int(os.readlink("/proc/self"))  # still the host's /proc: the host's pid


def _wait_for_server(pid: int, cgroup: JobCgroup | None) -> None:
    """The waiter: hold no descriptor of the server's, exit when the server does."""
    # The host sees EOF the moment the server is gone; only the cgroup's stay open.
    keep = sorted(cgroup.descriptors()) if cgroup is not None else []
    low = 3
    for fd in keep:
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)
    try:
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
    except ChildProcessError:
        code = 1
    if cgroup is not None:
        cgroup.remove()
    os._exit(code if code >= 0 else 128 - code)


def set_child_subreaper() -> None:
    """Make orphaned descendants reparent to this process (so it can reap them)."""
    check_call(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, None, 0, 0), "PR_SET_CHILD_SUBREAPER")


def set_parent_death_signal() -> None:
    """Have the kernel SIGKILL this process when its parent dies (server follows host)."""
    # Plain ints: the children call this after every fork, where each Python object
    # touched costs a copy-on-write fault.
    libc.prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0)
