"""The benchmark registry: built-in folders found by name, third parties by entry point.

A built-in benchmark is a sub-package ``execlens.bench.<folder>`` exposing a module-level
``BENCHMARK``; its ``--benchmark`` name is the folder's with ``_`` read as ``-``
(``lcb_exec`` -> ``lcb-exec``).  Nothing is imported until a benchmark is asked for, so
listing names stays cheap.

Third-party packages register through the ``execlens.benchmarks`` entry-point group (the
way inspect_ai finds task packages): an entry point's value is a Benchmark object or a
zero-argument factory returning one.  :func:`register_benchmark` adds one at run time.

A module that is not installed is named in the environment variable ``EXECLENS_PLUGINS``
(``module.a,module.b``, shared with the question kinds' plug-ins): each is imported once,
and one that defines ``BENCHMARK`` (a benchmark or a factory) registers it.  A module
that fails to import is a :class:`PluginError` (the CLI's one ``error:`` line), never
skipped.
"""

from __future__ import annotations

import importlib
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from ._base import Benchmark
from ._protocol import BenchmarkError

__all__ = [
    "ENTRY_POINT_GROUP",
    "PLUGINS_VARIABLE",
    "PluginError",
    "benchmark_names",
    "built_in_folders",
    "default_benchmark",
    "get_benchmark",
    "load_plugins",
    "register_benchmark",
]

ENTRY_POINT_GROUP = "execlens.benchmarks"
#: The environment variable naming plug-in modules to import (comma separated).
PLUGINS_VARIABLE = "EXECLENS_PLUGINS"

_HERE = Path(__file__).resolve().parent
_registered: dict[str, Benchmark] = {}
_plugins: dict[str, str | None] = {}  # module -> why it failed to load (None: loaded)


class PluginError(BenchmarkError):
    """A module named in ``EXECLENS_PLUGINS`` that cannot be imported or registered."""


def _import_plugins() -> None:
    """Register the ``BENCHMARK`` of each plug-in module not read yet; remember why one
    failed.  The modules are imported by the one plug-in importer
    (:func:`execlens.tasks.kinds.load_plugins`), which also registers their kinds."""
    from execlens.tasks.kinds import PluginError as ImportFailure
    from execlens.tasks.kinds import load_plugins as import_plugins
    from execlens.tasks.kinds import plugin_modules

    try:
        import_plugins()
    except ImportFailure as exc:
        _plugins[""] = str(exc)
        return
    _plugins.pop("", None)
    for module in plugin_modules():
        if module in _plugins:
            continue  # read already
        declared = getattr(sys.modules.get(module), "BENCHMARK", None)  # a module's name
        try:
            if declared is not None:
                benchmark = _checked(declared, f"{module}.BENCHMARK")
                _registered[benchmark.name] = benchmark
        except Exception as exc:  # noqa: BLE001 - a plug-in's own failure, named
            _plugins[module] = (
                f"{PLUGINS_VARIABLE} names the module {module!r}, which failed to load "
                f"({type(exc).__name__}: {exc}); fix it or remove it from {PLUGINS_VARIABLE}"
            )
        else:
            _plugins[module] = None


def load_plugins() -> list[str]:
    """Import the modules ``EXECLENS_PLUGINS`` names; the modules loaded, in order.

    Raises :class:`PluginError` naming the first module that fails to import (or whose
    ``BENCHMARK`` is not a benchmark) and the fix.
    """
    from execlens.tasks.kinds import plugin_modules

    _import_plugins()
    for reason in [_plugins.get(""), *(_plugins.get(m) for m in plugin_modules())]:
        if reason is not None:
            raise PluginError(reason)
    return plugin_modules()


def _folders() -> dict[str, str]:
    """``{benchmark name: folder}`` of the built-in benchmark packages."""
    found = {}
    for path in sorted(_HERE.iterdir()):
        if (path / "__init__.py").is_file() and not path.name.startswith("_"):
            if path.name in ("examples", "templates"):
                continue
            found[path.name.replace("_", "-")] = path.name
    return found


def built_in_folders() -> list[str]:
    """The folders of the built-in benchmarks (``cruxeval``, ``lcb_exec``, ...), sorted."""
    return list(_folders().values())


def _entry_points() -> dict[str, Any]:
    return {entry.name: entry for entry in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def _checked(obj: Any, origin: str) -> Benchmark:
    # A class (or any other callable that is not itself a benchmark) is a factory.
    if not isinstance(obj, Benchmark) and callable(obj):
        obj = obj()
    if not isinstance(obj, Benchmark):
        raise BenchmarkError(
            f"{origin} is not a benchmark: derive it from execlens.bench.BenchmarkBase"
        )
    return obj


def register_benchmark(obj: Any) -> Benchmark:
    """Register a Benchmark object (or a zero-argument factory) under its ``name``."""
    benchmark = _checked(obj, repr(obj))
    _registered[benchmark.name] = benchmark
    return benchmark


def unregister_benchmark(name: str) -> None:
    """Forget a benchmark added by :func:`register_benchmark` (built-ins stay)."""
    _registered.pop(name, None)


def benchmark_names() -> list[str]:
    """Every benchmark that can be asked for: built-in folders, entry points, registered."""
    _import_plugins()  # quietly: a broken one is raised where a benchmark is asked for
    return sorted(set(_folders()) | set(_entry_points()) | set(_registered))


def default_benchmark() -> Benchmark:
    """The built-in benchmark that declares itself the default (``default = True``).

    ``execlens score FILE`` without ``--benchmark`` scores the file as this one.
    """
    for name in _folders():
        benchmark = get_benchmark(name)
        if benchmark.default:
            return benchmark
    raise BenchmarkError(
        "no benchmark declares itself the default; pass --benchmark "
        f"(one of {', '.join(benchmark_names())})"
    )


def get_benchmark(name: str) -> Benchmark:
    """The benchmark registered as ``name``; :class:`BenchmarkError` names the choices
    (:class:`PluginError` a plug-in module that failed to load)."""
    load_plugins()
    if name in _registered:
        return _registered[name]
    folder = _folders().get(name)
    if folder is not None:
        module = importlib.import_module(f"{__package__}.{folder}")
        benchmark = _checked(module.BENCHMARK, f"execlens.bench.{folder}")
    else:
        entry = _entry_points().get(name)
        if entry is None:
            raise BenchmarkError(
                f"unknown benchmark {name!r} (expected one of {', '.join(benchmark_names())})"
            )
        try:
            loaded = entry.load()
        except Exception as exc:  # noqa: BLE001 - a third party's import error, named
            raise BenchmarkError(
                f"the benchmark {name!r} (entry point {entry.value!r}) "
                f"failed to load: {type(exc).__name__}: {exc}"
            ) from exc
        benchmark = _checked(loaded, f"entry point {entry.value!r}")
    if benchmark.name != name:
        raise BenchmarkError(f"benchmark {name!r} declares the name {benchmark.name!r}")
    _registered[name] = benchmark
    return benchmark
