"""CodeMind's Python data: IER on HumanEval, CRUXEval and ClassEval, SR on HumanEval.

Four JSONL files (derived from Intelligent-CAT-Lab/CodeMind d55bbc1, one line per
upstream problem folder, each field the exact text of the upstream file of that name):

* ``ier_humaneval.jsonl`` (162): ``main.py`` (the canonical solution without its imports
  or docstring), ``input.txt`` (a call), ``output.txt``, ``assert.txt``, ``nl.txt``;
* ``ier_cruxeval.jsonl`` (800): ``main.py``, ``input.txt`` (``f(...)``), ``output.txt``;
* ``ier_classeval.jsonl`` (400): ``main.py`` (a class + a ``unittest`` ``Test.test``
  returning the value), ``input.txt`` (always ``Test.test()``), ``output.txt``;
* ``sr_humaneval.jsonl`` (164): ``nl.txt`` (the HumanEval prompt), ``main.py``,
  ``asserts.txt`` (HumanEval's ``check(candidate)``), ...

Without ``data`` the copy shipped in ``data/`` is read (NCSA + MIT, see the licence
files there); ``data`` may name a directory holding the four files (or one file).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execlens.bench import (
    DatasetError,
    DatasetUnavailableError,
    FieldError,
    LoadResult,
    check_str,
    parse_samples,
    read_records,
)

__all__ = ["DATA_DIR", "FILES", "PARTS", "CodeMindItem", "load_codemind"]

DATA_DIR = Path(__file__).resolve().parent / "data"

#: The data part of each file; IER parts first, in the paper's order.
FILES = {
    "ier_humaneval.jsonl": "humaneval",
    "ier_cruxeval.jsonl": "crux",
    "ier_classeval.jsonl": "classeval",
    "sr_humaneval.jsonl": "sr",
}
PARTS = tuple(FILES.values())

_IMPORT = re.compile(r"(?:import|from)\s")


@dataclass(frozen=True)
class CodeMindItem:
    """One CodeMind problem of one part (``humaneval``/``crux``/``classeval``/``sr``).

    ``code`` and ``input`` are shown to the model as they are (IER); ``program`` and
    ``call`` are what the engine runs for the true output, which differ from them where
    the upstream text does not run as shown (see :func:`_truth_program`).  For SR,
    ``nl`` is the specification, ``tests`` HumanEval's ``check`` and ``entry_point`` the
    function ``check`` is called with.
    """

    part: str
    id: str
    code: str
    input: str
    output: str
    program: str
    call: str
    nl: str = ""
    tests: str = ""
    entry_point: str = ""

    @property
    def sample_id(self) -> str:
        """The upstream folder name, unique within a part (``HumanEval_0``, ``sample_0``,
        ``ClassEval_0@AccessGatewayFilter.filter``)."""
        return self.id


def _imports_of(nl: str) -> str:
    """The top-level import lines of a HumanEval prompt (``from typing import List``)."""
    return "".join(line + "\n" for line in nl.splitlines() if _IMPORT.match(line))


def _last_function(nl: str) -> str:
    """HumanEval's entry point: the last top-level ``def`` of its prompt.

    Upstream's SR scorer reads ``entry_point.txt``, which is not shipped; the last
    ``def`` equals the name each ``input.txt`` calls wherever that is a bare call.
    """
    try:
        tree = ast.parse(nl)
    except SyntaxError as exc:
        raise FieldError("nl.txt", f"the specification does not parse: {exc.msg}") from None
    names = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    if not names:
        raise FieldError("nl.txt", "the specification defines no function")
    return names[-1]


def _truth_program(part: str, row: dict[str, Any]) -> tuple[str, str]:
    """What the engine runs for the true output of an IER problem: (program, call).

    * HumanEval: ``main.py`` has lost the prompt's imports (19 use ``List``/``Tuple``
      unimported), so the prompt's top-level import lines run first;
    * ClassEval: ``Test.test()`` called on the class lacks ``self``; the value is
      ``Test().test()`` (a ``TestCase`` builds without a method name);
    * CRUXEval: as shown.
    """
    code, call = row["main.py"], row["input.txt"].strip()
    if part == "humaneval":
        return _imports_of(row["nl.txt"]) + code, call
    if part == "classeval":
        if call != "Test.test()":
            raise FieldError("input.txt", f"expected 'Test.test()', got {call[:60]!r}")
        return code, "Test().test()"
    return code, call


def _builder(part: str) -> Any:
    def build(row: dict[str, Any]) -> CodeMindItem:
        sample_id = check_str(row, "id")
        code = check_str(row, "main.py")
        if part == "sr":
            nl = check_str(row, "nl.txt")
            tests = check_str(row, "asserts.txt")
            if "def check(" not in tests:
                raise FieldError("asserts.txt", "defines no check(candidate)")
            return CodeMindItem(
                part,
                sample_id,
                code,
                check_str(row, "input.txt", empty_ok=True),
                check_str(row, "output.txt", empty_ok=True),
                "",
                "",
                nl=nl,
                tests=tests,
                entry_point=_last_function(nl),
            )
        check_str(row, "input.txt")
        check_str(row, "output.txt", empty_ok=True)  # ClassEval writes str(""): two are empty
        if part == "humaneval":
            check_str(row, "nl.txt")
        program, call = _truth_program(part, row)
        if not call:
            raise FieldError("input.txt", "empty")
        return CodeMindItem(
            part,
            sample_id,
            code,
            row["input.txt"],
            row["output.txt"],
            program,
            call,
            nl=row.get("nl.txt", ""),
        )

    return build


def _files(data: str | Path | None) -> list[tuple[Path, str]]:
    """The files to read, with their parts: all four in a directory, or the one named."""
    root = DATA_DIR if data is None else Path(data).expanduser()
    if root.is_file():
        if root.name not in FILES:
            raise DatasetUnavailableError(
                f"{root}: not a CodeMind file (expected one of {', '.join(FILES)})"
            )
        return [(root, FILES[root.name])]
    if not root.is_dir():
        raise DatasetUnavailableError(
            f"{root}: no such file or directory (CodeMind data: "
            f"a directory holding {', '.join(FILES)})"
        )
    found = [(root / name, part) for name, part in FILES.items() if (root / name).is_file()]
    if not found:
        raise DatasetUnavailableError(f"{root} holds none of CodeMind's files ({', '.join(FILES)})")
    return found


def load_codemind(data: str | Path | None = None) -> LoadResult[CodeMindItem]:
    """Every CodeMind record of ``data`` (default: the shipped copy), parts in order.

    Malformed records are returned as errors naming file, line and field (the runner
    stops on them); ids must be unique within a part.
    """
    records: list[CodeMindItem] = []
    errors = []
    sources = []
    for path, part in _files(data):
        rows, bad = read_records(path)
        loaded = parse_samples(rows, str(path), _builder(part))
        records.extend(loaded.records)
        errors.extend([*bad, *loaded.errors])
        sources.append(str(path))
    return LoadResult(records, errors, ", ".join(sources))


def part_records(records: list[Any], part: str) -> list[CodeMindItem]:
    """The records of one part; a named error when the data holds none."""
    chosen = [r for r in records if isinstance(r, CodeMindItem) and r.part == part]
    if not chosen:
        raise DatasetError(
            f"the CodeMind data holds no records of part {part!r} "
            f"(its file: {next(n for n, p in FILES.items() if p == part)})"
        )
    return chosen
