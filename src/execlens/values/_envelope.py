"""JSON value envelopes: the only form in which values cross the sandbox wall.

An envelope is a JSON object ``{"__type__": <type name>, "__value__": <JSON value>}``,
compatible with the JetBrains repackaging of REval.  Extra keys say what a reader needs
to rebuild the value without trusting it:

* ``"__kind__"``: ``"numpy"`` (numpy scalars/arrays), ``"object"`` (a custom object,
  with ``"__module__"`` and attribute envelopes), ``"opaque"`` (functions, modules,
  generators... only a description is kept).
* ``"__truncated__": true`` with ``"__reason__"`` when a cap cut the value short
  (depth, items, string length, total size, cycle).  A truncated envelope never compares
  equal to anything.
* ``"__length__"`` on truncated containers and strings: the real length.

Encoding runs inside the sandboxed child; it imports nothing heavy, because every module
the fork server holds makes each fork dearer.  Decoding (``_decode``) runs in the host.
"""

from __future__ import annotations

import json
import math
import types
from typing import Any

__all__ = ["NIL", "Caps", "NilType", "dumps", "encode", "type_name_of"]


# Bound at import, as module globals: sandboxed code may replace these in builtins
# before our code encodes and reports its result.
bytes = bytes  # noqa: PLW0127
enumerate = enumerate  # noqa: PLW0127
frozenset = frozenset  # noqa: PLW0127
getattr = getattr  # noqa: PLW0127
hasattr = hasattr  # noqa: PLW0127
id = id  # noqa: PLW0127
int = int  # noqa: PLW0127
isinstance = isinstance  # noqa: PLW0127
len = len  # noqa: PLW0127
list = list  # noqa: PLW0127
set = set  # noqa: PLW0127
sorted = sorted  # noqa: PLW0127
str = str  # noqa: PLW0127
type = type  # noqa: PLW0127
dict = dict  # noqa: PLW0127
tuple = tuple  # noqa: PLW0127
float = float  # noqa: PLW0127
bool = bool  # noqa: PLW0127
complex = complex  # noqa: PLW0127
range = range  # noqa: PLW0127


class NilType:
    """The "not defined" marker (REval's ``Nil``): a variable with no value at a point."""

    _instance: NilType | None = None

    def __new__(cls) -> NilType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "Nil"

    def __reduce__(self) -> str:
        return "NIL"


NIL = NilType()


class Caps:
    """Bounds on what one envelope may hold, so a huge value cannot flood the host."""

    __slots__ = ("max_depth", "max_int_digits", "max_items", "max_nodes", "max_str")

    def __init__(
        self,
        max_depth: int = 24,
        max_items: int = 2_000,
        max_str: int = 20_000,
        max_nodes: int = 100_000,
        max_int_digits: int = 4_000,
    ) -> None:
        self.max_depth = max_depth
        self.max_items = max_items
        self.max_str = max_str
        self.max_nodes = max_nodes
        self.max_int_digits = max_int_digits

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)}" for name in self.__slots__)
        return f"Caps({fields})"


_DEFAULT_CAPS = Caps()

# Recognised by module and name, so encoding never has to import these modules itself.
_DATETIME_NAMES = frozenset({"datetime", "date", "time", "timedelta"})
_TEXT_NUMBER_NAMES = {"decimal": "Decimal", "fractions": "Fraction"}


def type_name_of(value: Any) -> str:
    """The type name an envelope records for ``value`` (``type(value).__name__``)."""
    return type(value).__name__


def _float_value(x: float) -> float | str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


