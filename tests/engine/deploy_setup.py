"""Run a command under one of the deployments users run execlens in (from a root shell).

    python tests/engine/deploy_setup.py SETUP -- COMMAND...

Every set-up runs in a private mount namespace whose ``/home`` is a fresh tmpfs (with
a directory holding a submount, for the ``mount_ro`` case): nothing on the host changes.

* ``root``       — root with every capability;
* ``no-sysadmin`` — root without ``CAP_SYS_ADMIN`` (a default Docker/Kubernetes container);
* ``user``       — a non-root uid; ``/root`` (0700 here) is covered by an empty tmpfs
  with the interpreters' directories bound back read-only;
* ``no-userns``  — as ``user``, inside a user namespace of this script's own whose
  ``user.max_user_namespaces`` is 0: the engine cannot make one.

Used by ``test_deployments.py``; needs root (it is how CI runs ``make test``).
"""

from __future__ import annotations

import ctypes
import os
import sys

UID = GID = 4242
_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_MS_BIND, _MS_REC, _MS_PRIVATE, _MS_REMOUNT, _MS_RDONLY = 4096, 16384, 1 << 18, 32, 1
_PR_CAPBSET_DROP = 24
_CAP_SYS_ADMIN = 21
_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    _check(
        _libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def _needed_paths() -> list[str]:
    """The directories a non-root user must reach: every interpreter the tests start."""
    paths = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    recorded = os.path.join(sys.prefix, "execlens-program-python")
    if os.path.exists(recorded):
        with open(recorded) as handle:
            program = handle.read().strip()
        paths.add(os.path.dirname(os.path.dirname(program)))
        paths.add(os.path.dirname(os.path.realpath(program)))
        paths.add(os.path.dirname(os.path.dirname(os.path.realpath(program))))
    return sorted(os.path.realpath(p) for p in paths)


def _blocked(paths: list[str]) -> dict[str, list[str]]:
    """Each outermost ancestor others cannot traverse → the needed paths under it."""
    found: dict[str, list[str]] = {}
    for path in paths:
        current = "/"
        for part in path.strip("/").split("/"):
            current = os.path.join(current, part)
            if current != path and not os.stat(current).st_mode & 0o001:
                found.setdefault(current, []).append(path)
                break
    return found


SUBMOUNT = "/home/execlens-submount/data"


def _private_view(passable: bool) -> None:
    """A mount namespace of this process's own: /home a fresh tmpfs anyone may write
    (the fake home directories go there), holding a directory with a submount for the
    mount_ro test (``EXECLENS_TEST_SUBMOUNT``); with ``passable``, /root (0700) covered
    and the interpreters' directories under it bound back read-only."""
    _check(_libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
    _mount("tmpfs", "/home", "tmpfs", 0, "mode=1777")
    os.makedirs(SUBMOUNT + "/sub")
    with open(SUBMOUNT + "/top.txt", "w") as handle:
        handle.write("top")
    _mount("tmpfs", SUBMOUNT + "/sub", "tmpfs", 0, "mode=755,size=1m")
    with open(SUBMOUNT + "/sub/inner.txt", "w") as handle:
        handle.write("inner")
    os.environ["EXECLENS_TEST_SUBMOUNT"] = SUBMOUNT
    if not passable:
        return
    for cover, inside in _blocked(_needed_paths()).items():
        keep = {path: os.open(path, os.O_PATH) for path in inside}
        _mount("tmpfs", cover, "tmpfs", 0, "mode=755")
        for path, fd in keep.items():
            os.makedirs(path, exist_ok=True)
            _mount(f"/proc/self/fd/{fd}", path, None, _MS_BIND | _MS_REC)
            _mount(None, path, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY)
            os.close(fd)


def _refuse_user_namespaces() -> None:
    """Enter a user namespace (ids 0 and UID mapped by a helper left outside) and set its
    user.max_user_namespaces to 0: nothing below may create another."""
    read_fd, write_fd = os.pipe()
    parent = os.getpid()
    helper = os.fork()
    if helper == 0:
        os.close(write_fd)
        os.read(read_fd, 1)
        for name in ("uid_map", "gid_map"):
            with open(f"/proc/{parent}/{name}", "w") as handle:
                handle.write(f"0 0 1\n{UID} {UID} 1\n")
        os._exit(0)
    os.close(read_fd)
    _check(_libc.unshare(_CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
    os.write(write_fd, b"1")
    os.close(write_fd)
    _, status = os.waitpid(helper, 0)
    if status:
        raise SystemExit("could not map the test user namespace")
    with open("/proc/sys/user/max_user_namespaces", "w") as handle:
        handle.write("0")


def _become_user() -> None:
    os.setgroups([])
    os.setresgid(GID, GID, GID)
    os.setresuid(UID, UID, UID)
    home = f"/tmp/execlens-deploy-home-{UID}"
    os.makedirs(home, exist_ok=True)
    os.environ["HOME"] = home


def main(argv: list[str]) -> None:
    """Set the deployment up, then exec the command."""
    if os.geteuid() != 0 or "--" not in argv:
        raise SystemExit(__doc__)
    setup, command = argv[0], argv[argv.index("--") + 1 :]
    if setup not in ("root", "no-sysadmin", "user", "no-userns"):
        raise SystemExit(f"unknown set-up {setup!r}")
    _private_view(passable=setup in ("user", "no-userns"))
    if setup == "no-sysadmin":
        _check(_libc.prctl(_PR_CAPBSET_DROP, _CAP_SYS_ADMIN, 0, 0, 0), "PR_CAPBSET_DROP")
    elif setup in ("user", "no-userns"):
        if setup == "no-userns":
            _refuse_user_namespaces()
        _become_user()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
