"""Figures about the source tree that maintainers track (issue 24's before/after table).

Read from the code with ``ast`` (nothing is imported or run): modules over 600 lines,
functions over 50 and over 80 lines, classes named ``*Scorer`` (and the strict ones that
live inside benchmark folders), ``getattr`` probes on a benchmark object and the hook
names they probe, functions that read JSON Lines (a loop over lines that parses each
line itself, or hands each line of a file to a function of its module that parses
its argument; parsing a field of a record already read is no reading), the share of
the source that mypy checks (the Makefile's ``TYPED`` list), the places that word
execlens' own questions and the line numberers.  ``--json`` prints one JSON object.

A *question wording* is a place that words the question of a kind for a model: a
template folder with a template per kind (three or more of execlens' own kinds:
coverage, path, state, output, input, trace), a dict from three or more of those kinds
to question texts with placeholders, a ``*question*`` function branching on three or
more of them, or a package of kind classes (one place for all of its classes): a class
that defines ``question`` and gives its kind a ``name`` (a string, or an f-string such
as ``re2bench_{task}``: one class, several kinds; a class with no name, a base or a
protocol, words none).  ``question_wordings`` is the most places any *one* kind is
worded in (1: every kind asked one way everywhere) -- a benchmark folder wording the
kinds it adds is a place for those kinds only -- and ``question_wordings_by_kind``
lists each kind's places.  A report's ``explain`` text is no question asked of a model
and is not counted.  A *line
numberer* is a comprehension over ``enumerate(...)`` whose f-string writes both the
number and the line.

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


#: How a docstring gives the reason a function is over 80 lines ("Long because ...").
_LONG_REASON = re.compile(r"\b[Ll]ong(?: because|: | for the reason)")


def _function_lengths(tree: ast.Module) -> list[tuple[str, int, bool]]:
    """``(name, lines, whether its docstring says why it is long)`` per function."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            end = node.end_lineno or node.lineno
            reason = bool(_LONG_REASON.search(ast.get_docstring(node) or ""))
            found.append((node.name, end - node.lineno + 1, reason))
    return found


#: Methods that leave a line the same line (``line.strip()``, ``raw.decode()``).
_LINE_METHODS = frozenset({"strip", "rstrip", "lstrip", "decode"})


def _parsed_name(node: ast.AST) -> str:
    """The variable an expression parses: ``line``, ``line.strip()``, ``raw.decode()``
    all parse ``line`` / ``raw``; a field of it (``row["ground_truth"]``) or a file named
    by it (``path.read_text()``) is none."""
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _LINE_METHODS
    ):
        node = node.func.value
    return node.id if isinstance(node, ast.Name) else ""


def _over_lines(loop: ast.For | ast.comprehension, handles: set[str]) -> bool:
    """Whether a loop walks a file's lines: an open file (a ``with ... as`` name or an
    argument typed ``IO``), or a text's ``splitlines()`` / ``readlines()``, perhaps
    under ``enumerate``."""
    source = loop.iter
    if isinstance(source, ast.Call) and _name_of(source.func) == "enumerate" and source.args:
        source = source.args[0]
    if isinstance(source, ast.Name):
        return source.id in handles
    return isinstance(source, ast.Call) and _name_of(source.func) in ("splitlines", "readlines")


def _line_parsers(tree: ast.Module) -> set[str]:
    """The module's functions that ``loads`` one of their own arguments (perhaps
    stripped, decoded, or first assigned so): a loop handing each line to one of them
    reads JSON Lines as surely as a loop calling ``loads`` itself."""
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        given = {arg.arg for arg in node.args.args + node.args.kwonlyargs}
        for statement in ast.walk(node):
            if isinstance(statement, ast.Assign) and _parsed_name(statement.value) in given:
                given |= {
                    n.id for t in statement.targets for n in ast.walk(t) if isinstance(n, ast.Name)
                }
        if any(
            isinstance(call, ast.Call)
            and _name_of(call.func) == "loads"
            and call.args
            and _parsed_name(call.args[0]) in given
            for call in ast.walk(node)
        ):
            found.add(node.name)
    return found


