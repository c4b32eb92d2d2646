"""Comparison of decoded values, in the host, under three named rules.

* ``exact``: type-strict structural equality (``True`` is not ``1``, a list is not a
  tuple, ``1.0`` is not ``1``); NaN equals NaN because values are data here.
* ``python``: Python ``==`` on builtins (``True == 1``, ``1.0 == 1``, order-free sets and
  dicts, ``nan != nan``): what CRUXEval's official scorer computes.
* ``tolerant``: CodeI/O's ``is_close`` (relative 1e-3 and the same integer part for any
  numeric pair involving a float, never equal when NaN/inf is involved, dict keys equal,
  list lengths equal) without its missing-import bug.

Values are decoded envelopes, so no program-defined ``__eq__`` is ever called.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from enum import Enum
from typing import Any

from execlens.values._decode import ObjectRecord, OpaqueRecord, Truncated
from execlens.values._envelope import NIL

__all__ = ["CompareMode", "values_equal"]


class CompareMode(str, Enum):
    """The comparison rule to apply."""

    EXACT = "exact"
    PYTHON = "python"
    TOLERANT = "tolerant"


def _is_ndarray(value: Any) -> bool:
    return type(value).__name__ == "ndarray" and type(value).__module__ == "numpy"


def _is_numpy_scalar(value: Any) -> bool:
    module = type(value).__module__
    return module == "numpy" and hasattr(value, "item") and not _is_ndarray(value)


def _plain(value: Any) -> Any:
    """numpy scalars compare as their Python value."""
    return value.item() if _is_numpy_scalar(value) else value


def _float_eq_exact(a: float, b: float) -> bool:
    if math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _exact(a: Any, b: Any) -> bool:
    if isinstance(a, Truncated) or isinstance(b, Truncated):
        return False
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return _float_eq_exact(a, b)
    if isinstance(a, complex):
        return _float_eq_exact(a.real, b.real) and _float_eq_exact(a.imag, b.imag)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_exact(x, y) for x, y in zip(a, b))
    if isinstance(a, (set, frozenset)):
        if len(a) != len(b):
            return False
        remaining = list(b)
        for x in a:
            for i, y in enumerate(remaining):
                if _exact(x, y):
                    del remaining[i]
                    break
            else:
                return False
        return True
    if isinstance(a, dict):
        if len(a) != len(b):
            return False
        b_items = list(b.items())
        for ka, va in a.items():
            for kb, vb in b_items:
                if _exact(ka, kb):
                    if not _exact(va, vb):
                        return False
                    break
            else:
                return False
        return True
    if _is_ndarray(a):
        return (
            a.shape == b.shape
            and a.dtype == b.dtype
            and all(_exact(x, y) for x, y in zip(a.ravel().tolist(), b.ravel().tolist()))
        )
    if _is_numpy_scalar(a):
        return a.dtype == b.dtype and _exact(a.item(), b.item())
    if isinstance(a, ObjectRecord):
        return (
            a.type_name == b.type_name
            and a.attributes.keys() == b.attributes.keys()
            and all(_exact(v, b.attributes[k]) for k, v in a.attributes.items())
        )
    if isinstance(a, OpaqueRecord):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - e.g. Decimal('sNaN') signals on any comparison
        return False


def _python(a: Any, b: Any) -> bool:
    if isinstance(a, Truncated) or isinstance(b, Truncated):
        return False
    a, b = _plain(a), _plain(b)
    if _is_ndarray(a) or _is_ndarray(b):
        if not (_is_ndarray(a) and _is_ndarray(b)):
            return False
        return a.shape == b.shape and all(
            _python(x, y) for x, y in zip(a.ravel().tolist(), b.ravel().tolist())
        )
    if isinstance(a, ObjectRecord) or isinstance(b, ObjectRecord):
        return (
            isinstance(a, ObjectRecord)
            and isinstance(b, ObjectRecord)
            and a.type_name == b.type_name
            and a.attributes.keys() == b.attributes.keys()
            and all(_python(v, b.attributes[k]) for k, v in a.attributes.items())
        )
    if isinstance(a, OpaqueRecord) or isinstance(b, OpaqueRecord):
        return False
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if isinstance(a, list) != isinstance(b, list):
            return False
        return len(a) == len(b) and all(_python(x, y) for x, y in zip(a, b))
    if a is NIL or b is NIL:
        return a is b
    # Remaining builtins (numbers, str, bytes, sets, dicts of hashables, None) follow
    # Python's own == exactly; they are host-built values, never program objects.
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - e.g. ndarray inside a dict
        return False


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _tolerant(a: Any, b: Any, rel: float = 1e-3) -> bool:
    """``a`` is the prediction, ``b`` the reference (the tolerance is relative to ``b``)."""
    if isinstance(a, Truncated) or isinstance(b, Truncated):
        return False
    a, b = _plain(a), _plain(b)
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return False
        return all(_tolerant(a[k], b[k], rel) for k in b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return False
        return all(_tolerant(x, y, rel) for x, y in zip(a, b))
    if (isinstance(a, float) or isinstance(b, float)) and _is_number(a) and _is_number(b):
        try:
            if any(math.isnan(x) or math.isinf(x) for x in (float(a), float(b))):
                return False
            return abs(a - b) <= rel * abs(b) and int(a) == int(b)
        except OverflowError:
            # An int beyond float range beside a float: their integer parts differ.
            return False
    return _python(a, b)


_RULES: dict[CompareMode, Callable[[Any, Any], bool]] = {
    CompareMode.EXACT: _exact,
    CompareMode.PYTHON: _python,
    CompareMode.TOLERANT: _tolerant,
}


def values_equal(predicted: Any, reference: Any, mode: CompareMode | str = "exact") -> bool:
    """Whether a decoded predicted value matches a decoded reference under ``mode``.

    Raises ``ValueError`` for an unknown ``mode``.  Values nested too deeply to compare
    are unequal, as the encoder's depth cap makes them (a truncated value equals nothing).
    """
    rule = _RULES[CompareMode(mode)]
    try:
        return rule(predicted, reference)
    except RecursionError:
        return False
