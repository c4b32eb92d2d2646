"""Decoding envelopes back into host-side values, without running any program code."""

from __future__ import annotations

from typing import Any

from execlens.values._envelope import NIL

__all__ = ["EnvelopeError", "ObjectRecord", "OpaqueRecord", "Truncated", "decode"]

# Python's int() refuses more digits than this; a Fraction exponent gets the same bound.
_MAX_EXPONENT = 4_300


class EnvelopeError(ValueError):
    """An envelope that does not describe a value (a field of the wrong type or form)."""


class ObjectRecord:
    """A program-defined object as seen from the host: its type name and attributes.

    Never an instance of the program's class, so its ``__eq__`` is ours.
    """

    __slots__ = ("attributes", "module", "type_name")

    def __init__(
        self, type_name: str, attributes: dict[str, Any] | None = None, module: str | None = None
    ) -> None:
        self.type_name = type_name
        self.attributes = attributes if attributes is not None else {}
        self.module = module

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ObjectRecord)
            and self.type_name == other.type_name
            and self.module == other.module
            and self.attributes == other.attributes
        )

    def __hash__(self) -> int:
        return hash((self.type_name, self.module, tuple(sorted(self.attributes))))

    def __repr__(self) -> str:
        return f"ObjectRecord({self.type_name!r}, {self.attributes!r}, module={self.module!r})"


class OpaqueRecord:
    """A value that cannot be represented as data (function, module, generator...)."""

    __slots__ = ("description", "type_name")

    def __init__(self, type_name: str, description: str = "") -> None:
        self.type_name = type_name
        self.description = description

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, OpaqueRecord)
            and self.type_name == other.type_name
            and self.description == other.description
        )

    def __hash__(self) -> int:
        return hash((self.type_name, self.description))

    def __repr__(self) -> str:
        return f"OpaqueRecord({self.type_name!r}, {self.description!r})"


class Truncated:
    """A value cut short by a cap; it never equals anything, itself included."""

    __slots__ = ("length", "partial", "reason", "type_name")

    def __init__(
        self, type_name: str, reason: str, partial: Any = None, length: int | None = None
    ) -> None:
        self.type_name = type_name
        self.reason = reason
        self.partial = partial
        self.length = length

    def __eq__(self, other: object) -> bool:
        return False

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"Truncated({self.type_name!r}, reason={self.reason!r}, length={self.length!r})"


def _decode_float(raw: Any) -> float:
    if isinstance(raw, str):
        return float(raw)  # "nan", "inf", "-inf"
    return float(raw)


def _decode_plain(raw: Any) -> Any:
    """Decode a bare JSON value found where an envelope was expected (lenient reading)."""
    if isinstance(raw, dict):
        if "__type__" in raw:
            return _decode(raw)
        return {k: _decode_plain(v) for k, v in raw.items()}
    if isinstance(raw, list):
        return [_decode_plain(v) for v in raw]
    return raw


def _decode_items(raw: Any) -> list[Any]:
    return [_decode_plain(item) for item in raw or []]


_SEQUENCE_BUILDERS: dict[str, Any] = {
    "list": list,
    "tuple": tuple,
    "set": set,
    "frozenset": frozenset,
}


def _hashable(value: Any) -> Any:
    """Make a decoded value usable as a set member or dict key (lists become tuples)."""
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple((_hashable(k), _hashable(v)) for k, v in value.items())
    if isinstance(value, set):
        return frozenset(_hashable(v) for v in value)
    return value


def decode(envelope: Any) -> Any:
    """Rebuild a host-side value from an envelope without running any program code.

    Custom objects become :class:`ObjectRecord`, opaque values :class:`OpaqueRecord`,
    truncated values :class:`Truncated`.  Unknown type names with a JSON value decode to
    that value.  A malformed envelope raises :class:`EnvelopeError`.
    """
    try:
        return _decode(envelope)
    except EnvelopeError:
        raise
    except RecursionError as exc:
        raise EnvelopeError("envelope nested too deeply") from exc
    except (ArithmeticError, AttributeError, LookupError, TypeError, ValueError) as exc:
        # Envelopes come from sandboxed children and from files: no program code runs
        # here, so whatever a field's builder refuses is the envelope's fault.
        name = envelope.get("__type__") if isinstance(envelope, dict) else None
        if not isinstance(name, str):  # its str() could be huge or nested too deeply
            name = type(name).__name__
        raise EnvelopeError(
            f"malformed {name[:80]!r} envelope: {type(exc).__name__}: {str(exc)[:200]}"
        ) from exc


