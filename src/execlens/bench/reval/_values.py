"""REval's value test, in the host: :func:`reval_contains` is REval's ``State._eq``.

Float tolerance, ``in`` membership, numpy ``allclose`` fallback for any ``np.ndarray``
(``numpy.matrix`` included, as REval's ``isinstance`` check has it), on host values
decoded from envelopes, so no program-defined ``__eq__`` ever runs.  Strict parsing and
type-strict equality are the generic judge's (``execlens.judge.parse_state_value``,
``strict_equal``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from execlens.values import is_ndarray

__all__ = ["reval_contains"]


def _float_close(answer: Any, actual: Iterable[Any]) -> bool:
    for value in actual:
        try:
            if abs(answer - value) < 1e-6:
                return True
        except Exception:  # noqa: BLE001, S112 - REval skips values it cannot subtract
            continue
    return False


def reval_contains(answer: Any, actual: list[Any], answer_is_float: bool) -> bool:
    """REval's value test: is the parsed answer among the accepted values?

    ``answer_is_float``: the answered type is ``float`` (then any value within 1e-6 of
    the answer matches, whatever its type).  Otherwise Python ``in`` (``==`` on the
    decoded values); when that raises ``ValueError`` (numpy arrays), each value is tried
    with ``numpy.allclose`` for two arrays, ``==`` otherwise.
    """
    if answer_is_float:
        return _float_close(answer, actual)
    try:
        return any(value is answer or bool(value == answer) for value in actual)
    except ValueError:
        pass
    except Exception:  # noqa: BLE001 - REval would crash here; count it as no match
        return False
    import numpy  # only arrays reach here, so numpy is already loaded

    for value in actual:
        try:
            if is_ndarray(answer) and is_ndarray(value):
                if numpy.allclose(answer, value):
                    return True
            elif answer == value:
                return True
        except Exception:  # noqa: BLE001, S112 - as REval: skip what cannot be compared
            continue
    return False