def _reads_jsonl(node: ast.AST, parsers: set[str]) -> bool:
    """A function that loops over lines and parses each one: ``json.loads`` of the
    loop's own variable (perhaps stripped or decoded), or a loop over a file's lines
    handing its variable to one of the module's ``parsers`` (see :func:`_line_parsers`)."""
    handles = {
        n.id
        for item in ast.walk(node)
        if isinstance(item, ast.withitem) and item.optional_vars is not None
        for n in ast.walk(item.optional_vars)
        if isinstance(n, ast.Name)
    }
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):  # handles handed in
        handles |= {
            arg.arg
            for arg in node.args.args + node.args.kwonlyargs
            if arg.annotation is not None and "IO" in ast.unparse(arg.annotation)
        }
    for loop in ast.walk(node):
        if isinstance(loop, ast.For | ast.comprehension):
            targets = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
            scope = loop if isinstance(loop, ast.For) else node
            for call in ast.walk(scope):
                if not isinstance(call, ast.Call) or not call.args:
                    continue
                name = _name_of(call.func)
                if name == "loads" and _parsed_name(call.args[0]) in targets:
                    return True
                if (
                    name in parsers
                    and _over_lines(loop, handles)
                    and any(isinstance(a, ast.Name) and a.id in targets for a in call.args)
                ):
                    return True
    return False


_QUESTION_KINDS = frozenset({"coverage", "path", "state", "output", "input", "trace"})


def _kind_names(nodes: list[ast.AST]) -> set[str]:
    return {
        n.value
        for node in nodes
        for n in ast.walk(node)
        if isinstance(n, ast.Constant) and n.value in _QUESTION_KINDS
    }


def _question_places(tree: ast.Module, rel: str) -> list[tuple[str, set[str]]]:
    """The question wordings of one module and the kinds each words (see the module
    docstring)."""
    found: list[tuple[str, set[str]]] = []
    report = {  # a report's explain text words no question asked of a model
        line
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef) and "explain" in f.name
        for line in range(f.lineno, (f.end_lineno or f.lineno) + 1)
    }
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in report:
            continue
        if isinstance(node, ast.Dict):
            keys = _kind_names([k for k in node.keys if k is not None])
            texts = [ast.unparse(v) for v in node.values]
            if len(keys) >= 3 and any("{" in t and "?" in t for t in texts):
                found.append((f"{rel}:dict@{node.lineno}", keys))
        elif isinstance(node, ast.FunctionDef) and "question" in node.name:
            tests = [n for n in ast.walk(node) if isinstance(n, ast.Compare)]
            kinds = _kind_names(list(tests))
            if len(kinds) >= 3:
                found.append((f"{rel}:{node.name}", kinds))
    return found


