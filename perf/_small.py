"""The small scale every perf script has: ``EXECLENS_PERF_SMALL=1``.

``tests/perf/test_perf_scripts.py`` runs every script of this folder with it set, so that
none stops running unnoticed (two once failed at import for months).  At the small scale
a script does the same things on a sliver of its data -- its figures mean nothing then,
its code paths all run.
"""

from __future__ import annotations

import os
from typing import TypeVar

__all__ = ["SMALL", "small"]

T = TypeVar("T")

#: Whether this run is the small one.
SMALL = os.environ.get("EXECLENS_PERF_SMALL", "") not in ("", "0")


def small(full: T, tiny: T) -> T:
    """``tiny`` at the small scale, else ``full``."""
    return tiny if SMALL else full
