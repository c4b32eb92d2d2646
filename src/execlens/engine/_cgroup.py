"""Memory and process limits for a whole job, through a cgroup v2 where one is delegated.

``RLIMIT_AS`` bounds each process of a job, not the job: a program that forks holds its
limit once per process, and pages in shared memory or a tmpfs belong to no process.  A
cgroup counts them all.  Where this process's cgroup v2 offers the ``memory`` and
``pids`` controllers to a child cgroup it may create (the root cgroup of a host or
container, or a subtree delegated to the user, e.g. by systemd's ``Delegate=yes``), each
fork server gets a cgroup of its own before its first child:

* ``memory.max`` = what the server and zygote use now + the job's ``memory_mb``, set
  before each child (:meth:`JobCgroup.apply`); ``memory.swap.max`` = 0;
* ``pids.max`` = the job's ``max_processes`` + the server and its zygote.

The server moves itself in (its zygote and every child are born there); the process the
host holds stays outside and removes the cgroup once the server is gone.  Elsewhere (no
cgroup v2, controllers bound to v1, a cgroup with processes of its own that may not
delegate) the report says why, and per-process rlimits are what remains.
"""

from __future__ import annotations

import os

__all__ = ["JobCgroup", "create"]

_PROCESSES_OUTSIDE_THE_JOB = 2  # the server and its zygote


def _own_cgroup() -> tuple[str, str] | None:
    """(cgroup2 mount point, this process's cgroup path) or ``None``."""
    path = None
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            if line.startswith("0::"):
                path = line[3:].strip()
    if path is None:
        return None
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            fields = line.split()
            dash = fields.index("-")
            if fields[dash + 1] == "cgroup2" and fields[3] == "/":
                return fields[4].replace("\\040", " "), path
    return None


def _read(path: str) -> str:
    with open(path) as handle:
        return handle.read()


class JobCgroup:
    """One server's cgroup: created beside the server before its namespaces, entered by
    the server, removed by the process the host holds once the server is gone.

    Held through descriptors: the pivot into the minimal root hides ``/sys`` from the
    server and from that waiting process alike (they share the mount namespace).
    """

    def __init__(self, parent_fd: int, name: str, path: str) -> None:
        self.parent_fd = parent_fd
        self.name = name
        self.path = path  # for the report
        self.dir_fd = os.open(name, os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=parent_fd)
        self._processes = -1

    def descriptors(self) -> tuple[int, int]:
        """The descriptors the waiting process must keep open to remove the cgroup."""
        return self.parent_fd, self.dir_fd

    def _write(self, name: str, value: str) -> None:
        fd = os.open(name, os.O_WRONLY, dir_fd=self.dir_fd)
        try:
            os.write(fd, value.encode())
        finally:
            os.close(fd)

    def enter(self) -> None:
        """Move the calling process (the server) in: its zygote and children are born here."""
        self._write("cgroup.procs", "0")

    def apply(self, memory_mb: int, max_processes: int | None) -> None:
        """Limit the next child: its memory on top of what is charged here now, and its
        processes (unchanged when ``None``)."""
        fd = os.open("memory.current", os.O_RDONLY, dir_fd=self.dir_fd)
        try:
            current = int(os.read(fd, 64))
        finally:
            os.close(fd)
        self._write("memory.max", str(current + memory_mb * 1024 * 1024))
        if max_processes is not None and max_processes != self._processes:
            self._write("pids.max", str(max_processes + _PROCESSES_OUTSIDE_THE_JOB))
            self._processes = max_processes

    def remove(self, attempts: int = 50) -> None:
        """Kill what is left inside and remove the cgroup (from the process outside)."""
        import time

        try:
            self._write("cgroup.kill", "1")
        except OSError:
            pass  # before Linux 5.14: the processes die with the server anyway
        for _ in range(attempts):
            try:
                os.rmdir(self.name, dir_fd=self.parent_fd)
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.02)


def create() -> tuple[JobCgroup | None, str]:
    """A new cgroup beside this process for one server, or ``None`` and why not."""
    try:
        found = _own_cgroup()
    except OSError as exc:
        return None, f"cannot read this process's cgroup ({exc.strerror})"
    if found is None:
        return None, "no cgroup v2 hierarchy is mounted here"
    mount_point, own = found
    parent = os.path.join(mount_point, own.lstrip("/"))
    try:
        controllers = _read(os.path.join(parent, "cgroup.controllers")).split()
    except OSError as exc:
        return None, f"cgroup v2 at {parent} is not readable ({exc.strerror})"
    missing = [c for c in ("memory", "pids") if c not in controllers]
    if missing:
        return None, (
            f"cgroup v2 offers no {' or '.join(missing)} controller here "
            f"(cgroup.controllers: {' '.join(controllers) or 'none'}; bound to cgroup v1?)"
        )
    try:
        enabled = _read(os.path.join(parent, "cgroup.subtree_control")).split()
        wanted = [c for c in ("memory", "pids") if c not in enabled]
        if wanted:
            with open(os.path.join(parent, "cgroup.subtree_control"), "w") as handle:
                handle.write(" ".join(f"+{c}" for c in wanted))
        name = f"execlens-{os.getpid()}-{os.urandom(4).hex()}"
        parent_fd = os.open(parent, os.O_DIRECTORY | os.O_CLOEXEC)
        os.mkdir(name, 0o755, dir_fd=parent_fd)
        cgroup = JobCgroup(parent_fd, name, os.path.join(parent, name))
    except OSError as exc:
        return None, (
            f"the cgroup {own} is not delegated to this process ({exc.strerror}); "
            "run under a delegated cgroup (e.g. systemd-run --user -p Delegate=yes)"
        )
    try:
        cgroup._write("memory.swap.max", "0")
    except OSError:
        pass  # no swap accounting here: nothing to bound
    return cgroup, ""
