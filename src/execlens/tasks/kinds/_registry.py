"""The registry of question kinds: the built-in six, then plug-ins.

Plug-ins are found without editing any project file, once, when the registry first
loads: the ``execlens.question_kinds`` entry-point group (an entry names a module that
calls :func:`register_kind`, or a kind object), then the modules named, comma-separated,
in ``$EXECLENS_PLUGINS`` (imported for their side effects: they may register kinds,
benchmarks, synthesis stages).  A plug-in that fails to import is a :class:`PluginError`
naming it, never a silent gap.

execlens's own benchmark folders that add kinds (``re2bench_*``, ``codemind_sr``) are
declared in that group too (``pyproject.toml``): a process that builds or judges such a
task -- a judge or reward worker, ``execlens`` reading exported tasks -- finds the kind
without having imported the folder (an unknown name loads the entry points).
"""

from __future__ import annotations

import importlib
import os
from importlib.metadata import entry_points

from execlens.tasks.kinds._protocol import QuestionKind

__all__ = [
    "PLUGINS_ENV",
    "PluginError",
    "get_kind",
    "kind_names",
    "kinds",
    "load_plugins",
    "plugin_modules",
    "register_kind",
]

#: The environment variable naming plug-in modules to import.
PLUGINS_ENV = "EXECLENS_PLUGINS"
#: The entry-point group of third-party question kinds.
ENTRY_POINT_GROUP = "execlens.question_kinds"
_BUILTIN = ("_coverage", "_path", "_state", "_output", "_input", "_trace")

_KINDS: dict[str, QuestionKind] = {}
_state = {"loaded": False, "loading": False, "built_in": False}
# Each plug-in module tried, with its failure (None: imported).  A failure is raised again
# by every later call: a second import of a half-registered module would fail differently
# (its first kinds are registered already).  A module named later (the variable changed
# in a long-lived process) is imported then.
_tried: dict[str, PluginError | None] = {}


class PluginError(ImportError):
    """A plug-in module (``$EXECLENS_PLUGINS`` or an entry point) that cannot be loaded."""


def register_kind(kind: QuestionKind, *, replace: bool = False) -> QuestionKind:
    """Add ``kind`` under ``kind.name`` (a second kind of the same name is refused unless
    ``replace``); returns it, so a module may write ``KIND = register_kind(MyKind())``."""
    _load_built_in()  # the built-in kinds come first, whoever registers first
    if not isinstance(kind, QuestionKind):
        raise TypeError(f"{kind!r} is not a QuestionKind (see execlens.tasks.kinds)")
    if not kind.name or not kind.name.isidentifier():
        raise ValueError(f"a question kind needs a name that is an identifier, not {kind.name!r}")
    if kind.scope not in ("site", "run", "derived", "given"):
        raise ValueError(f"kind {kind.name!r}: scope must be site, run, derived or given")
    old = _KINDS.get(kind.name)
    if old is not None and old is not kind and not replace:
        raise ValueError(f"a question kind named {kind.name!r} is registered already")
    _KINDS[kind.name] = kind
    return kind


def _import_plugin(name: str, origin: str) -> object:
    try:
        return importlib.import_module(name)
    except Exception as exc:  # noqa: BLE001 - any failure of a plug-in is named
        raise PluginError(
            f"{origin} names the module {name!r}, which fails to import "
            f"({type(exc).__name__}: {exc}); fix it or remove it from {origin}"
        ) from exc


def plugin_modules() -> list[str]:
    """The module names ``$EXECLENS_PLUGINS`` lists, in order."""
    return [m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(",") if m.strip()]


def load_plugins() -> None:
    """Register the built-in kinds and the entry points' (once), then import the plug-in
    modules of ``$EXECLENS_PLUGINS`` not tried yet.

    This is the one importer of ``$EXECLENS_PLUGINS``: the benchmark registry reads the
    modules it imported for their ``BENCHMARK``.  Raises :class:`PluginError` for a
    plug-in that fails to load, and the same error on every later call."""
    if _state["loading"]:
        return
    _state["loading"] = True
    try:
        if not _state["loaded"]:
            _load_built_in_and_entry_points()
            _state["loaded"] = True
        for name in plugin_modules():
            if name not in _tried:
                try:
                    _import_plugin(name, f"${PLUGINS_ENV}")
                except PluginError as error:
                    _tried[name] = error
                else:
                    _tried[name] = None
            failure = _tried[name]
            if failure is not None:
                raise failure
    finally:
        _state["loading"] = False


def _load_built_in() -> None:
    if _state["built_in"]:
        return
    _state["built_in"] = True
    for module in _BUILTIN:
        kind = importlib.import_module(f"{__package__}.{module}").KIND
        _KINDS.setdefault(kind.name, kind)


def _load_built_in_and_entry_points() -> None:
    _load_built_in()
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            found = entry.load()
        except Exception as exc:  # noqa: BLE001 - named, as a module's failure is
            raise PluginError(
                f"the entry point {entry.name!r} of {ENTRY_POINT_GROUP} fails to load "
                f"({type(exc).__name__}: {exc})"
            ) from exc
        if isinstance(found, QuestionKind):
            register_kind(found)


def get_kind(name: str) -> QuestionKind:
    """The kind named ``name``; ``KeyError`` naming the known kinds otherwise."""
    found = _KINDS.get(name)
    if found is None:
        load_plugins()
        found = _KINDS.get(name)
    if found is None:
        raise KeyError(f"unknown question kind {name!r} (kinds: {', '.join(kind_names())})")
    return found


def kinds() -> tuple[QuestionKind, ...]:
    """Every registered kind: the built-in ones in their order, then plug-ins'."""
    load_plugins()
    return tuple(_KINDS.values())


def kind_names() -> tuple[str, ...]:
    """The names of :func:`kinds`."""
    return tuple(kind.name for kind in kinds())
