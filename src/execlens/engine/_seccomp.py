"""The syscall filter: compiled once by the host (libseccomp), loaded by each zygote.

Two variants (:func:`compile_seccomp_filters`):

* ``plain`` — with a private network namespace: the socket *families* honest programs
  use are allowed (``AF_UNIX``, ``AF_INET``, ``AF_INET6``, and ``AF_NETLINK`` for
  routing queries only, as ``getaddrinfo`` and ``if_nameindex`` make); every other family
  (``AF_VSOCK`` to the hypervisor, ``AF_ALG``, ``AF_PACKET``, Bluetooth, CAN, XDP...) fails
  with ``EAFNOSUPPORT``, the errno of a kernel without it.
* ``socket_filter`` — without one: ``AF_UNIX`` only (the filter stands in for the
  missing network namespace).

Families are compared on the low 32 bits (``MASKED_EQ``): the kernel reads an ``int``, so
a value with high bits set must not slip past an exact 64-bit comparison.
"""

from __future__ import annotations

import base64
import ctypes
import errno
from typing import Any

from execlens.engine._mounts import check_call, libc

__all__ = ["SeccompProgram", "build_seccomp_bpf", "compile_seccomp_filters"]

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2


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
        check_call(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, None, 0, 0), "PR_SET_NO_NEW_PRIVS")
        check_call(
            libc.prctl(
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
    # POSIX message queues live in the IPC namespace, which one server's jobs share;
    # nothing an honest program imports uses them (multiprocessing uses /dev/shm).
    "mq_open",
)
_AF_UNIX = 1
_AF_INET = 2
_AF_INET6 = 10
_AF_NETLINK = 16
_NETLINK_ROUTE = 0
# Every family number a kernel has (AF_MAX is 46 in Linux 6.x), with room to grow.
_FAMILIES = range(64)
_LOW_32 = 0xFFFFFFFF


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
    allowed = {_AF_UNIX} if block_network else {_AF_UNIX, _AF_INET, _AF_INET6, _AF_NETLINK}
    for family in _FAMILIES:
        if family not in allowed:
            filt.add_rule(
                seccomp.ERRNO(errno.EAFNOSUPPORT),
                "socket",
                seccomp.Arg(0, seccomp.MASKED_EQ, _LOW_32, family),
            )
    if not block_network:
        # Netlink for routing queries only (no audit, no uevents, no netfilter).
        filt.add_rule(
            seccomp.ERRNO(errno.EPROTONOSUPPORT),
            "socket",
            seccomp.Arg(0, seccomp.MASKED_EQ, _LOW_32, _AF_NETLINK),
            seccomp.Arg(2, seccomp.NE, _NETLINK_ROUTE),
        )
    filt.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socketpair", seccomp.Arg(0, seccomp.NE, 1))
    detail = (
        f"{denied} syscalls denied, clone3 → ENOSYS, namespace clones denied; socket "
        "families allowed: "
        + (
            "unix only (stands in for the network namespace)"
            if block_network
            else "unix, inet, inet6, netlink (routing); any other (vsock, alg, packet...) refused"
        )
    )
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
