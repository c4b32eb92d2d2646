"""Which interpreter sandboxed programs run under, where that choice came from, and what
that interpreter holds.

One resolver for every reader (the engine, ``tasks``' skip reasons, the CLI's doctor and
warnings, the ground-truth caches), in this order:

1. an explicit interpreter (``Engine(python=...)``, ``--program-python``);
2. ``$EXECLENS_PROGRAM_PYTHON``;
3. the interpreter ``make install`` recorded in ``<sys.prefix>/execlens-program-python``
   (the host venv), so a plain ``.venv/bin/execlens`` runs programs under
   ``.venv-programs`` without any variable set;
4. this interpreter.

The program environment decides ground truth (REval's ``np.mat`` programs raise under
NumPy 2), so every ground-truth cache is keyed by :func:`program_fingerprint`, and
callers check a benchmark's declared requirements with :func:`unmet_requirements`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "PROGRAM_PYTHON_ENV",
    "RECORDED_PROGRAM_PYTHON",
    "ProgramFingerprint",
    "ProgramPython",
    "locate_program_python",
    "program_environment_warning",
    "program_fingerprint",
    "record_program_python",
    "recorded_program_python_file",
    "unmet_requirements",
]

PROGRAM_PYTHON_ENV = "EXECLENS_PROGRAM_PYTHON"
#: The file (under the host interpreter's ``sys.prefix``) ``make install`` writes.
RECORDED_PROGRAM_PYTHON = "execlens-program-python"

# Where the choice came from, as doctor prints it.
SOURCE_GIVEN = "given"
SOURCE_ENV = f"${PROGRAM_PYTHON_ENV}"
SOURCE_RECORDED = "recorded by make install"
SOURCE_HOST = "this interpreter"


@dataclass(frozen=True)
class ProgramPython:
    """The program interpreter and where it came from (``given``,
    ``$EXECLENS_PROGRAM_PYTHON``, ``recorded by make install``, ``this interpreter``)."""

    path: str
    source: str
    origin: str = ""
    """For a recorded interpreter, the file it was read from."""

    def describe(self) -> str:
        """``"$EXECLENS_PROGRAM_PYTHON=/x/bin/python"``-style text for messages."""
        where = f" in {self.origin}" if self.origin else ""
        return f"{self.source}{where}: {self.path}"


def recorded_program_python_file(prefix: str | os.PathLike[str] | None = None) -> Path:
    """The file ``make install`` records the program interpreter in (under ``prefix``,
    default this interpreter's ``sys.prefix``: the host venv)."""
    return Path(prefix if prefix is not None else sys.prefix) / RECORDED_PROGRAM_PYTHON


def record_program_python(
    python: str | os.PathLike[str], prefix: str | os.PathLike[str] | None = None
) -> Path:
    """Record ``python`` (made absolute) as the default program interpreter of the
    installation at ``prefix``; returns the file written."""
    path = recorded_program_python_file(prefix)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(os.path.abspath(os.fspath(python)) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def locate_program_python(
    python: str | os.PathLike[str] | None = None, *, prefix: str | os.PathLike[str] | None = None
) -> ProgramPython:
    """The program interpreter and its source: ``python``, else
    ``$EXECLENS_PROGRAM_PYTHON``, else the interpreter recorded under ``prefix`` (default
    ``sys.prefix``), else this interpreter.  Nothing is checked here: the engine raises
    for an interpreter that is not an executable file, naming the source."""
    if python:
        return ProgramPython(os.fspath(python), SOURCE_GIVEN)
    from_env = os.environ.get(PROGRAM_PYTHON_ENV)
    if from_env:
        return ProgramPython(from_env, SOURCE_ENV)
    recorded = recorded_program_python_file(prefix)
    try:
        text = recorded.read_text(encoding="utf-8").strip()
    except OSError:
        text = ""
    if text:
        # A recorded interpreter that has gone (``.venv-programs`` deleted) is reported
        # by the engine rather than silently replaced by the host's NumPy 2.
        return ProgramPython(text, SOURCE_RECORDED, str(recorded))
    return ProgramPython(sys.executable, SOURCE_HOST)


# ------------------------------------------------------------------ fingerprint
_FINGERPRINT = (
    "import json, sys\n"
    "from importlib import metadata\n"
    "seen = {}\n"
    "for dist in metadata.distributions():\n"
    "    name = (dist.metadata['Name'] or '').strip()\n"
    "    if name:\n"
    "        seen.setdefault(name, dist.version)\n"
    "print(json.dumps({'version': sys.version.split()[0], 'prefix': sys.prefix,\n"
    "                  'implementation': sys.implementation.name, 'packages': seen}))\n"
)


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class ProgramFingerprint:
    """What a program interpreter is: its path, Python version, prefix and every installed
    distribution's version, with a digest of all of it for cache keys."""

    executable: str
    version: str
    prefix: str
    packages: Mapping[str, str] = field(default_factory=dict)
    """Normalised distribution name -> version."""
    digest: str = ""

    def package(self, name: str) -> str | None:
        """The installed version of distribution ``name``, or None."""
        return self.packages.get(_normalise(name))

    def key(self) -> dict[str, Any]:
        """The part of a cache key that names this environment."""
        return {
            "executable": self.executable,
            "python": self.version,
            "numpy": self.package("numpy"),
            "distributions": self.digest,
        }


@functools.lru_cache(maxsize=16)
def _fingerprint(executable: str) -> ProgramFingerprint:
    # -I: the interpreter's own site-packages only (no PYTHONPATH, no user site), as
    # the engine's servers see them; execlens itself reaches them through PYTHONPATH.
    done = subprocess.run(
        [executable, "-I", "-c", _FINGERPRINT],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    data = json.loads(done.stdout.strip().splitlines()[-1])
    packages = {
        _normalise(name): str(version) for name, version in sorted(data["packages"].items())
    }
    listing = "\n".join(f"{name}=={version}" for name, version in sorted(packages.items()))
    digest = hashlib.sha256(
        f"{data['implementation']} {data['version']} {data['prefix']}\n{listing}".encode()
    ).hexdigest()[:16]
    return ProgramFingerprint(
        executable, str(data["version"]), str(data["prefix"]), packages, digest
    )


def program_fingerprint(python: str | os.PathLike[str] | None = None) -> ProgramFingerprint:
    """The fingerprint of the program interpreter :func:`locate_program_python` picks for
    ``python``: computed once per interpreter path in a process (one subprocess).

    The path is made absolute but symlinks are kept: two venvs over one base interpreter
    are two environments.  Raises ``OSError`` / ``subprocess.SubprocessError`` /
    ``ValueError`` for an interpreter that cannot report itself.
    """
    executable = os.path.abspath(locate_program_python(python).path)
    return _fingerprint(executable)


# ------------------------------------------------------------------ requirements
_CLAUSE = re.compile(r"\s*(<=|>=|==|!=|<|>)\s*([0-9][0-9A-Za-z.*+!-]*)\s*")


def _release(version: str) -> tuple[int, ...]:
    """The numeric release of a version (``1.26.4`` -> (1, 26, 4); ``2.0.0rc1`` -> (2, 0, 0))."""
    parts = []
    for piece in version.split("+")[0].split("."):
        digits = re.match(r"\d+", piece)
        if digits is None:
            break
        parts.append(int(digits.group()))
        if digits.end() != len(piece):
            break
    return tuple(parts)


def _compare(left: tuple[int, ...], right: tuple[int, ...]) -> int:
    width = max(len(left), len(right))
    a, b = left + (0,) * (width - len(left)), right + (0,) * (width - len(right))
    return (a > b) - (a < b)


_OPS = {
    "<": lambda c: c < 0,
    "<=": lambda c: c <= 0,
    ">": lambda c: c > 0,
    ">=": lambda c: c >= 0,
    "==": lambda c: c == 0,
    "!=": lambda c: c != 0,
}


def _satisfies(version: str, clauses: str) -> bool:
    for clause in filter(None, (c.strip() for c in clauses.split(","))):
        match = _CLAUSE.fullmatch(clause)
        if match is None:
            raise ValueError(f"unsupported version clause {clause!r}")
        operator, wanted = match.groups()
        if not _OPS[operator](_compare(_release(version), _release(wanted))):
            return False
    return True


def unmet_requirements(requirements: Iterable[str], fingerprint: ProgramFingerprint) -> list[str]:
    """The requirements (``"numpy<2"``, ``"pandas>=1.5,<3"``, ``"scipy"``) the program
    environment does not meet, each as ``"numpy<2 (found 2.1.3)"`` or
    ``"numpy<2 (not installed)"``.  Only numeric release comparisons are supported."""
    unmet = []
    for requirement in requirements:
        name_match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
        if name_match is None:
            raise ValueError(f"unsupported requirement {requirement!r}")
        name, clauses = name_match.group(1), requirement[name_match.end() :]
        found = fingerprint.package(name)
        if found is None:
            unmet.append(f"{requirement.strip()} (not installed)")
        elif not _satisfies(found, clauses):
            unmet.append(f"{requirement.strip()} (found {found})")
    return unmet


def program_environment_warning(
    needs: Mapping[str, Iterable[str]], python: str | os.PathLike[str] | None = None
) -> str | None:
    """One line saying which of ``needs`` (who -> requirements, e.g. ``{"a benchmark":
    ("numpy<2",)}``) the program interpreter fails, or None when it meets them all.

    None too when the interpreter cannot report itself: the engine then fails with its
    own message naming the interpreter and where it came from.
    """
    located = locate_program_python(python)
    try:
        fingerprint = program_fingerprint(located.path)
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        return None
    by_unmet: dict[str, list[str]] = {}
    for who, requirements in needs.items():
        for unmet in unmet_requirements(requirements, fingerprint):
            by_unmet.setdefault(unmet, []).append(who)
    if not by_unmet:
        return None
    wanted = "; ".join(
        f"{', '.join(names)} need{'s' if len(names) == 1 else ''} {unmet}"
        for unmet, names in by_unmet.items()
    )
    return (
        f"programs run under {located.path} ({located.source}), where {wanted}: "
        "ground truth will differ from the published numbers; build the program "
        "environment (make install) or set $EXECLENS_PROGRAM_PYTHON / --program-python "
        "to an interpreter that has it"
    )
