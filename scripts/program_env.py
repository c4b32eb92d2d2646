"""Build a program environment: the interpreter sandboxed programs run under.

    python scripts/program_env.py .venv-programs
    execlens run prog.py --program-python .venv-programs/bin/python
    EXECLENS_PROGRAM_PYTHON=.venv-programs/bin/python execlens doctor
    .venv/bin/python scripts/program_env.py .venv-programs --record-in .venv   # make install

The host venv may hold whatever its trainer needs (NumPy 2, verl); the programs get
their own environment with the packages benchmark programs import (NumPy 1.x, which
REval's programs need to reproduce the published numbers, pandas, BeautifulSoup, and
SciPy and SymPy, which many of CodeI/O's functions import).  The
engine needs nothing installed there: its servers import execlens from the host's copy.

``--record-in PREFIX`` records DEST's interpreter as the default program interpreter of
the execlens installed in the venv at PREFIX (``PREFIX/execlens-program-python``), so
that installation runs programs there with no variable set; ``--program-python`` and
``$EXECLENS_PROGRAM_PYTHON`` still override it.  It needs execlens importable here.

Idempotent: a DEST already built with the same interpreter and packages is left as it is
(a ``.execlens-program-env`` file records what was asked for).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

DEFAULT_PACKAGES = ("numpy<2", "pandas<3", "beautifulsoup4", "scipy<1.14", "sympy")
STAMP = ".execlens-program-env"
_REPORT = (
    "import json, sys\nfrom importlib import metadata\nnames = sys.argv[1:]\n"
    "def version(name):\n    try:\n        return metadata.version(name)\n"
    "    except metadata.PackageNotFoundError:\n        return None\n"
    "print(json.dumps({'python': sys.version.split()[0], 'prefix': sys.prefix,\n"
    "                  'packages': {n: version(n) for n in names}}))\n"
)


def base_interpreter() -> str:
    """The interpreter this one was made from (a venv's base), else this one."""
    base = getattr(sys, "_base_executable", None)
    return base if base and os.path.exists(base) else sys.executable


def _distribution(requirement: str) -> str:
    for separator in "<>=!~[; ":
        requirement = requirement.split(separator)[0]
    return requirement


def build(dest: Path, python: str, packages: list[str]) -> dict[str, object]:
    """Create (or reuse) the venv at ``dest`` with ``packages``; returns what it holds."""
    stamp = {"python": os.path.realpath(python), "packages": packages}
    interpreter = dest / "bin" / "python"
    stamp_path = dest / STAMP
    current = json.loads(stamp_path.read_text()) if stamp_path.is_file() else None
    if current != stamp or not interpreter.exists():
        subprocess.run([python, "-m", "venv", "--clear", str(dest)], check=True)
        if packages:
            subprocess.run(
                [
                    str(interpreter),
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    *packages,
                ],
                check=True,
            )
        stamp_path.write_text(json.dumps(stamp))
    names = [_distribution(p) for p in packages]
    done = subprocess.run(
        [str(interpreter), "-c", _REPORT, *names], check=True, capture_output=True, text=True
    )
    return {"interpreter": str(interpreter), **json.loads(done.stdout)}


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="where to create the venv, e.g. .venv-programs")
    parser.add_argument(
        "--python",
        default=base_interpreter(),
        help="base interpreter (CPython >= 3.11; default: %(default)s)",
    )
    parser.add_argument(
        "--package",
        action="append",
        dest="packages",
        metavar="REQ",
        help="a requirement to install (repeatable; default: " + ", ".join(DEFAULT_PACKAGES) + ")",
    )
    parser.add_argument(
        "--no-packages", action="store_true", help="a bare environment (the standard library only)"
    )
    parser.add_argument(
        "--record-in",
        type=Path,
        metavar="PREFIX",
        help="record DEST's interpreter as the default program interpreter "
        "of the execlens installed in the venv at PREFIX",
    )
    args = parser.parse_args(argv)
    if not os.path.isfile(args.python) or not os.access(args.python, os.X_OK):
        print(
            f"error: --python {args.python} is not an executable file; give a CPython "
            ">= 3.11 interpreter",
            file=sys.stderr,
        )
        return 2
    packages = [] if args.no_packages else list(args.packages or DEFAULT_PACKAGES)
    try:
        report = build(args.dest.resolve(), args.python, packages)
    except subprocess.CalledProcessError as exc:
        print(
            f"error: building {args.dest} failed ({' '.join(map(str, exc.cmd[:4]))} ...: "
            f"exit {exc.returncode}); check the network or the --package requirements",
            file=sys.stderr,
        )
        return 1
    if args.record_in is not None:
        try:
            # One owner of the file's name and format: the engine, which reads it.
            from execlens.engine import record_program_python
        except ImportError as exc:
            print(
                f"error: --record-in needs execlens importable by {sys.executable} ({exc}); "
                "run this script with the host venv's python",
                file=sys.stderr,
            )
            return 2
        report["recorded"] = str(
            record_program_python(report["interpreter"], args.record_in.resolve())
        )
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
