"""The sandbox's minimal root: what a fork server binds into a fresh tmpfs, and the binding.

Two halves.  :func:`plan_root` runs in a server *before* isolation (as root, in the
host's view) and lists what the program interpreter needs: its standard library, every
``sys.path`` entry, the program venv, execlens's own package, the interpreter binary,
``/bin/sh`` and two small tools, and — found by reading the ``DT_NEEDED`` entries of
every ELF file among them, the way the dynamic loader searches (``RPATH``/``RUNPATH``
with ``$ORIGIN``, ``/etc/ld.so.conf``, the default directories) — the exact shared
libraries those load, plus the loader itself.  Nothing is guessed by directory: a
library no extension module or binary names is not there.  Paths a user asked for
(``mount_ro``) join the list.  The plan is plain JSON, so the host caches it after the
first server and hands it to the next (walking site-packages once per engine, not per
server).

:func:`build_root` then, in the server's private mount namespace, mounts a tmpfs,
recreates each planned path there (symlinks as symlinks, real files and directories as
read-only bind mounts), adds ``/dev/null``, ``/dev/zero``, ``/dev/urandom``, private
tmpfs on ``/tmp``, ``/var/tmp`` and ``/dev/shm``, a synthetic ``/etc``, an empty
``/proc`` for the PID namespace's own, and pivots into it, detaching the host's root.
All of it happens once per server: children fork inside the finished view, so a job
pays nothing for it.

``/etc`` holds, each decided on its own:

* ``passwd``, ``group`` — synthetic: root and the sandbox uid/gid only (``pwd``,
  ``getpass``, ``ls -l`` resolve; no host account is named);
* ``nsswitch.conf`` — synthetic, ``files`` only, so glibc never dlopens a host NSS
  module (the host's names ``systemd``);
* ``hosts`` — synthetic, ``localhost`` only (no host names, no resolver config);
* ``localtime`` — the host's, read-only (``time.localtime`` must agree with the host
  run, and a time zone is no secret); ``/usr/share/zoneinfo`` for ``zoneinfo``;
* ``ld.so.cache`` — the host's, read-only: the loader's soname index, which ``ctypes``
  and lazily loaded libraries use; it names installed libraries, not their contents;
* nothing else: no ``shadow``, ``hostname``, ``resolv.conf``, ``ssl``, ``machine-id``…
"""

from __future__ import annotations

import ctypes
import os
import shutil
import struct
import sys
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["DEVICES", "RESERVED", "TOOLS", "build_root", "check_mount_ro", "detach", "plan_root"]

# The stdlib runs /bin/sh itself (os.system, os.popen, subprocess(shell=True)) and
# ``uname`` (platform.processor()); ``id`` lets a spawned process show which uid it got.
TOOLS = ("uname", "id")
# ``/dev/tty`` names the caller's own controlling terminal; children have none, so it
# opens to ENXIO, as on the host (without the node, programs would see ENOENT instead).
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/tty")
# Data the interpreter itself reads: time zones (zoneinfo, time.localtime) and the
# locale the servers run under (LANG=C.UTF-8).
_SYSTEM_DATA = (
    "/etc/localtime",
    "/etc/ld.so.cache",
    "/usr/share/zoneinfo",
    "/usr/lib/locale/C.utf8",
)
#: Private, writable tmpfs in every sandbox (the scratch dirs live there).
SANDBOX_TMPFS_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
_MAX_LINKS = 40

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
_MNT_DETACH = 2
# pivot_root has no glibc wrapper: the raw syscall, by architecture.
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}


# ----------------------------------------------------------------------------- ELF
class _Elf:
    """What the dynamic loader reads from one ELF file."""

    __slots__ = ("interp", "kind", "needed", "rpath", "runpath")

    def __init__(
        self,
        kind: tuple[int, int, int],
        interp: str | None,
        needed: list[str],
        rpath: list[str],
        runpath: list[str],
    ) -> None:
        self.kind = kind  # (class, byte order, machine): a library must match its loader
        self.interp = interp
        self.needed = needed
        self.rpath = rpath
        self.runpath = runpath


