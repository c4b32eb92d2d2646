"""``filesystem="host"``: the whole host, read-only — the view before the minimal root.

Kept for comparisons only (the filesystem layer then counts as missing).  In the
server's private mount namespace every mount turns read-only (recursively, see
``_mounts.make_read_only``), directories the sandbox uid could not traverse anyway (e.g.
``/root``, 0700) are covered by an empty tmpfs with the import roots under them bound
back, and ``/tmp``, ``/var/tmp``, ``/dev/shm`` get private tmpfs (the scratch dir lives
in ``/tmp``).
"""

from __future__ import annotations

import os
import sys

from execlens.engine._mounts import MS_BIND, MS_NODEV, MS_NOSUID, MS_REC, make_read_only, mount
from execlens.engine._rootfs import SANDBOX_TMPFS_DIRS, is_under, outermost

__all__ = ["setup_host_view"]


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
    directory, so no staging mount point is needed.  Opened after ``unshare``, so the
    source mount is in our namespace.
    """

    def __init__(self, paths: list[str]) -> None:
        self.fds = {path: os.open(path, os.O_PATH | os.O_DIRECTORY) for path in paths}

    def restore(self, cover: str) -> list[str]:
        """Bind back, read-only, every path under ``cover`` (just covered by a tmpfs)."""
        restored = []
        for path, fd in self.fds.items():
            if is_under(path, cover) and path != cover:
                os.makedirs(path, exist_ok=True)
                mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
                make_read_only(path)
                restored.append(path)
        return restored

    def close(self) -> None:
        for fd in self.fds.values():
            os.close(fd)


def setup_host_view(why: str) -> tuple[str, str]:
    """Build the view in the current (private) mount namespace.

    Returns (detail for the report, '') or ('', the error) when it could not be built.
    """
    hidden: list[str] = []
    bound_back: list[str] = []
    bind_back: _BindBack | None = None
    try:
        roots = _import_roots()
        blocked = _blocked_ancestors(roots)
        covered = [r for r in roots if any(is_under(r, d) for d in SANDBOX_TMPFS_DIRS)]
        bind_back = _BindBack(outermost(covered + [p for ps in blocked.values() for p in ps]))
        make_read_only("/")
        for ancestor in blocked:
            mount("tmpfs", ancestor, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=1m")
            bound_back += bind_back.restore(ancestor)
            hidden.append(ancestor)
        for directory in SANDBOX_TMPFS_DIRS:
            if os.path.isdir(directory):
                mount("tmpfs", directory, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=512m")
                bound_back += bind_back.restore(directory)
    except OSError as exc:
        return "", f"mount setup failed ({exc})"
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
    return detail, ""
