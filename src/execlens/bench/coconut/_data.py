"""CoCoNUT's trace files from a user's copy (nothing ships: the upstream repository,
ClaasBeger/StructuralCodeUnderstanding, has no licence).

``--data`` names a CSV file, or a checkout root / ``Dataset`` folder (then
``Dataset/HumanEval/HumanEval_trace.csv`` for the ``humaneval`` task).  Layouts, as
upstream writes them:

* HumanEval: ``HumanEval_ID`` (``HumanEval/0``), ``Name`` (the function), ``FunctionCall``
  (the argument text), ``ExecutedLines`` (the ground truth, ``"[14, 15, 16]"``),
  ``Code_Indices`` (the program, every line suffixed ``  # N``); other columns ignored;
* Advanced (OOP, Recursion, Concurrency): ``Filename``, ``Category``, ``ExecutedLines``,
  ``Code_Indices`` (indentation stripped upstream: shown, never run).
"""

from __future__ import annotations

import ast
import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execlens.bench import DatasetError, DatasetUnavailableError

__all__ = ["CocoItem", "load_coconut", "truth_tokens"]

_HINT = (
    "nothing ships (CoCoNUT's repository has no licence): pass a local copy with "
    "--data PATH (Dataset/HumanEval/HumanEval_trace.csv, an Advanced trace CSV, or the "
    "checkout's root)"
)
_HUMANEVAL = ("HumanEval_ID", "Name", "FunctionCall", "ExecutedLines", "Code_Indices")
_ADVANCED = ("Filename", "Category", "ExecutedLines", "Code_Indices")


@dataclass(frozen=True)
class CocoItem:
    """One traced run: the numbered program, how it is called, its ground-truth string."""

    sample_id: str
    group: str
    """The task the run tests (``HumanEval/0``; an Advanced program's file name)."""
    code: str
    truth: str
    name: str = ""
    arguments: str = ""
    category: str = ""

    @property
    def call(self) -> str | None:
        """``name(arguments)`` for a HumanEval run; None for an Advanced program (its
        ``__main__`` block is the run)."""
        return f"{self.name}({self.arguments})" if self.name else None


def truth_tokens(text: str) -> list[Any]:
    """The items of a ground-truth list string: line numbers, and ``'('``/``')'`` in
    Concurrency traces; :class:`DatasetError` when it is not such a list."""
    try:
        value = ast.literal_eval(text)
    except (SyntaxError, ValueError) as exc:
        raise DatasetError(f"ExecutedLines is not a list literal: {text[:80]!r}") from exc
    if not isinstance(value, list) or not all((type(v) is int) or v in ("(", ")") for v in value):
        raise DatasetError(f"ExecutedLines holds something other than line numbers: {text[:80]!r}")
    return value


def _resolve(data: str | Path | None) -> Path:
    if data is None:
        raise DatasetUnavailableError(f"cannot load CoCoNUT: it has no default source; {_HINT}")
    root = Path(data).expanduser()
    if root.is_file():
        return root
    for candidate in (
        root / "Dataset" / "HumanEval" / "HumanEval_trace.csv",
        root / "HumanEval" / "HumanEval_trace.csv",
        root / "HumanEval_trace.csv",
    ):
        if candidate.is_file():
            return candidate
    if not root.exists():
        raise DatasetUnavailableError(
            f"cannot load CoCoNUT: no such file or directory: {root}; {_HINT}"
        )
    raise DatasetUnavailableError(f"cannot load CoCoNUT: no HumanEval_trace.csv in {root}; {_HINT}")


def load_coconut(data: str | Path | None) -> list[CocoItem]:
    """The runs of a CoCoNUT CSV, in file order (sample ids ``<group>#<k>``, ``k`` the
    run's position within its group); a missing column, a malformed row or a file that is
    not UTF-8 text is a named :class:`DatasetError` (file and row)."""
    path = _resolve(data)
    try:
        return _read_coconut(path)
    except UnicodeDecodeError as exc:
        raise DatasetError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); "
            "CoCoNUT's files are UTF-8 CSV"
        ) from None
    except csv.Error as exc:
        raise DatasetError(f"{path}: not a readable CSV file ({exc})") from None


def _read_coconut(path: Path) -> list[CocoItem]:
    csv.field_size_limit(1 << 26)  # upstream's Code_Indices cells run to tens of kB
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        columns = set(reader.fieldnames or ())
        layout = _HUMANEVAL if set(_HUMANEVAL) <= columns else _ADVANCED
        missing = [c for c in layout if c not in columns]
        if missing:
            raise DatasetError(
                f"{path}: not a CoCoNUT trace file (missing columns "
                f"{missing}; expected {list(_HUMANEVAL)} or {list(_ADVANCED)})"
            )
        items: list[CocoItem] = []
        seen: dict[str, int] = {}
        for row_number, row in enumerate(reader, 2):
            empty = [c for c in layout if not (row.get(c) or "").strip() and c != "FunctionCall"]
            if empty:
                raise DatasetError(f"{path}, row {row_number}: empty {empty}")
            try:
                truth_tokens(row["ExecutedLines"])
            except DatasetError as exc:
                raise DatasetError(f"{path}, row {row_number}: {exc}") from None
            group = row["HumanEval_ID"] if layout is _HUMANEVAL else row["Filename"]
            index = seen.get(group, 0)
            seen[group] = index + 1
            items.append(
                CocoItem(
                    sample_id=f"{group}#{index}",
                    group=group,
                    code=row["Code_Indices"],
                    truth=row["ExecutedLines"].strip(),
                    name=row["Name"].strip() if layout is _HUMANEVAL else "",
                    arguments=(row.get("FunctionCall") or "").strip(),
                    category=row.get("Category", "") or "HumanEval",
                )
            )
    if not items:
        raise DatasetError(f"{path}: no runs")
    return items