def _read_elf(path: str) -> _Elf | None:
    """Parse ``path``'s program headers and dynamic section; ``None`` if not ELF."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(64)
            if len(head) < 52 or head[:4] != b"\x7fELF":
                return None
            wide, order = head[4] == 2, "<" if head[5] == 1 else ">"
            (machine,) = struct.unpack(order + "H", head[18:20])
            if wide:
                (phoff,) = struct.unpack(order + "Q", head[32:40])
                phentsize, phnum = struct.unpack(order + "HH", head[54:58])
            else:
                (phoff,) = struct.unpack(order + "I", head[28:32])
                phentsize, phnum = struct.unpack(order + "HH", head[42:46])
            handle.seek(phoff)
            table = handle.read(phentsize * phnum)
            loads: list[tuple[int, int, int]] = []
            interp = None
            dynamic: tuple[int, int] | None = None
            for index in range(phnum):
                entry = table[index * phentsize : (index + 1) * phentsize]
                if wide:
                    p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack(
                        order + "IIQQQQ", entry[:40]
                    )
                else:
                    p_type, p_offset, p_vaddr, _, p_filesz = struct.unpack(
                        order + "IIIII", entry[:20]
                    )
                if p_type == 1:
                    loads.append((p_vaddr, p_offset, p_filesz))
                elif p_type == 2:
                    dynamic = (p_offset, p_filesz)
                elif p_type == 3:
                    handle.seek(p_offset)
                    interp = handle.read(p_filesz).split(b"\0", 1)[0].decode()
            needed: list[int] = []
            rpath: list[int] = []
            runpath: list[int] = []
            strtab = strsz = None
            if dynamic is not None:
                handle.seek(dynamic[0])
                raw = handle.read(dynamic[1])
                step, fmt = (16, order + "qQ") if wide else (8, order + "iI")
                for offset in range(0, len(raw) - step + 1, step):
                    tag, value = struct.unpack(fmt, raw[offset : offset + step])
                    if tag == 0:
                        break
                    if tag == 1:
                        needed.append(value)
                    elif tag == 5:
                        strtab = value
                    elif tag == 10:
                        strsz = value
                    elif tag == 15:
                        rpath.append(value)
                    elif tag == 29:
                        runpath.append(value)
            strings = b""
            if strtab is not None and strsz:
                for vaddr, file_offset, size in loads:  # DT_STRTAB is an address
                    if vaddr <= strtab < vaddr + size:
                        handle.seek(strtab - vaddr + file_offset)
                        strings = handle.read(strsz)
                        break
    except (OSError, struct.error, UnicodeDecodeError):
        return None

    def text(offsets: list[int]) -> list[str]:
        return [
            strings[o : strings.index(b"\0", o)].decode("utf-8", "replace")
            for o in offsets
            if 0 <= o < len(strings) and b"\0" in strings[o:]
        ]

    def search_path(offsets: list[int]) -> list[str]:
        return [d for joined in text(offsets) for d in joined.split(":") if d]

    return _Elf(
        (head[4], head[5], machine), interp, text(needed), search_path(rpath), search_path(runpath)
    )


def _ld_conf_dirs(path: str = "/etc/ld.so.conf", depth: int = 0) -> list[str]:
    """The directories ldconfig indexes (``include`` globs followed), in order."""
    import glob

    found: list[str] = []
    try:
        with open(path) as handle:
            lines = handle.read().splitlines()
    except OSError:
        return found
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("include") and depth < 8:
            pattern = line.split(None, 1)[1] if " " in line or "\t" in line else ""
            if pattern and not pattern.startswith("/"):
                pattern = os.path.join(os.path.dirname(path), pattern)
            for included in sorted(glob.glob(pattern)):
                found += _ld_conf_dirs(included, depth + 1)
        elif line.startswith("/"):
            found.append(line)
    return found


class _Libraries:
    """The shared-library closure of a set of ELF files, resolved as ``ld.so`` does."""

    def __init__(self) -> None:
        multiarch = getattr(sys.implementation, "_multiarch", "") or ""
        defaults = [f"/lib/{multiarch}", f"/usr/lib/{multiarch}"] if multiarch else []
        defaults += ["/lib64", "/usr/lib64", "/lib", "/usr/lib"]
        self.system_dirs = list(dict.fromkeys(_ld_conf_dirs() + defaults))
        self._elves: dict[str, _Elf | None] = {}
        self.found: set[str] = set()  # every library and loader, as the loader names it
        self._done: set[tuple[str, frozenset[str]]] = set()

    def elf(self, path: str) -> _Elf | None:
        if path not in self._elves:
            self._elves[path] = _read_elf(path)
        return self._elves[path]

    @staticmethod
    def _expand(dirs: list[str], origin: str) -> list[str]:
        out = []
        for directory in dirs:
            for token in ("$ORIGIN", "${ORIGIN}"):
                directory = directory.replace(token, origin)
            out.append(directory)
        return out

    def _find(self, name: str, kind: tuple[int, int, int], dirs: list[str]) -> str | None:
        if "/" in name:
            return name if os.path.isfile(name) else None
        for directory in dirs:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate):
                found = self.elf(candidate)
                if found is not None and found.kind == kind:
                    return candidate
        return None

    def add(self, path: str, inherited: tuple[str, ...] = ()) -> None:
        """``path`` (an executable or library) and, recursively, everything it needs."""
        # The inherited search path as a set: libraries that need each other through
        # $ORIGIN rpaths would otherwise grow it on every lap of the cycle, forever.
        key = (path, frozenset(inherited))
        if key in self._done:
            return
        self._done.add(key)
        info = self.elf(path)
        if info is None:
            return
        origins = {os.path.dirname(path), os.path.dirname(os.path.realpath(path))}
        rpath = [d for o in origins for d in self._expand(info.rpath, o)]
        runpath = [d for o in origins for d in self._expand(info.runpath, o)]
        if info.interp and os.path.isfile(info.interp):
            self.found.add(info.interp)
        # DT_RPATH (and the loaders' RPATH) count only for objects without DT_RUNPATH.
        chain = () if info.runpath else tuple(dict.fromkeys((*rpath, *inherited)))
        dirs = list(chain) + runpath + self.system_dirs
        for name in info.needed:
            library = self._find(name, info.kind, dirs)
            if library is not None:
                self.found.add(library)
                self.add(library, chain)


# ---------------------------------------------------------------------------- plan
class _Plan:
    """Paths to recreate: symlinks met on the way (path → target) and real paths to bind."""

    def __init__(self) -> None:
        self.links: dict[str, str] = {}
        self.binds: set[str] = set()

    def _resolve(self, path: str, depth: int = 0) -> str | None:
        """The real path of ``path``, recording every symlink met on the way."""
        if depth > _MAX_LINKS:
            return None
        current = "/"
        parts = [p for p in path.split("/") if p and p != "."]
        for index, part in enumerate(parts):
            if part == "..":
                current = os.path.dirname(current)
                continue
            candidate = os.path.join(current, part)
            if os.path.islink(candidate):
                target = os.readlink(candidate)
                self.links[candidate] = target
                rest = "/".join(parts[index + 1 :])
                joined = os.path.join(current, target)  # an absolute target replaces it
                return self._resolve(os.path.join(joined, rest) if rest else joined, depth + 1)
            current = candidate
        return current

    def add(self, path: str) -> bool:
        """Make ``path`` resolve in the new root as on the host; ``False`` if missing."""
        real = self._resolve(os.path.abspath(path))
        if real is None or real == "/" or not os.path.exists(real):
            return False
        self.binds.add(real)
        return True


def is_under(path: str, directory: str) -> bool:
    """Whether ``path`` is ``directory`` or inside it (both absolute, normalised)."""
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def outermost(paths: Iterable[str]) -> list[str]:
    """``paths`` without those inside another one (binding the outer one covers them)."""
    kept: list[str] = []
    for path in sorted(set(paths)):
        if not any(is_under(path, outer) for outer in kept):
            kept.append(path)
    return kept


def _python_roots() -> list[str]:
    """The directories the program interpreter imports from (this process is it)."""
    # The standard library (sys.path holds it and lib-dynload too; not asked of
    # sysconfig, whose import would add a module the children inherit).
    roots = {os.path.dirname(os.__file__)}
    # The cwd entry ``-m`` puts first is ``/`` for a server: never the whole host.
    roots.update(p for p in sys.path if p and p != "/" and os.path.exists(p))
    if sys.prefix != sys.base_prefix:
        roots.add(sys.prefix)  # a venv: pyvenv.cfg, bin/python, its site-packages
    # execlens itself, wherever a link on the path leads (see _process._execlens_root).
    roots.add(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    return sorted(roots)


def _extension_modules(roots: Sequence[str]) -> list[str]:
    """Every shared object under the import roots (extension modules, bundled libs)."""
    found = []
    for root in outermost(os.path.realpath(r) for r in roots):
        if os.path.isfile(root):
            continue
        for directory, _, files in os.walk(root):
            for name in files:
                if name.endswith(".so") or ".so." in name:
                    found.append(os.path.join(directory, name))
    return found


# Where the view's own structure lives: a user's directory may not replace these.
RESERVED = ("/", "/proc", "/dev", "/etc", *SANDBOX_TMPFS_DIRS)


def check_mount_ro(path: str) -> str:
    """The real path of a ``mount_ro`` entry; ``ValueError``/``FileNotFoundError`` if unusable."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"mount_ro path {path} does not exist")
    real = os.path.realpath(path)
    if real in RESERVED:
        raise ValueError(
            f"mount_ro path {path} would replace the sandbox's own {real}; "
            "give a directory below it"
        )
    return real


