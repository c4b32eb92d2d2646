"""Reading ClassEval test modules the way REval does, without running them.

REval (dataset.py ``tcls_postprocess``, dynamics.py ``create_test_classes``) executes the
test module and keeps, in definition order, every top-level ``unittest.TestCase``
subclass named ``<entry_point>Test...``: one class = one input. From each it takes the
source of ``setUp`` (shown in prompts as comments) and the body of its first ``test*``
method (the input: ``self.assert`` -> ``assert``, lines left-stripped). Both come from
``inspect.getsource``; we find the same lines statically with ``ast`` and cut them with
``inspect.getblock``, the routine ``getsource`` itself uses, so the text is identical
without importing or executing the test module.

This is the one ClassEval rule: the REval benchmark's loader (``_data``) and its runtime
program reader (``_programs``, for ``execlens tasks build``) both use it.
"""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass

__all__ = ["ClassEvalTestClass", "classeval_test_classes"]

_TESTCASE_BASES = {"unittest.TestCase", "TestCase"}


@dataclass(frozen=True)
class ClassEvalTestClass:
    """One ClassEval test class as REval sees it."""

    name: str
    setup: str | None
    """``inspect.getsource(cls.setUp)``, or ``None`` when ``setUp`` is unittest's own."""
    first_test: str
    input: str
    """The first test method's body as REval stores it in ``DREval_data.jsonl`` ``inputs``."""


def _source_of(node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> list[str]:
    # getsource starts at the first decorator (co_firstlineno) and ends where getblock says
    start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
    return list(inspect.getblock(lines[start:]))


def _body_names(cls: ast.ClassDef) -> dict[str, ast.stmt]:
    """Names bound in a class body in ``cls.__dict__`` order (first place, last value)."""
    names: dict[str, ast.stmt] = {}
    for stmt in cls.body:
        bound: list[str] = []
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = [stmt.name]
        elif isinstance(stmt, ast.Assign):
            bound = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
            bound = [stmt.target.id]
        for name in bound:
            names[name] = stmt
    return names


def classeval_test_classes(test_source: str, entry_point: str) -> list[ClassEvalTestClass]:
    """The test classes REval builds from a ClassEval test module, in its input order.

    Raises ``SyntaxError`` if the module does not parse and ``ValueError`` if a kept class
    has no ``test*`` method (REval asserts the same).
    """
    tree = ast.parse(test_source)
    lines = test_source.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"  # linecache, which getsource reads through, does the same
    top: dict[str, ast.ClassDef] = {}
    for stmt in tree.body:  # module globals: a re-definition keeps the first one's place
        if isinstance(stmt, ast.ClassDef):
            top[stmt.name] = stmt

    def is_testcase(cls: ast.ClassDef, seen: frozenset[str] = frozenset()) -> bool:
        for base in cls.bases:
            text = ast.unparse(base)
            if text in _TESTCASE_BASES:
                return True
            if text in top and text not in seen and is_testcase(top[text], seen | {cls.name}):
                return True
        return False

    def find_setup(
        cls: ast.ClassDef, seen: frozenset[str] = frozenset()
    ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        own = _body_names(cls).get("setUp")
        if isinstance(own, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return own
        for base in cls.bases:  # inherited from a test base class of the same module
            text = ast.unparse(base)
            if text in top and text not in seen:
                found = find_setup(top[text], seen | {cls.name})
                if found is not None:
                    return found
        return None

    pattern = re.compile(f"{entry_point}Test.*")  # REval builds the regex from the name unescaped
    out: list[ClassEvalTestClass] = []
    for name, cls in top.items():
        if not pattern.match(name) or not is_testcase(cls):
            continue
        tests = [k for k in _body_names(cls) if k.startswith("test")]
        if not tests:
            raise ValueError(f"test class {name} has no test method")
        method = _body_names(cls)[tests[0]]
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            raise ValueError(f"{name}.{tests[0]} is not a method")
        method_lines = _source_of(method, lines)
        body = "".join(line.replace("self.assert", "assert").lstrip() for line in method_lines[1:])
        setup_node = find_setup(cls)
        setup = "".join(_source_of(setup_node, lines)) if setup_node is not None else None
        out.append(ClassEvalTestClass(name=name, setup=setup, first_test=tests[0], input=body))
    return out
