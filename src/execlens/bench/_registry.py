"""The benchmark registry: built-in folders found by name, third parties by entry point.

A built-in benchmark is a sub-package ``execlens.bench.<folder>`` exposing a module-level
``BENCHMARK``; its ``--benchmark`` name is the folder's with ``_`` read as ``-``
(``lcb_exec`` -> ``lcb-exec``).  Nothing is imported until a benchmark is asked for, so
listing names stays cheap.

Third-party packages register through the ``execlens.benchmarks`` entry-point group (the
way inspect_ai finds task packages): an entry point's value is a Benchmark object or a
zero-argument factory returning one.  :func:`register_benchmark` adds one at run time.
"""

from __future__ import annotations

import importlib
from importlib import metadata
from pathlib import Path
from typing import Any

from ._protocol import Benchmark, BenchmarkError

__all__ = [
    "ENTRY_POINT_GROUP",
    "benchmark_names",
    "built_in_folders",
    "default_benchmark",
    "get_benchmark",
    "register_benchmark",
]

ENTRY_POINT_GROUP = "execlens.benchmarks"

_HERE = Path(__file__).resolve().parent
_registered: dict[str, Benchmark] = {}
_REQUIRED = ("name", "tasks", "modes", "load", "plan", "render", "extract", "scorers", "metrics")


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
    # A class is always a factory (its class attributes would otherwise pass for an
    # instance's); another callable is one when it does not look like a benchmark.
    if isinstance(obj, type) or (
        callable(obj) and not any(hasattr(obj, name) for name in ("tasks", "plan"))
    ):
        obj = obj()
    missing = [name for name in _REQUIRED if not hasattr(obj, name)]
    if missing:
        raise BenchmarkError(f"{origin} is not a benchmark: it lacks {', '.join(missing)}")
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
    return sorted(set(_folders()) | set(_entry_points()) | set(_registered))


def default_benchmark() -> Benchmark:
    """The built-in benchmark that declares itself the default (``default = True``).

    ``execlens score FILE`` without ``--benchmark`` scores the file as this one.
    """
    for name in _folders():
        benchmark = get_benchmark(name)
        if getattr(benchmark, "default", False):
            return benchmark
    raise BenchmarkError(
        "no benchmark declares itself the default; pass --benchmark "
        f"(one of {', '.join(benchmark_names())})"
    )


def get_benchmark(name: str) -> Benchmark:
    """The benchmark registered as ``name``; :class:`BenchmarkError` names the choices."""
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