def plan_root(mount_ro: Sequence[str] = ()) -> dict[str, Any]:
    """What the minimal root must hold for this interpreter, as JSON-ready lists.

    ``{"links": [[path, target]...], "binds": [real paths], "python": [import roots],
    "libraries": N, "mount_ro": [...]}``.  Runs in the server before any isolation.
    """
    plan = _Plan()
    python = _python_roots()
    for root in python:
        plan.add(root)
    executables = [sys.executable, os.path.realpath(sys.executable), "/bin/sh"]
    server_path = os.environ.get("PATH", "/usr/bin:/bin")
    executables += [found for tool in TOOLS if (found := shutil.which(tool, path=server_path))]
    libraries = _Libraries()
    for path in executables:
        plan.add(path)
        libraries.add(path)
    for path in _extension_modules(python):  # already inside a bound root
        libraries.add(path)
    for library in sorted(libraries.found):
        plan.add(library)
    for path in _SYSTEM_DATA:
        plan.add(path)
    user = []
    for path in mount_ro:
        check_mount_ro(path)
        if not plan.add(path):
            raise FileNotFoundError(f"mount_ro path {path} does not exist")
        user.append(os.path.realpath(path))
    binds = outermost(plan.binds)
    links = {k: v for k, v in plan.links.items() if not any(is_under(k, b) for b in binds)}
    return {
        "links": sorted(links.items()),
        "binds": binds,
        "python": sorted({os.path.realpath(p) for p in python}),
        "libraries": len(libraries.found),
        "mount_ro": user,
    }


