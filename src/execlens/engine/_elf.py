"""What the dynamic loader would load: ELF ``DT_NEEDED`` closures, resolved as ``ld.so`` does.

:class:`Libraries` reads the ``DT_NEEDED``, ``RPATH`` and ``RUNPATH`` entries of each ELF
file it is given and follows them the way the loader searches (``RPATH``/``RUNPATH`` with
``$ORIGIN``, ``/etc/ld.so.conf``, the default directories), so the minimal root binds the
exact shared libraries the interpreter and its extension modules load, and nothing
guessed by directory.
"""

from __future__ import annotations

import os
import struct
import sys

__all__ = ["Libraries"]


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
    """Parse ``path``'s program headers and dynamic section; ``None`` if not ELF.

    Long because it is one straight pass over the file's layout (header, program
    headers, dynamic segment, string table): split into steps, each would re-take the
    same offsets and word sizes it reads in order."""
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


class Libraries:
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
