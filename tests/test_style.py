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
