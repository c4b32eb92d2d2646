"""Value types in the host: the names a type may be given as, and type-strict equality.

* :func:`strict_equal` is type-strict equality, with numpy scalars and arrays (any
  ``ndarray`` subclass, ``numpy.matrix`` included) compared as the Python values they hold,
  and classes (as decoded envelopes hold them) by name;
* :func:`type_names` / :func:`envelope_type_key`: the names a value's type may be given as
  (``float64``, ``numpy.float64``, ``np.float64``...), for answers of the ``value; type``
  form.

numpy is never imported here: its types are recognised by module and name.
"""

from __future__ import annotations

import marshal
from collections.abc import Mapping
from typing import Any

from execlens.values._compare import values_equal
from execlens.values._decode import OpaqueRecord

__all__ = ["envelope_type_key", "is_ndarray", "strict_equal", "type_names"]


def _is_ndarray(value: Any) -> bool:
    """Any ``numpy.ndarray``, subclasses (``numpy.matrix``) included, without importing numpy."""
    return any(
        cls.__name__ == "ndarray" and cls.__module__ == "numpy" for cls in type(value).__mro__
    )


def _is_numpy_scalar(value: Any) -> bool:
    return type(value).__module__ == "numpy" and hasattr(value, "item") and not _is_ndarray(value)


# ------------------------------------------------------------------ type names
def type_names(module: str | None, name: str) -> set[str]:
    """The lower-case names a type may be given as (``float64``, ``numpy.float64``...)."""
    names = {name.lower()}
    if module and module != "builtins":
        names.add(f"{module}.{name}".lower())
    if module == "numpy":
        names.add(f"np.{name}".lower())
    if name == "NoneType":
        names.add("none")
    return names


# ------------------------------------------------------------------ comparisons
class _Class:
    """A class as data (``OpaqueRecord("type", name)``), equal by name."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Class) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("class", self.name))


def _plain(value: Any) -> Any:
    if _is_numpy_scalar(value):
        return value.item()
    if _is_ndarray(value):
        return value.tolist()
    if isinstance(value, OpaqueRecord) and value.type_name == "type":
        return _Class(value.description.rsplit(".", 1)[-1])
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value


def literal_fingerprint(value: Any) -> bytes | None:
    """Bytes that are equal only for values of equal types and equal contents (builtins:
    ``marshal`` format 0, which shares nothing, so equal values built apart usually give
    equal bytes); ``None`` for a value it cannot write."""
    try:
        return marshal.dumps(value, 0)
    except (ValueError, RecursionError, MemoryError):
        return None


def quick_literal_equal(
    predicted: Any, reference: Any, reference_fingerprint: bytes | None = None
) -> bool | None:
    """Type-strict equality of two values ``parse_literal`` built (builtins only), decided
    at C speed where it can be, else ``None`` (ask :func:`strict_equal`).

    Values Python's ``==`` tells apart are not equal under any rule (unless a NaN is
    involved: ``==`` never finds one equal, the strict rule does); equal
    :func:`literal_fingerprint` bytes mean equal values of equal types.  What is left --
    equal under ``==`` but written differently: ``1`` against ``1.0``, a set in another
    order -- is undecided.  ``reference_fingerprint``: the reference's, when the caller
    keeps it (references repeat).
    """
    wanted = reference_fingerprint or literal_fingerprint(reference)
    if wanted is None:
        return None
    try:
        if b"nan" not in wanted and predicted != reference:
            return False  # no NaN in the reference: nothing unequal under == is equal
        if literal_fingerprint(predicted) == wanted:
            return True
        return None if b"nan" in wanted or predicted == reference else False
    except (RecursionError, MemoryError, ValueError):
        return None


def strict_equal(predicted: Any, reference: Any) -> bool:
    """Type-strict equality; numpy scalars/arrays compare as the Python values they hold,
    classes (as decoded envelopes hold them) by name."""
    return values_equal(_plain(predicted), _plain(reference), "exact")


def is_ndarray(value: Any) -> bool:
    """Whether ``value`` is a numpy array (``numpy.matrix`` and other subclasses too)."""
    return _is_ndarray(value)


_BUILTIN_TYPES = frozenset(
    {
        "int",
        "str",
        "bool",
        "float",
        "NoneType",
        "list",
        "tuple",
        "set",
        "frozenset",
        "dict",
        "bytes",
        "bytearray",
        "complex",
        "range",
        "type",
        "object",
        "slice",
        "memoryview",
    }
)
_MODULE_OF = {
    "datetime": "datetime",
    "date": "datetime",
    "time": "datetime",
    "timedelta": "datetime",
    "Decimal": "decimal",
    "Fraction": "fractions",
    "deque": "collections",
    "defaultdict": "collections",
    "OrderedDict": "collections",
    "Counter": "collections",
    "ChainMap": "collections",
}


def envelope_type_key(envelope: Mapping[str, Any]) -> tuple[str | None, str]:
    """``(module, name)`` of the type an envelope records, e.g. ``("builtins", "int")``.

    The module is ``None`` when the envelope does not say and the name is not a known
    builtin or standard-library type (a subclass of a builtin container).
    """
    name = str(envelope.get("__type__", ""))
    kind = envelope.get("__kind__")
    if kind == "numpy":
        return "numpy", name
    module = envelope.get("__module__")
    if module:
        return str(module), name
    if name in _BUILTIN_TYPES:
        return "builtins", name
    return _MODULE_OF.get(name), name
