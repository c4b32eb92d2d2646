"""``make lint`` type-checks every package: the Makefile's ``TYPED`` names each package
directory under ``src/execlens`` but those listed (with the reason) in ``NOT_TYPED``, so a
new package cannot escape mypy silently."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "execlens"

#: Packages ``make lint`` leaves out of mypy on purpose, each with its reason.  An entry
#: must still be a package that TYPED lacks, so the list only shrinks.
NOT_TYPED: dict[str, str] = {}


def _typed() -> list[str]:
    """The paths of the Makefile's ``TYPED := ...`` (with its ``\\`` continuations)."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    found = re.search(r"^TYPED\s*:?=((?:.*\\\n)*.*)$", text, re.MULTILINE)
    assert found, "the Makefile has no TYPED variable"
    return found.group(1).replace("\\\n", " ").split()


def _packages() -> set[str]:
    return {p.parent.name for p in SRC.glob("*/__init__.py")}


def test_typed_names_every_package_but_the_listed_exceptions() -> None:
    typed = _typed()
    assert all(path.startswith("src/execlens/") for path in typed), typed
    covered = {path.removeprefix("src/execlens/").split("/")[0] for path in typed}
    missing = _packages() - covered - set(NOT_TYPED)
    assert not missing, f"add {sorted(missing)} to TYPED in the Makefile (or to NOT_TYPED, why)"


def test_typed_paths_exist_and_exceptions_are_current() -> None:
    typed = _typed()
    assert [p for p in typed if not (ROOT / p).is_dir()] == []
    covered = {path.removeprefix("src/execlens/").split("/")[0] for path in typed}
    stale = {name for name in NOT_TYPED if name in covered or name not in _packages()}
    assert not stale, f"remove {sorted(stale)} from NOT_TYPED: typed now, or gone"


def test_lint_runs_mypy_on_typed() -> None:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^\t\$\(BIN\)/mypy \$\(TYPED\)$", text, re.MULTILINE)