class _Encoder:
    """One encoding pass; tracks a node budget and the containers on the current path."""

    __slots__ = ("caps", "nodes", "path")

    def __init__(self, caps: Caps) -> None:
        self.caps = caps
        self.nodes = 0
        self.path: set[int] = set()

    def encode(self, value: Any, depth: int) -> dict[str, Any]:
        self.nodes += 1
        cls = type(value)
        # Exact-type fast paths first: these are the overwhelming majority of values.
        if cls is int:
            if value.bit_length() > self.caps.max_int_digits * 3.33:
                return {"__type__": "int", "__truncated__": True, "__reason__": "int_digits"}
            return {"__type__": "int", "__value__": value}
        if cls is str:
            if len(value) > self.caps.max_str:
                return {
                    "__type__": "str",
                    "__value__": value[: self.caps.max_str],
                    "__truncated__": True,
                    "__reason__": "str_length",
                    "__length__": len(value),
                }
            return {"__type__": "str", "__value__": value}
        if cls is bool:
            return {"__type__": "bool", "__value__": value}
        if cls is float:
            return {"__type__": "float", "__value__": _float_value(value)}
        if value is None:
            return {"__type__": "NoneType", "__value__": None}
        if value is NIL:
            return {"__type__": "Nil"}
        if self.nodes > self.caps.max_nodes:
            return {"__type__": cls.__name__, "__truncated__": True, "__reason__": "size"}
        if cls in (list, tuple, set, frozenset, dict) or isinstance(
            value, (list, tuple, set, frozenset, dict)
        ):
            return self._container(value, cls, depth)
        if cls in (bytes, bytearray):
            data = bytes(value[: self.caps.max_str])
            env: dict[str, Any] = {"__type__": cls.__name__, "__value__": data.decode("latin-1")}
            if len(value) > self.caps.max_str:
                env.update(__truncated__=True, __reason__="str_length", __length__=len(value))
            return env
        if cls is complex:
            return {
                "__type__": "complex",
                "__value__": [_float_value(value.real), _float_value(value.imag)],
            }
        module = getattr(cls, "__module__", "") or ""
        if module == "datetime" and cls.__name__ in _DATETIME_NAMES:
            if cls.__name__ == "timedelta":
                return {"__type__": "timedelta", "__value__": value.total_seconds()}
            return {"__type__": cls.__name__, "__value__": value.isoformat()}
        if _TEXT_NUMBER_NAMES.get(module) == cls.__name__:
            return {"__type__": cls.__name__, "__value__": str(value)}
        if cls is range:
            return {"__type__": "range", "__value__": [value.start, value.stop, value.step]}
        if module == "collections" and cls.__name__ == "deque":
            # Not a list subclass, but list-like data: kept with its own type name.
            env = self._container(list(value), list, depth)
            env["__type__"] = "deque"
            env["__base__"] = "deque"
            env["__module__"] = "collections"
            if value.maxlen is not None:
                env["maxlen"] = value.maxlen
            return env
        if module == "numpy" or module.startswith("numpy."):
            return self._numpy(value, cls, depth)
        return self._other(value, cls, module, depth)

    def _container(self, value: Any, cls: type, depth: int) -> dict[str, Any]:
        if isinstance(value, dict):
            base = "dict"
        elif isinstance(value, list):
            base = "list"
        elif isinstance(value, tuple):
            base = "tuple"
        elif isinstance(value, frozenset):
            base = "frozenset"
        else:
            base = "set"
        name = cls.__name__
        if depth >= self.caps.max_depth:
            return {"__type__": name, "__truncated__": True, "__reason__": "depth"}
        key = id(value)
        if key in self.path:
            return {"__type__": name, "__truncated__": True, "__reason__": "cycle"}
        self.path.add(key)
        try:
            limit = self.caps.max_items
            items: list[Any]
            if base == "dict":
                items = []
                for i, (k, v) in enumerate(dict.items(value)):
                    if i >= limit:
                        break
                    items.append([self.encode(k, depth + 1), self.encode(v, depth + 1)])
            elif base in ("set", "frozenset"):
                encoded = []
                for i, element in enumerate(value):
                    if i >= limit:
                        break
                    encoded.append(self.encode(element, depth + 1))
                # Set order follows string hashes; sort so envelopes are hash-seed independent.
                items = sorted(encoded, key=_canonical)
            else:
                items = []
                for i, element in enumerate(value):
                    if i >= limit:
                        break
                    items.append(self.encode(element, depth + 1))
        finally:
            self.path.discard(key)
        env: dict[str, Any] = {"__type__": name, "__value__": items}
        if name != base:
            # A subclass of a builtin container (defaultdict, OrderedDict, namedtuple...).
            env["__base__"] = base
        if len(value) > len(items):
            env.update(__truncated__=True, __reason__="items", __length__=len(value))
        return env

    def _numpy(self, value: Any, cls: type, depth: int) -> dict[str, Any]:
        name = cls.__name__
        if any(klass.__name__ == "ndarray" for klass in cls.__mro__):
            # ndarray and its subclasses (numpy.matrix, ...): the type name is kept, the
            # data travels as nested lists with dtype and shape.
            if value.size > self.caps.max_items:
                return {
                    "__type__": name,
                    "__kind__": "numpy",
                    "__truncated__": True,
                    "__reason__": "items",
                    "__length__": int(value.size),
                    "dtype": str(value.dtype),
                    "shape": list(value.shape),
                }
            inner = self.encode(value.tolist(), depth + 1)
            return {
                "__type__": name,
                "__kind__": "numpy",
                "__value__": inner,
                "dtype": str(value.dtype),
                "shape": list(value.shape),
            }
        if hasattr(value, "item") and hasattr(value, "dtype"):
            item = value.item()
            inner = self.encode(item, depth + 1)
            return {
                "__type__": name,
                "__kind__": "numpy",
                "__value__": inner.get("__value__"),
                "dtype": str(value.dtype),
            }
        return self._other(value, cls, cls.__module__, depth)

    def _other(self, value: Any, cls: type, module: str, depth: int) -> dict[str, Any]:
        name = cls.__name__
        if isinstance(
            value,
            (
                types.FunctionType,
                types.BuiltinFunctionType,
                types.MethodType,
                types.ModuleType,
                types.GeneratorType,
                types.CoroutineType,
                type,
            ),
        ):
            label = getattr(value, "__qualname__", None) or getattr(value, "__name__", "")
            return {"__type__": name, "__kind__": "opaque", "__value__": str(label)}
        attrs: dict[str, Any] | None = None
        try:
            raw = object.__getattribute__(value, "__dict__")
            if isinstance(raw, dict):
                attrs = raw
        except AttributeError:
            attrs = None
        if attrs is None:
            slots: dict[str, Any] = {}
            for klass in cls.__mro__:
                for slot in getattr(klass, "__slots__", ()) or ():
                    if isinstance(slot, str) and slot not in slots:
                        try:
                            slots[slot] = object.__getattribute__(value, slot)
                        except AttributeError:
                            continue
            attrs = slots if slots or hasattr(cls, "__slots__") else None
        if attrs is None:
            return {"__type__": name, "__kind__": "opaque", "__module__": module}
        if depth >= self.caps.max_depth:
            return {
                "__type__": name,
                "__kind__": "object",
                "__module__": module,
                "__truncated__": True,
                "__reason__": "depth",
            }
        key = id(value)
        if key in self.path:
            return {
                "__type__": name,
                "__kind__": "object",
                "__module__": module,
                "__truncated__": True,
                "__reason__": "cycle",
            }
        self.path.add(key)
        try:
            encoded: dict[str, Any] = {}
            for i, (attr, attr_value) in enumerate(dict.items(attrs)):
                if i >= self.caps.max_items:
                    break
                encoded[str(attr)] = self.encode(attr_value, depth + 1)
        finally:
            self.path.discard(key)
        return {"__type__": name, "__kind__": "object", "__module__": module, "__value__": encoded}


def _canonical(envelope: dict[str, Any]) -> str:
    return json.dumps(envelope, sort_keys=True, ensure_ascii=False)


def encode(value: Any, caps: Caps | None = None) -> dict[str, Any]:
    """Encode any Python value into a JSON-serialisable envelope, within ``caps``.

    Never calls the value's ``__repr__``/``__eq__``: only its type and data are read.
    """
    encoder = _Encoder(caps or _DEFAULT_CAPS)
    try:
        return encoder.encode(value, 0)
    except RecursionError:
        return {"__type__": type(value).__name__, "__truncated__": True, "__reason__": "depth"}


def dumps(envelope: dict[str, Any]) -> str:
    """Serialise an envelope to compact JSON (non-finite floats are already strings)."""
    return json.dumps(envelope, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
