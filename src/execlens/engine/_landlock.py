"""Landlock: the kernel's own, unprivileged filesystem (and signal, socket) sandbox.

Used in two ways (``_isolation`` decides):

* **beside the minimal root** — the children may read and execute anything under ``/``
  (the view is already minimal) and write only their scratch dir, ``/dev/shm`` and the
  device nodes; ``/proc`` and ``/sys`` files are never writable.
* **instead of it** where no mount namespace can be had (user namespaces refused): the
  children may read only what the root plan lists (the interpreter's import roots, the
  shared libraries, ``/bin/sh``, the device nodes, time zones) and write only their
  scratch dir.  ``/proc`` is not granted: the host's processes' files stay closed.

Either way, from ABI 4 TCP ``bind``/``connect`` are handled with no port allowed, and from
ABI 6 signals and abstract unix sockets are *scoped*: a child reaches only processes of
its own Landlock domain.  The ruleset is built once per server (:class:`Ruleset`) and each
child enters a domain of its own right after ``fork`` (:meth:`Ruleset.restrict`, one
system call), so it cannot signal its zygote or server, which sit outside that domain.

The ABI is asked of the kernel (``landlock_create_ruleset(NULL, 0, VERSION)``) and only
the rights that ABI knows are handled, as the kernel documentation prescribes.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterable

from execlens.engine._mounts import libc

__all__ = ["Ruleset", "abi_version"]

_prctl = libc.prctl
_syscall = libc.syscall

_SYS_CREATE_RULESET = 444
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

# Filesystem rights, by the ABI that introduced them.
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1}
_NET_TCP = 0b11  # ABI 4: bind and connect on TCP ports
_SCOPES = 0b11  # ABI 6: abstract unix sockets and signals

READ = EXECUTE | READ_FILE | READ_DIR
# Everything but the device-node rights: a child never makes a device node.
WRITE = (
    WRITE_FILE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SOCK
    | MAKE_FIFO
    | MAKE_SYM
    | REFER
    | TRUNCATE
)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is packed: 8 + 4 bytes
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi_version() -> int:
    """The Landlock ABI this kernel offers; 0 where it has none (or it is disabled)."""
    version = libc.syscall(_SYS_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    return int(version) if version > 0 else 0


class Ruleset:
    """A Landlock ruleset for the children of one server, built in the server."""

    def __init__(self, abi: int) -> None:
        self.abi = abi
        self.handled_fs = _FS_BY_ABI[min(abi, 3)]
        self.handled_net = _NET_TCP if abi >= 4 else 0
        self.scoped = _SCOPES if abi >= 6 else 0
        attr = _RulesetAttr(self.handled_fs, self.handled_net, self.scoped)
        # The struct grew with the ABI: older kernels refuse a size they do not know.
        size = 24 if abi >= 6 else (16 if abi >= 4 else 8)
        fd = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), size, 0)
        if fd < 0:
            err = ctypes.get_errno()
            raise OSError(err, f"landlock_create_ruleset: {os.strerror(err)}")
        self.fd = int(fd)
        self.rules = 0

    def allow(self, paths: Iterable[str], access: int) -> list[str]:
        """Grant ``access`` beneath each existing path; returns those granted."""
        granted = []
        for path in paths:
            try:
                parent = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # absent here: nothing to grant
            try:
                allowed = access & self.handled_fs
                if not os.path.isdir(path):
                    # Directory-only rights on a file are refused (EINVAL).
                    allowed &= EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE
                rule = _PathBeneath(allowed, parent)
                if libc.syscall(_SYS_ADD_RULE, self.fd, _RULE_PATH_BENEATH, ctypes.byref(rule), 0):
                    err = ctypes.get_errno()
                    raise OSError(err, f"landlock_add_rule {path}: {os.strerror(err)}")
            finally:
                os.close(parent)
            granted.append(path)
            self.rules += 1
        return granted

    def describe(self) -> str:
        """What a child is held to, in words."""
        parts = [f"ABI {self.abi}, {self.rules} path rules"]
        if self.handled_net:
            parts.append("no TCP bind or connect")
        if self.scoped:
            parts.append("signals and abstract unix sockets scoped to the job")
        return ", ".join(parts)

    def restrict(self) -> None:
        """Enter a new Landlock domain of this ruleset (in a child, right after fork).

        ``no_new_privs`` is set first (the kernel requires it without ``CAP_SYS_ADMIN``;
        the seccomp layer sets it too).
        """
        # Bound once here: every Python object a child touches costs a page copy.
        _prctl(_PR_SET_NO_NEW_PRIVS, 1, None, 0, 0)
        if _syscall(_SYS_RESTRICT_SELF, self.fd, 0):
            err = ctypes.get_errno()
            raise OSError(err, f"landlock_restrict_self: {os.strerror(err)}")
