"""pass@k and per-sample accuracy, computed exactly as the official scorers do.

CRUXEval and LiveCodeBench both use the unbiased estimator of Chen et al. (2021),
``1 - prod_{j=n-c+1..n} (1 - k/j)`` (``1.0`` when ``n - c < k``), averaged over samples
with Python's ``sum(...) / len(...) * 100`` as Python 3.11 and older compute it (left to
right; 3.12's ``sum`` compensates rounding and can differ in the last bit).  The product
is taken with numpy, as the official scripts take it, so our figures match theirs to the
last bit; without numpy a left-to-right product is used (equal for every n <= 10 we have
checked).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

__all__ = ["mean_pass_at_k", "pass_at_k", "sample_accuracy"]


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimate for one sample with ``c`` correct of ``n`` generations.

    ``1.0`` whenever ``n - c < k`` (every k-subset holds a correct one), including the
    official scorers' corner case of ``n < k``.
    """
    if n < 0 or c < 0 or c > n or k < 1:
        raise ValueError(f"pass_at_k needs 0 <= c <= n and k >= 1 (got n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a declared dependency
        return 1.0 - math.prod(1.0 - k / j for j in range(n - c + 1, n + 1))
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def mean_pass_at_k(results: Iterable[Sequence[bool]], k: int) -> float:
    """Mean pass@k over samples, in percent, as the official scripts average it.

    Each item is one sample's verdict list (its length is that sample's ``n``).
    """
    values = [
        pass_at_k(len(verdicts), sum(1 for v in verdicts if v is True), k) for verdicts in results
    ]
    if not values:
        raise ValueError("mean_pass_at_k needs at least one sample")
    total = 0.0
    for value in values:  # not sum(): see the module docstring
        total += value
    return total / len(values) * 100


def sample_accuracy(verdicts: Sequence[bool]) -> float:
    """The fraction of a sample's generations judged correct (its pass@1); 0 when empty."""
    return sum(1 for v in verdicts if v is True) / len(verdicts) if verdicts else 0.0
