"""Figures about the source tree that maintainers track (issue 24's before/after table).

Read from the code with ``ast`` (nothing is imported or run): modules over 600 lines,
functions over 50 and over 80 lines, classes named ``*Scorer`` (and the strict ones that
live inside benchmark folders), ``getattr`` probes on a benchmark object and the hook
names they probe, functions that read JSON Lines, and the share of the source that mypy
checks (the Makefile's ``TYPED`` list).  ``--json`` prints one JSON object.

    python scripts/tree_stats.py [--src src/execlens] [--json]
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections import Counter
from pathlib import Path

_BENCH_NAMES = re.compile(r"bench", re.IGNORECASE)


def _name_of(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _function_lengths(tree: ast.Module) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            end = node.end_lineno or node.lineno
            found.append((node.name, end - node.lineno + 1))
    return found


def _reads_jsonl(node: ast.AST) -> bool:
    """A function that loops over lines and ``json.loads`` each one (the loop's own
    variable, perhaps stripped, is what is parsed)."""
    for loop in ast.walk(node):
        if isinstance(loop, ast.For | ast.comprehension):
            targets = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
            scope = loop if isinstance(loop, ast.For) else node
            for call in ast.walk(scope):
                if (
                    isinstance(call, ast.Call)
                    and _name_of(call.func) == "loads"
                    and call.args
                    and targets & {_name_of(n) for n in ast.walk(call.args[0])}
                ):
                    return True
    return False


def _typed_dirs(makefile: Path) -> list[str]:
    text = makefile.read_text(encoding="utf-8").replace("\\\n", " ")
    match = re.search(r"^TYPED\s*:=\s*(.+)$", text, re.MULTILINE)
    return match.group(1).split() if match else []


def collect(src: Path, makefile: Path) -> dict[str, object]:
    """Every figure, for the package under ``src``."""
    modules: dict[str, int] = {}
    long_functions: list[str] = []
    very_long: list[str] = []
    scorers: list[str] = []
    folder_strict: list[str] = []
    probes: Counter[str] = Counter()
    jsonl_readers: list[str] = []
    for path in sorted(src.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        rel = str(path.relative_to(src.parent))
        modules[rel] = text.count("\n")
        tree = ast.parse(text)
        for name, length in _function_lengths(tree):
            if length > 50:
                long_functions.append(f"{rel}:{name} ({length})")
            if length > 80:
                very_long.append(f"{rel}:{name} ({length})")
        in_folder = len(path.relative_to(src).parts) > 2 and path.relative_to(src).parts[0] == (
            "bench"
        )
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name.endswith("Scorer"):
                scorers.append(f"{rel}:{node.name}")
                if in_folder and "Strict" in node.name:
                    folder_strict.append(f"{rel}:{node.name}")
            if (
                isinstance(node, ast.Call)
                and _name_of(node.func) == "getattr"
                and len(node.args) >= 2
                and _BENCH_NAMES.search(ast.unparse(node.args[0]))
                and isinstance(node.args[1], ast.Constant)
            ):
                probes[str(node.args[1].value)] += 1
            if isinstance(node, ast.FunctionDef) and _reads_jsonl(node):
                jsonl_readers.append(f"{rel}:{node.name}")
    total = sum(modules.values())
    typed_roots = [str(Path(d).relative_to("src")) for d in _typed_dirs(makefile)]
    typed = sum(n for m, n in modules.items() if any(m.startswith(r) for r in typed_roots))
    return {
        "lines": total,
        "modules_over_600": sorted(m for m, n in modules.items() if n > 600),
        "functions_over_50": len(long_functions),
        "functions_over_80": sorted(very_long),
        "scorer_classes": len(scorers),
        "strict_scorers_in_benchmark_folders": folder_strict,
        "getattr_probes_on_a_benchmark": sum(probes.values()),
        "probed_hooks": dict(sorted(probes.items())),
        "jsonl_readers": jsonl_readers,
        "mypy_checked_share": round(100 * typed / total, 1) if total else 0.0,
        "mypy_checked": typed_roots,
    }


def main() -> None:
    """Print the figures (a table, or one JSON object with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=Path("src/execlens"))
    parser.add_argument("--makefile", type=Path, default=Path("Makefile"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = collect(args.src, args.makefile)
    if args.json:
        print(json.dumps(figures, sort_keys=True))
        return
    for key, value in figures.items():
        shown = len(value) if isinstance(value, list | dict) else value
        print(f"{key:40} {shown}")
        if isinstance(value, list) and key not in ("jsonl_readers", "mypy_checked"):
            for entry in value:
                print(f"    {entry}")


if __name__ == "__main__":
    sys.exit(main())