# --------------------------------------------------------------------------- build
def _load_libc() -> ctypes.CDLL:
    try:
        return ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:  # not glibc: ask the (heavier) finder
        from ctypes.util import find_library

        return ctypes.CDLL(find_library("c"), use_errno=True)


#: libc with the calls the isolation layers make (mount, umount2, unshare, prctl); one
#: handle for this module and ``_isolation``.
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


def _pivot_root(new_root: str) -> None:
    """Make ``new_root`` the root and detach the old one (no way back to it remains)."""
    number = _SYS_PIVOT_ROOT.get(os.uname().machine)
    os.chdir(new_root)
    if number is not None and libc.syscall(number, b".", b".") == 0:
        # The old root now sits on top of the new one, at "/": detach it.
        detach(".")
    else:  # an architecture without a known number: chroot (seccomp denies children it)
        os.chroot(".")
    os.chdir("/")


def _mkdirs(path: str) -> None:
    os.makedirs(path, mode=0o755, exist_ok=True)


def _bind(fd: int, target: str, is_dir: bool, flags: int) -> None:
    if is_dir:
        _mkdirs(target)
    else:
        _mkdirs(os.path.dirname(target))
        if not os.path.lexists(target):
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
    mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
    mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags)


def _etc_files(uid: int | None, gid: int | None) -> dict[str, str]:
    own_uid = uid if uid is not None else os.getuid()
    own_gid = gid if gid is not None else os.getgid()
    passwd = "root:x:0:0:root:/root:/usr/sbin/nologin\n"
    group = "root:x:0:\n"
    if own_uid != 0:
        passwd += f"sandbox:x:{own_uid}:{own_gid}:execlens sandbox:/tmp:/usr/sbin/nologin\n"
    if own_gid != 0:
        group += f"sandbox:x:{own_gid}:\n"
    return {
        "passwd": passwd,
        "group": group,
        "nsswitch.conf": "passwd: files\ngroup: files\nhosts: files\n",
        "hosts": "127.0.0.1\tlocalhost\n::1\tlocalhost\n",
    }


