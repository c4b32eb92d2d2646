"""The job's writable places, made and emptied without ever following a link.

Every operation goes through descriptors: the scratch dir's parent is opened once
(``O_DIRECTORY | O_NOFOLLOW``), the job dir is made with ``mkdirat`` and opened with
``O_NOFOLLOW``, its owner and mode are set with ``fchown``/``fchmod``, and emptying it walks
the tree with ``openat(O_NOFOLLOW)`` and ``unlinkat`` (iteratively, holding one descriptor:
a job may nest directories deeper than Python recursion or the descriptor limit).  A
link a job planted is removed as a link, never followed.

Where the server has a mount namespace the places live in the sandbox's own tmpfs
(``_rootfs``): the job dir and ``/dev/shm`` are mounts of their own (a job cannot rename or
replace them) inside a read-only ``/tmp``.  Without one (Landlock only, or
``isolation="none"``) the parent is a fresh ``mkdtemp`` directory (random name, created
exclusively, mode 0711): nothing at a predictable path in a shared ``/tmp`` is reused.

:meth:`Scratch.reset`, before each child, also clears what else a job could leave for
the next one: System V IPC objects (in the server's private IPC namespace), and it sizes
the tmpfs and the server's cgroup to the next job's memory.
"""

from __future__ import annotations

import os
import stat
import tempfile
from typing import TYPE_CHECKING

from execlens.engine import _sysvipc
from execlens.engine._mounts import MS_NODEV, MS_NOSUID, MS_REMOUNT, mount

if TYPE_CHECKING:
    from execlens.engine._isolation import ServerIsolation

__all__ = ["Scratch", "make_private_parent"]

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
JOB_NAME = "job"


def make_private_parent() -> str:
    """A fresh scratch parent in the host's temporary directory (no mount namespace)."""
    parent = tempfile.mkdtemp(prefix="execlens-scratch-")
    fd = os.open(parent, _DIR_FLAGS)
    try:
        os.fchmod(fd, 0o711)  # the sandbox uid traverses it to its own dir, lists nothing
    finally:
        os.close(fd)
    return parent


def _open_dir(parent_fd: int, name: str) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except PermissionError:
        # A job made it unreadable; its owner may make it readable again (root needs not).
        # It was seen as a directory, not a link, and nothing of the job is alive now.
        os.chmod(name, 0o700, dir_fd=parent_fd)
        return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)


def empty_directory(top_fd: int) -> None:
    """Remove everything inside the directory open on ``top_fd`` (which stays)."""
    fd = os.dup(top_fd)
    names: list[str] = []  # the path from top to fd, one name per level
    try:
        while True:
            below = None
            with os.scandir(fd) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        below = entry.name
                        break
                    os.unlink(entry.name, dir_fd=fd)
            if below is not None:
                child = _open_dir(fd, below)
                os.close(fd)
                fd = child
                names.append(below)
                continue
            if not names:
                return
            parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = parent
            os.rmdir(names.pop(), dir_fd=fd)
    finally:
        os.close(fd)


class Scratch:
    """One scratch directory per server (and its ``/dev/shm``), emptied between children."""

    def __init__(self, iso: ServerIsolation) -> None:
        self.path: str = iso.scratch_dir
        self._uid: int | None = iso.uid
        self._gid: int | None = iso.gid
        self._parent_fd = os.open(os.path.dirname(self.path), _DIR_FLAGS)
        self._name = os.path.basename(self.path)
        self._fd = self._open_or_create()
        self._shm_fd = os.open(iso.shm_dir, _DIR_FLAGS) if iso.shm_dir else -1
        self._private_ipc: bool = iso.private_ipc
        self._tmpfs_mount: str | None = iso.tmpfs_mount
        self._tmpfs_mb = -1
        self._cgroup = iso.cgroup
        self._own(self._fd)
        # In the sandbox's own tmpfs the job dir is a mount point (nothing can replace it)
        # and a tmpfs directory's size counts its entries: one fstat tells an empty one,
        # without listing it.  The server is between two children on every reset.
        self._pinned = iso.tmpfs_mount is not None
        self._empty_size = -1
        if self._pinned and not os.listdir(self._fd):
            self._empty_size = os.fstat(self._fd).st_size

    def _own(self, fd: int) -> None:
        if self._uid is not None and self._gid is not None:
            os.fchown(fd, self._uid, self._gid)
        os.fchmod(fd, 0o700)

    def _open_or_create(self) -> int:
        try:
            os.mkdir(self._name, 0o700, dir_fd=self._parent_fd)
        except FileExistsError:
            pass
        return os.open(self._name, _DIR_FLAGS, dir_fd=self._parent_fd)

    def _replaced(self) -> bool:
        """Whether the name no longer leads to the directory we hold (a job replaced it)."""
        try:
            named = os.stat(self._name, dir_fd=self._parent_fd, follow_symlinks=False)
        except FileNotFoundError:
            return True
        held = os.fstat(self._fd)
        return (named.st_dev, named.st_ino) != (held.st_dev, held.st_ino)

    def _fresh(self, fd: int) -> bool:
        st = os.fstat(fd)
        if stat.S_IMODE(st.st_mode) != 0o700 or (self._uid is not None and st.st_uid != self._uid):
            return False
        if self._empty_size >= 0:
            return st.st_size == self._empty_size
        return not os.listdir(fd)

    def reset(self, memory_mb: int | None = None, max_processes: int | None = None) -> None:
        """Leave an empty scratch dir and ``/dev/shm`` and no IPC object, whatever the last
        child did; size the tmpfs and cgroup for a job of ``memory_mb``/``max_processes``."""
        if not self._pinned and self._replaced():
            # Only possible without a mount namespace and Landlock: remove whatever is at
            # the name (a link is removed, not followed) and make the directory again.
            try:
                named = os.stat(self._name, dir_fd=self._parent_fd, follow_symlinks=False)
                if stat.S_ISDIR(named.st_mode):
                    empty_directory(child := _open_dir(self._parent_fd, self._name))
                    os.close(child)
                    os.rmdir(self._name, dir_fd=self._parent_fd)
                else:
                    os.unlink(self._name, dir_fd=self._parent_fd)
            except FileNotFoundError:
                pass
            os.close(self._fd)
            self._fd = self._open_or_create()
            self._own(self._fd)
        if not self._fresh(self._fd):
            empty_directory(self._fd)
            self._own(self._fd)
        if self._shm_fd >= 0 and not self._fresh(self._shm_fd):
            empty_directory(self._shm_fd)
            self._own(self._shm_fd)
        if self._private_ipc and _sysvipc.leftovers():
            _sysvipc.remove_all()
        if memory_mb is not None:
            self._size(memory_mb, max_processes)

    def _size(self, memory_mb: int, max_processes: int | None) -> None:
        if self._tmpfs_mount is not None and memory_mb != self._tmpfs_mb:
            try:
                mount(
                    None,
                    self._tmpfs_mount,
                    None,
                    MS_REMOUNT | MS_NOSUID | MS_NODEV,
                    f"size={memory_mb}m",
                )
                self._tmpfs_mb = memory_mb
            except OSError:
                pass  # (a tmpfs holding more than the new size keeps its old one)
        if self._cgroup is not None:
            self._cgroup.apply(memory_mb, max_processes)
