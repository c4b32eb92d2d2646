"""CRUXEval-X's Python split from a user's copy (nothing ships: the upstream repository
has no licence).

``--data`` names ``py.jsonl`` (``datasets/cruxeval_preprocessed/py.jsonl`` upstream), the
folder holding it, or a checkout root holding ``datasets/cruxeval_preprocessed/``.  One
JSON object per line: ``{"id": int, "code": the program with its test harness,
"input_reasoning": the harness tail with the call's arguments replaced by ????,
"output_reasoning": the tail with the expected value replaced by ????}``; each
reasoning field holds exactly one ``????`` and the code the Python harness marker
``def check(candidate):``.

Other languages are not supported (execlens runs Python only; no Java, Rust, ...
runtime here): asking for one raises :class:`UnsupportedLanguageError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execlens.bench import (
    DatasetUnavailableError,
    FieldError,
    LoadResult,
    check_int,
    check_str,
    parse_samples,
    read_records,
)

__all__ = ["HARNESS_MARKER", "HOLE", "CruxXItem", "UnsupportedLanguageError", "load_cruxeval_x"]

#: Where upstream cuts the Python program for the prompt (``iterating_stops['py']``).
HARNESS_MARKER = "def check(candidate):"
HOLE = "????"
#: The languages upstream has (``datasets/cruxeval_preprocessed/<lang>.jsonl``).
LANGUAGES = (
    "py",
    "java",
    "cpp",
    "js",
    "go",
    "rs",
    "cs",
    "d",
    "jl",
    "lua",
    "php",
    "pl",
    "r",
    "rb",
    "rkt",
    "scala",
    "sh",
    "swift",
    "ts",
)
_HINT = (
    "nothing ships (the upstream repository has no licence): pass a local copy with "
    "--data PATH (CRUXEval-X's datasets/cruxeval_preprocessed/py.jsonl, its folder, "
    "or the checkout's root)"
)


class UnsupportedLanguageError(DatasetUnavailableError):
    """A CRUXEval-X language other than Python: execlens has no runtime for it."""


@dataclass(frozen=True)
class CruxXItem:
    """One CRUXEval-X Python record."""

    id: int
    code: str
    input_reasoning: str
    output_reasoning: str

    @property
    def sample_id(self) -> str:
        """The record's id (CRUXEval's sample index) as text."""
        return str(self.id)

    @property
    def head(self) -> str:
        """The program before the harness (what the prompt shows above the tail)."""
        return self.code.split(HARNESS_MARKER)[0]


def _build(row: dict[str, Any]) -> CruxXItem:
    ident = check_int(row, "id")
    code = check_str(row, "code")
    if HARNESS_MARKER not in code:
        raise FieldError("code", f"no {HARNESS_MARKER!r} harness (is this the Python split?)")
    fields = {}
    for name in ("input_reasoning", "output_reasoning"):
        text = check_str(row, name)
        if text.count(HOLE) != 1:
            raise FieldError(name, f"expected exactly one {HOLE!r}, found {text.count(HOLE)}")
        fields[name] = text
    return CruxXItem(ident, code, fields["input_reasoning"], fields["output_reasoning"])


def _unsupported(lang: str, path: Path) -> UnsupportedLanguageError:
    return UnsupportedLanguageError(
        f"{path}: CRUXEval-X {lang!r} is not supported: execlens judges Python only (no "
        f"{lang} runtime here, and upstream ships no judge it could reproduce); pass py.jsonl"
    )


def _resolve(data: str | Path | None) -> Path:
    if data is None:
        raise DatasetUnavailableError(f"cannot load CRUXEval-X: it has no default source; {_HINT}")
    root = Path(data).expanduser()
    if root.is_file():
        lang = root.name.split(".")[0]
        if root.suffix == ".jsonl" and lang in LANGUAGES and lang != "py":
            raise _unsupported(lang, root)
        return root
    for folder in (root, root / "datasets" / "cruxeval_preprocessed"):
        if (folder / "py.jsonl").is_file():
            return folder / "py.jsonl"
        others = [lang for lang in LANGUAGES if (folder / f"{lang}.jsonl").is_file()]
        if others:
            raise _unsupported(others[0], folder / f"{others[0]}.jsonl")
    if not root.exists():
        raise DatasetUnavailableError(
            f"cannot load CRUXEval-X: no such file or directory: {root}; {_HINT}"
        )
    raise DatasetUnavailableError(f"cannot load CRUXEval-X: no py.jsonl in {root}; {_HINT}")


def load_cruxeval_x(data: str | Path | None, *, language: str = "py") -> LoadResult[CruxXItem]:
    """The Python records of ``data`` (required), in file order; malformed ones named."""
    if language != "py":
        raise _unsupported(language, Path(str(data)))
    path = _resolve(data)
    rows, errors = read_records(path)
    result = parse_samples(rows, str(path), _build)
    result.errors = sorted(errors + result.errors, key=lambda e: e.line or 0)
    return result
