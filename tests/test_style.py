"""The size habits of issue 24, kept by the suite: no module over 600 lines, and no
function over 80 lines whose docstring does not say why it is long ("Long because ...").
The figures come from ``scripts/tree_stats.py``, the script maintainers read them from."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _tree_stats() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tree_stats", ROOT / "scripts" / "tree_stats.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_module_over_600_lines_and_no_long_function_without_a_reason() -> None:
    stats = _tree_stats().collect(ROOT / "src" / "execlens", ROOT / "Makefile")
    assert stats["modules_over_600"] == [], "split these modules: one job each"
    assert stats["functions_over_80_without_reason"] == [], (
        "split these functions, or say in the docstring why one is long ('Long because ...')"
    )


def test_one_jsonl_reader() -> None:
    # Every JSON Lines file is read by store's one reader (typed JsonlError per bad line).
    stats = _tree_stats().collect(ROOT / "src" / "execlens", ROOT / "Makefile")
    assert stats["jsonl_readers"] == ["execlens/store/_jsonl.py:read_lines"], (
        "read JSONL with execlens.store.jsonl_lines / iter_jsonl / read_jsonl"
    )


def test_the_jsonl_reader_count_sees_loops_that_parse_lines(tmp_path: Path) -> None:
    src = tmp_path / "pkg"
    src.mkdir()
    (tmp_path / "Makefile").write_text("TYPED := src/pkg\n")
    (src / "direct.py").write_text(
        "import json\n"
        "def direct(path):\n"
        "    with open(path) as handle:\n"
        "        return [json.loads(line.strip()) for line in handle]\n"
        "def field(records):\n"
        "    return [json.loads(record['truth']) for record in records]\n"
    )
    (src / "helper.py").write_text(
        "import json\n"
        "def _parse(raw):\n"
        "    text = raw.decode()\n"
        "    return json.loads(text)\n"
        "def delegated(data):\n"
        "    for line in data.splitlines():\n"
        "        yield _parse(line)\n"
        "def candidates(items):\n"
        "    return [_parse(item) for item in items]\n"
    )
    stats = _tree_stats().collect(src, tmp_path / "Makefile")
    assert stats["jsonl_readers"] == ["pkg/direct.py:direct", "pkg/helper.py:delegated"]


def test_each_kind_is_worded_in_one_place() -> None:
    stats = _tree_stats().collect(ROOT / "src" / "execlens", ROOT / "Makefile")
    assert stats["question_wordings"] == 1, stats["question_wordings_by_kind"]


def test_the_wording_count_is_per_kind(tmp_path: Path) -> None:
    src = tmp_path / "pkg"
    (src / "kinds").mkdir(parents=True)
    (src / "bench" / "extra").mkdir(parents=True)
    (src / "bench" / "runtime" / "templates").mkdir(parents=True)
    (tmp_path / "Makefile").write_text("TYPED := src/pkg\n")
    # One package of kind classes: a base (no name: no kind), two named kinds.
    (src / "kinds" / "_base.py").write_text(
        "class KindBase:\n    name: str = ''\n    def question(self, task):\n        return ''\n"
    )
    (src / "kinds" / "_coverage.py").write_text(
        "class CoverageKind:\n    name = 'coverage'\n"
        "    def question(self, task):\n        return 'Is line N run?'\n"
    )
    (src / "kinds" / "_output.py").write_text(
        "class OutputKind:\n    name: str = 'output'\n"
        "    def question(self, task):\n        return 'What is returned?'\n"
    )
    # A benchmark folder wording the kinds it adds: its own kinds only.
    (src / "bench" / "extra" / "_kinds.py").write_text(
        "class ExtraKind:\n    def __init__(self, task):\n        self.name = f'extra_{task}'\n"
        "    def question(self, task):\n        return 'asked upstream'\n"
        "class Explained:\n    def question(self, task):\n        return 'no name: no kind'\n"
    )
    # A second wording of coverage, path and state (a dict), and of coverage, path and
    # output (a question function), and a template per kind for three kinds.
    (src / "legacy.py").write_text(
        "QUESTIONS = {'coverage': 'Is line {n} run?', 'path': 'After {n}?', "
        "'state': 'What is {v}?'}\n"
        "def _question(kind):\n"
        "    if kind == 'coverage' or kind == 'path' or kind == 'output':\n"
        "        return 'x'\n"
        "def explain_question(kind):\n"
        "    return {'coverage': 'ran {n}?', 'path': 'next {n}?', 'state': '{v}?'}[kind]\n"
    )
    for kind in ("coverage", "path", "trace"):
        (src / "bench" / "runtime" / "templates" / f"{kind}.j2").write_text("{{ q }}")
    stats = _tree_stats().collect(src, tmp_path / "Makefile")
    kinds = "pkg/kinds (kind classes)"
    assert stats["question_wordings_by_kind"] == {
        "coverage": [
            "pkg/bench/runtime/templates",
            kinds,
            "pkg/legacy.py:_question",
            "pkg/legacy.py:dict@1",
        ],
        "extra_{task}": ["pkg/bench/extra (kind classes)"],
        "output": [kinds, "pkg/legacy.py:_question"],
        "path": ["pkg/bench/runtime/templates", "pkg/legacy.py:_question", "pkg/legacy.py:dict@1"],
        "state": ["pkg/legacy.py:dict@1"],
        "trace": ["pkg/bench/runtime/templates"],
    }
    assert stats["question_wordings"] == 4  # coverage's places
