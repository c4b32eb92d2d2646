"""Mount system calls the isolation layers share: ``mount``, ``umount2``, ``mount_setattr``.

One libc handle (``ctypes``, errno kept) for every module that mounts, unshares or calls
``prctl``.  :func:`make_read_only` is the one way a bind is made read-only: with
``mount_setattr(AT_RECURSIVE)`` (Linux 5.12) every submount of the bind turns read-only in
one call, and only the flags asked for are added (inside a user namespace a remount that
drops a locked flag the host set, e.g. ``noatime`` or ``nosuid``, is refused).  Older
kernels get the fallback: each submount remounted on its own with the flags it already
has (read from ``statvfs``) plus the new ones.
"""

from __future__ import annotations

import ctypes
import os

__all__ = [
    "MS_BIND",
    "MS_MOVE",
    "MS_NODEV",
    "MS_NOEXEC",
    "MS_NOSUID",
    "MS_PRIVATE",
    "MS_RDONLY",
    "MS_REC",
    "MS_REMOUNT",
    "check_call",
    "detach",
    "libc",
    "make_read_only",
    "mount",
    "submounts",
]

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_MOVE = 8192
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21
_MNT_DETACH = 2

# mount_setattr(2): the same number on every architecture (syscalls added after 5.1 share it).
_SYS_MOUNT_SETATTR = 442
_AT_RECURSIVE = 0x8000
_MOUNT_ATTR = {MS_RDONLY: 0x1, MS_NOSUID: 0x2, MS_NODEV: 0x4, MS_NOEXEC: 0x8}
# statvfs f_flag bits → the mount flags a remount must repeat.
_ST_TO_MS = (
    (os.ST_RDONLY, MS_RDONLY),
    (os.ST_NOSUID, MS_NOSUID),
    (os.ST_NODEV, MS_NODEV),
    (os.ST_NOEXEC, MS_NOEXEC),
    (os.ST_NOATIME, MS_NOATIME),
    (os.ST_NODIRATIME, MS_NODIRATIME),
    (os.ST_RELATIME, MS_RELATIME),
)


def _load_libc() -> ctypes.CDLL:
    try:
        return ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:  # not glibc: ask the (heavier) finder
        from ctypes.util import find_library

        return ctypes.CDLL(find_library("c"), use_errno=True)


#: libc with the calls the isolation layers make (mount, umount2, unshare, prctl, syscall).
libc = _load_libc()
libc.mount.argtypes = [
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_ulong,
    ctypes.c_void_p,
]
libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
libc.unshare.argtypes = [ctypes.c_int]
libc.prctl.argtypes = [
    ctypes.c_int,
    ctypes.c_ulong,
    ctypes.c_void_p,
    ctypes.c_ulong,
    ctypes.c_ulong,
]
libc.syscall.restype = ctypes.c_long


def check_call(result: int, what: str) -> None:
    """Raise ``OSError`` (with errno's message) when a libc call returned non-zero."""
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def mount(
    source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None
) -> None:
    """``mount(2)``; ``OSError`` naming ``target`` on failure."""
    check_call(
        libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            flags,
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def detach(target: str) -> None:
    """Lazily unmount ``target`` and everything below it."""
    check_call(libc.umount2(target.encode(), _MNT_DETACH), f"umount {target}")


def submounts(path: str) -> list[str]:
    """Mount points at or below ``path`` in this mount namespace, outermost first."""
    found = []
    prefix = path.rstrip("/") + "/"
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            point = line.split()[4].replace("\\040", " ")
            if point == path or point.startswith(prefix):
                found.append(point)
    return found


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


_setattr_works: bool | None = None  # None: not tried yet


def make_read_only(target: str, flags: int = 0) -> None:
    """Make the mount at ``target`` and every mount below it read-only, adding ``flags``
    (``MS_NOSUID``/``MS_NODEV``/``MS_NOEXEC``).

    ``mount_setattr(AT_RECURSIVE)`` where the kernel has it; else each submount is
    remounted with the flags it has plus these (a bind remount is not recursive).
    """
    global _setattr_works
    if _setattr_works is not False:
        attr = _MountAttr(
            _MOUNT_ATTR[MS_RDONLY] | sum(bit for flag, bit in _MOUNT_ATTR.items() if flags & flag),
            0,
            0,
            0,
        )
        result = libc.syscall(
            _SYS_MOUNT_SETATTR,
            -100,  # AT_FDCWD
            target.encode(),
            _AT_RECURSIVE,
            ctypes.byref(attr),
            ctypes.sizeof(attr),
        )
        if result == 0:
            _setattr_works = True
            return
        err = ctypes.get_errno()
        if err not in (38, 1):  # ENOSYS, EPERM (a seccomp filter): fall back below
            raise OSError(err, f"mount_setattr {target}: {os.strerror(err)}")
        _setattr_works = False
    for point in submounts(target):
        current = os.statvfs(point).f_flag
        kept = sum(ms for st, ms in _ST_TO_MS if current & st)
        mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept | flags)
