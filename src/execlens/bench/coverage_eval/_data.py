"""CoverageEval's data: 164 HumanEval methods, 1,160 tests, their coverage labels.

``data/<i>.json`` (microsoft/coverage-eval ``dataset/data/``, MIT, shipped in this
folder) holds one problem each: ``{problem_id, problem, method, tests: [{test_id, test,
coverage, coverage_executed, coverage_sequence, branch_sequence}]}``.  One
:class:`CoverageEvalTest` is one (method, test) pair; the paper evaluates 538 of them
(:func:`evaluated`): the tests whose coverage is not all-executed, minus the
``assert True, ...`` tests that never call the method.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execlens.bench import DatasetError, DatasetUnavailableError

__all__ = ["DATA_DIR", "SHOWN_TWIN", "CoverageEvalTest", "evaluated", "load_coverage_eval"]

DATA_DIR = Path(__file__).resolve().parent / "data"

#: Upstream's ``experiments/inputs/zero_shot.jsonl`` shows, for these 12 tests of
#: ``correct_bracketing`` (the ``"<"``/``">"`` version, ``data/7.json``), the *other*
#: ``correct_bracketing`` (``"("``/``")"``, ``data/46.json``): HumanEval's name
#: collision.  The ground truth stays ``data/7``'s.  Reproduced so the prompts equal the
#: published ones (a test compares all 538); the strict truth traces what was shown.
SHOWN_TWIN: dict[str, int] = {str(test_id): 46 for test_id in range(263, 275)}

_LABELS = frozenset(">!-")
_TRIVIAL_TEST = re.compile(r"^\s*assert\s+True\s*,", re.MULTILINE)


@dataclass(frozen=True)
class CoverageEvalTest:
    """One (method, test) pair with its published coverage labels.

    ``coverage_sequence`` labels each non-comment line of ``method`` (``>`` executed,
    ``!`` missed); ``branch_sequence`` is ``?`` outside control-flow blocks, else the
    same label.  ``shown_method`` is the method the official prompt shows (``method``
    except for the :data:`SHOWN_TWIN` quirk).
    """

    test_id: str
    problem_id: int
    problem: str
    method: str
    shown_method: str
    test: str
    coverage: str
    coverage_sequence: tuple[str, ...]
    branch_sequence: tuple[str, ...]

    @property
    def sample_id(self) -> str:
        """The dataset's own test id (unique over the whole dataset): the generations key."""
        return self.test_id

    @property
    def trivial(self) -> bool:
        """Whether every labelled line is executed (the paper leaves these out)."""
        return set(self.coverage_sequence) <= {">"}

    @property
    def calls_nothing(self) -> bool:
        """Whether the test is HumanEval's ``assert True, "This prints if ..."`` filler."""
        return bool(_TRIVIAL_TEST.search(self.test))


def _field(row: dict[str, Any], name: str, kind: type, where: str) -> Any:
    if name not in row:
        raise DatasetError(f"{where}: field {name!r} is missing")
    value = row[name]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise DatasetError(
            f"{where}: field {name!r} should be {kind.__name__}, got {type(value).__name__}"
        )
    return value


def _labels(row: dict[str, Any], name: str, allowed: frozenset[str], where: str) -> tuple[str, ...]:
    value = _field(row, name, list, where)
    bad = [v for v in value if v not in allowed]
    if bad:
        raise DatasetError(
            f"{where}: {name} holds {bad[0]!r}, expected one of {''.join(sorted(allowed))}"
        )
    return tuple(value)


def _problem(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    try:
        row = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        # ValueError: JSONDecodeError and lone surrogates; RecursionError: deep nesting.
        raise DatasetError(
            f"{path}: not a readable JSON file ({type(exc).__name__}: {str(exc)[:200]})"
        ) from exc
    if not isinstance(row, dict):
        raise DatasetError(f"{path}: expected one JSON object, got {type(row).__name__}")
    tests = _field(row, "tests", list, str(path))
    return row, tests


def _data_files(data: str | Path | None) -> list[Path]:
    root = DATA_DIR if data is None else Path(data).expanduser()
    if not root.exists():
        raise DatasetUnavailableError(
            f"cannot load CoverageEval from {root}: no such file "
            "or directory (pass the directory of its "
            "data/<i>.json files with --data)"
        )
    if root.is_dir() and (root / "data").is_dir():
        root = root / "data"  # the repository's (or the shared copy's) layout
    files = (
        [root]
        if root.is_file()
        else sorted((p for p in root.glob("*.json") if p.stem.isdigit()), key=lambda p: int(p.stem))
    )
    if not files:
        raise DatasetUnavailableError(
            f"cannot load CoverageEval from {root}: no <problem id>.json files there"
        )
    return files


def load_coverage_eval(data: str | Path | None = None) -> list[CoverageEvalTest]:
    """Every test of every problem in ``data`` (the directory of ``<i>.json`` files, or
    one above it holding ``data/``; default: the copy shipped with execlens), in problem
    then test order.

    A malformed problem or test raises :class:`DatasetError` naming the file, the test id
    and the field.
    """
    files = _data_files(data)
    rows = {}
    for path in files:
        row, tests = _problem(path)
        problem_id = _field(row, "problem_id", int, str(path))
        rows[problem_id] = (path, row, tests)
    out: list[CoverageEvalTest] = []
    seen: set[str] = set()
    for problem_id, (path, row, tests) in rows.items():
        where = f"{path} (problem {problem_id})"
        method = _field(row, "method", str, where)
        problem = _field(row, "problem", str, where)
        for index, test in enumerate(tests):
            if not isinstance(test, dict):
                raise DatasetError(f"{where}: tests[{index}] is not an object")
            test_id = _field(test, "test_id", str, f"{where} tests[{index}]")
            at = f"{path} (problem {problem_id}, test {test_id})"
            if test_id in seen:
                raise DatasetError(f"{at}: test id seen before")
            seen.add(test_id)
            coverage = _labels(test, "coverage_sequence", _LABELS, at)
            branch = _labels(test, "branch_sequence", _LABELS | {"?"}, at)
            if len(branch) != len(coverage):
                raise DatasetError(
                    f"{at}: branch_sequence has {len(branch)} labels, "
                    f"coverage_sequence {len(coverage)}"
                )
            twin = SHOWN_TWIN.get(test_id, -1)
            twin_method = rows[twin][1].get("method") if twin in rows else None
            shown = twin_method if isinstance(twin_method, str) else method
            out.append(
                CoverageEvalTest(
                    test_id=test_id,
                    problem_id=problem_id,
                    problem=problem,
                    method=method,
                    shown_method=shown,
                    test=_field(test, "test", str, at),
                    coverage=_field(test, "coverage", str, at),
                    coverage_sequence=coverage,
                    branch_sequence=branch,
                )
            )
    return out


def evaluated(tests: Sequence[CoverageEvalTest]) -> list[CoverageEvalTest]:
    """The pairs the paper evaluates: non-trivial coverage, and the test calls the method
    (upstream ``experiments/README.md``: "only include data where the (problem, test) pair
    does not have trivial coverage"; 538 of 1,160)."""
    return [t for t in tests if not t.trivial and not t.calls_nothing]
