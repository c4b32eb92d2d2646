"""Seeding a program's randomness in the child: from the job's seed, or afresh.

Python's at-fork hook reseeds ``random`` from the OS in every child, so without a seed
a program's randomness differs from run to run; a job's seed makes it a function of the
job.  Between two inputs of one child the global generators are reseeded (from the next
job's seed, else from the OS): the state one execution left in them never reaches the
next, which then draws exactly as a fresh child would.
"""

from __future__ import annotations

import sys
from typing import Any, cast

from execlens.engine._report import STATE

__all__ = ["SeedNumpyOnImport", "reseed", "seed_generators"]


def seed_generators(seed: int) -> None:
    """Seed ``random`` and, when loaded, NumPy's global generator with ``seed``.

    A program that imports NumPy later has it seeded by :class:`SeedNumpyOnImport` the
    moment the import finishes."""
    import random

    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        _seed_numpy(numpy, seed)


def reseed() -> None:
    """Reseed the loaded global generators from the OS (between two inputs of a child
    whose next input has no seed): as a freshly forked child would start."""
    random = sys.modules.get("random")
    if random is not None:
        random.seed()
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        _seed_numpy(numpy, None)


def _seed_numpy(numpy: Any, seed: int | None) -> None:
    try:
        numpy.random.seed(None if seed is None else seed % (2**32))
    except Exception:  # noqa: BLE001 - a broken NumPy is the program's problem
        pass


class SeedNumpyOnImport:
    """A ``sys.meta_path`` finder that seeds NumPy's global generator from the running
    input's seed as soon as a program's first ``import numpy`` has run.

    NumPy is not preloaded by default (it maps much memory, which slows every fork), so
    a program importing it gets a generator NumPy seeded from the OS: ``np.random.rand()``
    would differ from run to run although the job has a seed.  Installed once in the
    server before the zygote forks; for any other name it returns at once.
    """

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        """The spec the other finders give ``numpy``, its loader seeding after it runs."""
        if name != "numpy" or STATE.seed is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = cast(Any, _SeedingLoader(spec.loader))
                return spec
        return None


class _SeedingLoader:
    """NumPy's own loader, then the seed (and the module left pointing at that loader)."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        if STATE.seed is not None:
            _seed_numpy(module, STATE.seed)