def _decode(envelope: Any) -> Any:
    if not isinstance(envelope, dict) or "__type__" not in envelope:
        return _decode_plain(envelope)
    name = envelope["__type__"]
    kind = envelope.get("__kind__")
    raw: Any = envelope.get("__value__")
    if envelope.get("__truncated__"):
        partial = None
        if "__value__" in envelope:
            partial = _decode_plain(raw) if kind != "object" else raw
        return Truncated(
            type_name=name,
            reason=str(envelope.get("__reason__", "truncated")),
            partial=partial,
            length=envelope.get("__length__"),
        )
    if name == "Nil" and "__value__" not in envelope:
        return NIL
    if kind == "object":
        attributes = {k: _decode(v) for k, v in (raw or {}).items()}
        return ObjectRecord(name, attributes, envelope.get("__module__"))
    if kind == "opaque":
        return OpaqueRecord(name, str(raw or ""))
    if kind == "numpy":
        return _decode_numpy(envelope)
    base = envelope.get("__base__", name)
    if base in ("int", "str", "bool"):
        return raw
    if base == "float":
        return _decode_float(raw)
    if base == "NoneType":
        return None
    if base == "deque":
        from collections import deque

        return deque(_decode_items(raw), envelope.get("maxlen"))
    if base in _SEQUENCE_BUILDERS:
        items = _decode_items(raw)
        if base in ("set", "frozenset"):
            items = [_hashable(i) for i in items]
        return _SEQUENCE_BUILDERS[base](items)
    if base == "dict":
        out: dict[Any, Any] = {}
        if isinstance(raw, dict):  # a plain JSON object (string keys) is accepted too
            return {k: _decode_plain(v) for k, v in raw.items()}
        for pair in raw or []:
            k, v = pair
            out[_hashable(_decode_plain(k))] = _decode_plain(v)
        return out
    if base in ("bytes", "bytearray"):
        data = str(raw).encode("latin-1")
        return data if base == "bytes" else bytearray(data)
    if base == "complex":
        return complex(_decode_float(raw[0]), _decode_float(raw[1]))
    if base in ("datetime", "date", "time", "timedelta"):
        import datetime

        if base == "timedelta":
            return datetime.timedelta(seconds=raw)
        return getattr(datetime, base).fromisoformat(raw)
    if base == "Decimal":
        import decimal

        return decimal.Decimal(raw)
    if base == "Fraction":
        import fractions

        # Fraction("1e99999999") builds 10**99999999 (minutes, gigabytes); the encoder
        # writes "p/q", so an exponent is only bounded here, as int() bounds digits.
        exponent = raw.lower().partition("e")[2] if isinstance(raw, str) else ""
        if exponent and abs(int(exponent)) > _MAX_EXPONENT:
            raise EnvelopeError(f"malformed 'Fraction' envelope: exponent beyond {_MAX_EXPONENT}")
        return fractions.Fraction(raw)
    if base == "range":
        return range(*raw)
    return _decode_plain(raw)


def _decode_numpy(envelope: dict[str, Any]) -> Any:
    name = envelope["__type__"]
    dtype = envelope.get("dtype")
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a declared dependency
        np = None  # type: ignore[assignment]
    if "shape" in envelope:  # ndarray or a subclass such as matrix
        data = _decode(envelope.get("__value__"))
        if np is None:
            return data
        array = np.array(data, dtype=dtype) if dtype else np.array(data)
        shape = envelope.get("shape")
        if shape is not None and list(array.shape) != list(shape):
            array = array.reshape(shape)
        return np.asmatrix(array) if name == "matrix" else array
    raw = envelope.get("__value__")
    if isinstance(raw, str) and raw in ("nan", "inf", "-inf"):
        raw = float(raw)
    if np is None or dtype is None:
        return raw
    try:
        return np.dtype(dtype).type(raw)
    except (TypeError, ValueError):
        return raw
