"""Every lazily exporting package states its public names twice -- once as imports under
``TYPE_CHECKING`` (for type checkers and readers) and once in ``_EXPORTS`` (what
``__getattr__`` loads) -- so the two lists must agree, and each name must exist where
``_EXPORTS`` says it lives."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import execlens

_SRC = Path(execlens.__file__).resolve().parent


def _lazy_packages() -> list[Path]:
    return sorted(
        path
        for path in _SRC.rglob("__init__.py")
        if "lazy_exports(" in path.read_text(encoding="utf-8")
    )


def _package_name(init: Path) -> str:
    return ".".join(("execlens", *init.parent.relative_to(_SRC).parts))


def _type_checking_imports(tree: ast.Module, package: str) -> dict[str, str]:
    """name -> private module (relative to ``package``) from the ``TYPE_CHECKING`` block."""
    found: dict[str, str] = {}
    for node in tree.body:
        if not (isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"):
            continue
        for statement in node.body:
            assert isinstance(statement, ast.ImportFrom), ast.unparse(statement)
            module = statement.module or ""
            if statement.level:  # ``from ._x import y``
                relative = module
            else:
                assert module.startswith(package + "."), f"{module} is not inside {package}"
                relative = module[len(package) + 1 :]
            for alias in statement.names:
                assert alias.asname is None, f"{package}: {alias.name} imported under a new name"
                found[alias.name] = relative
    return found


def _exports_literal(tree: ast.Module) -> dict[str, str]:
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in targets):
            assert isinstance(node, ast.Assign)
            value = ast.literal_eval(node.value)
            assert isinstance(value, dict)
            return value
    raise AssertionError("no _EXPORTS literal")


def test_lazy_packages_are_found() -> None:
    assert len(_lazy_packages()) >= 10


@pytest.mark.parametrize("init", _lazy_packages(), ids=lambda p: _package_name(p))
def test_type_checking_imports_and_exports_agree(init: Path) -> None:
    package = _package_name(init)
    tree = ast.parse(init.read_text(encoding="utf-8"))
    declared = _type_checking_imports(tree, package)
    exported = _exports_literal(tree)
    assert declared == exported, {
        "only under TYPE_CHECKING": sorted(set(declared) - set(exported)),
        "only in _EXPORTS": sorted(set(exported) - set(declared)),
        "different module": sorted(
            n for n in set(declared) & set(exported) if declared[n] != exported[n]
        ),
    }


@pytest.mark.parametrize("init", _lazy_packages(), ids=lambda p: _package_name(p))
def test_every_export_loads_from_its_module(init: Path) -> None:
    package = importlib.import_module(_package_name(init))
    assert sorted(package.__all__) == sorted(_exports_literal(ast.parse(init.read_text())))
    for name in package.__all__:
        getattr(package, name)  # AttributeError / ImportError when the module lacks it