def build_root(
    plan: dict[str, Any],
    staging: str,
    uid: int | None,
    gid: int | None,
    keep_host_proc: bool = True,
) -> list[str]:
    """Build the planned root on a tmpfs at ``staging`` and pivot into it.

    Call in a private mount namespace (``/`` made private).  Every source is opened
    (``O_PATH``) before the tmpfs covers ``staging``, and bound from its descriptor, so a
    source under ``staging`` itself (a checkout under ``/tmp``) still reaches the view.
    The host's ``/proc`` is carried along (the PID namespace layer replaces it with its
    own); ``keep_host_proc=False`` leaves ``/proc`` empty.  Returns what is visible.
    """
    sources: list[tuple[str, int, bool]] = []
    try:
        for path in plan["binds"]:
            fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
            sources.append((path, fd, os.path.isdir(path)))
        devices = [
            (path, os.open(path, os.O_PATH | os.O_CLOEXEC))
            for path in DEVICES
            if os.path.exists(path)
        ]
        proc_fd = os.open("/proc", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            mount("tmpfs", staging, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=16m")
            os.chmod(staging, 0o755)
            for directory in SANDBOX_TMPFS_DIRS:
                target = staging + directory
                _mkdirs(target)
                mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=512m")
            for path, fd, is_dir in sources:
                _bind(fd, staging + path, is_dir, MS_NOSUID | MS_NODEV)
            for path, target in plan["links"]:
                _mkdirs(os.path.dirname(staging + path))
                if not os.path.lexists(staging + path):
                    os.symlink(target, staging + path)
            for path, fd in devices:
                # nodev would make them unusable; a read-only mount still lets a
                # character device be written (only regular files are refused).
                _bind(fd, staging + path, False, MS_NOSUID | MS_NOEXEC)
            for name, target in (
                ("fd", "/proc/self/fd"),
                ("stdin", "/proc/self/fd/0"),
                ("stdout", "/proc/self/fd/1"),
                ("stderr", "/proc/self/fd/2"),
            ):
                if not os.path.lexists(f"{staging}/dev/{name}"):
                    os.symlink(target, f"{staging}/dev/{name}")
            _mkdirs(staging + "/etc")
            for name, text in _etc_files(uid, gid).items():
                if not os.path.lexists(f"{staging}/etc/{name}"):
                    with open(f"{staging}/etc/{name}", "w") as handle:
                        handle.write(text)
                    os.chmod(f"{staging}/etc/{name}", 0o644)
            _mkdirs(staging + "/proc")
            if keep_host_proc:
                mount(f"/proc/self/fd/{proc_fd}", staging + "/proc", None, MS_BIND | MS_REC)
            # The skeleton itself read-only: only /tmp, /var/tmp, /dev/shm stay writable
            # (by root: the server makes each job's scratch dir there).
            mount(None, staging, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
        finally:
            os.close(proc_fd)
            for _, fd in devices:
                os.close(fd)
    finally:
        for _, fd, _ in sources:
            os.close(fd)
    _pivot_root(staging)
    return sorted([*plan["binds"], *DEVICES, *(f"/etc/{n}" for n in _etc_files(uid, gid))])
