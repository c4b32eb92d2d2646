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