def _kind_label(value: ast.expr) -> str | None:
    """The kind a ``name = ...`` value names: a string, an f-string's pattern
    (``re2bench_{task}``), else None (no name: a base class)."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value or None
    if isinstance(value, ast.JoinedStr):
        return "".join(
            str(part.value)
            if isinstance(part, ast.Constant)
            else "{" + ast.unparse(part.value) + "}"
            for part in value.values
            if isinstance(part, ast.Constant | ast.FormattedValue)
        )
    return None


def _class_kind(node: ast.ClassDef) -> str | None:
    """The kind a class names (``name = ...`` in its body, or ``self.name = ...`` in a
    method), None when it names none."""
    for statement in node.body:
        if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(isinstance(t, ast.Name) and t.id == "name" for t in targets):
                return _kind_label(statement.value)
    for method in node.body:
        if not isinstance(method, ast.FunctionDef):
            continue
        for inner in ast.walk(method):
            if isinstance(inner, ast.Assign) and any(
                isinstance(t, ast.Attribute) and t.attr == "name" and _name_of(t.value) == "self"
                for t in inner.targets
            ):
                return _kind_label(inner.value)
    return None


def _class_kinds(tree: ast.Module) -> set[str]:
    """The kinds worded by the module's kind classes: each class defining ``question``
    and naming its kind."""
    return {
        kind
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and any(isinstance(f, ast.FunctionDef) and f.name == "question" for f in node.body)
        for kind in [_class_kind(node)]
        if kind is not None
    }


def _template_places(src: Path) -> list[tuple[str, set[str]]]:
    """Template folders holding a template per question kind (three or more), each with
    the kinds it words."""
    folders = {p.parent for p in src.rglob("*.j2")}
    found = []
    for folder in sorted(folders):
        kinds = {p.stem for p in folder.glob("*.j2")} & _QUESTION_KINDS
        if len(kinds) >= 3:
            found.append((str(folder.relative_to(src.parent)), kinds))
    return found


def _line_numberers(tree: ast.Module) -> int:
    """Comprehensions over ``enumerate(...)`` whose f-string writes number and line."""
    count = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.GeneratorExp | ast.ListComp) or len(node.generators) != 1:
            continue
        loop = node.generators[0]
        if not (
            isinstance(loop.iter, ast.Call)
            and _name_of(loop.iter.func) == "enumerate"
            and isinstance(loop.target, ast.Tuple)
            and isinstance(node.elt, ast.JoinedStr)
        ):
            continue
        names = {n.id for n in loop.target.elts if isinstance(n, ast.Name)}
        used = {
            n.id
            for value in node.elt.values
            if isinstance(value, ast.FormattedValue)
            for n in ast.walk(value.value)
            if isinstance(n, ast.Name)
        }
        count += len(names) == 2 and names <= used
    return count


def _typed_dirs(makefile: Path) -> list[str]:
    text = makefile.read_text(encoding="utf-8").replace("\\\n", " ")
    match = re.search(r"^TYPED\s*:=\s*(.+)$", text, re.MULTILINE)
    return match.group(1).split() if match else []


def collect(src: Path, makefile: Path) -> dict[str, object]:
    """Every figure, for the package under ``src``."""
    modules: dict[str, int] = {}
    long_functions: list[str] = []
    very_long: list[str] = []
    unexplained: list[str] = []
    scorers: list[str] = []
    folder_strict: list[str] = []
    probes: Counter[str] = Counter()
    jsonl_readers: list[str] = []
    wordings: list[tuple[str, set[str]]] = _template_places(src)
    numberers: list[str] = []
    for path in sorted(src.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        rel = str(path.relative_to(src.parent))
        modules[rel] = text.count("\n")
        tree = ast.parse(text)
        parsers = _line_parsers(tree)
        wordings.extend(_question_places(tree, rel))
        classes = _class_kinds(tree)
        if classes:
            wordings.append((f"{path.parent.relative_to(src.parent)} (kind classes)", classes))
        numberers.extend([rel] * _line_numberers(tree))
        for name, length, reason in _function_lengths(tree):
            if length > 50:
                long_functions.append(f"{rel}:{name} ({length})")
            if length > 80:
                very_long.append(f"{rel}:{name} ({length})")
                if not reason:
                    unexplained.append(f"{rel}:{name} ({length})")
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
            if isinstance(node, ast.FunctionDef) and _reads_jsonl(node, parsers):
                jsonl_readers.append(f"{rel}:{node.name}")
    by_kind: dict[str, set[str]] = {}
    for place, kinds in wordings:
        for kind in kinds:
            by_kind.setdefault(kind, set()).add(place)
    total = sum(modules.values())
    typed_roots = [str(Path(d).relative_to("src")) for d in _typed_dirs(makefile)]
    typed = sum(n for m, n in modules.items() if any(m.startswith(r) for r in typed_roots))
    return {
        "lines": total,
        "modules_over_600": sorted(m for m, n in modules.items() if n > 600),
        "functions_over_50": len(long_functions),
        "functions_over_80": sorted(very_long),
        "functions_over_80_without_reason": sorted(unexplained),
        "scorer_classes": len(scorers),
        "strict_scorers_in_benchmark_folders": folder_strict,
        "getattr_probes_on_a_benchmark": sum(probes.values()),
        "probed_hooks": dict(sorted(probes.items())),
        "jsonl_readers": jsonl_readers,
        "question_wordings": max((len(places) for places in by_kind.values()), default=0),
        "question_wordings_by_kind": {kind: sorted(by_kind[kind]) for kind in sorted(by_kind)},
        "line_numberers": numberers,
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
        if key == "question_wordings_by_kind" and isinstance(value, dict):
            for kind, places in value.items():
                print(f"    {kind}: {', '.join(places)}")


if __name__ == "__main__":
    sys.exit(main())
