"""Value fingerprints: whether a traced variable still holds what it was encoded from.

A variable whose object and shallow structure (the identity of everything reachable
through builtin containers and plain objects' ``__dict__``) did not change since the
frame's last step reuses its envelope.  This module says which objects can be watched
that way (the type caches), lists what a value reaches (``_fingerprint``), compares two
such listings by identity (with a pointer-array compare on CPython), and checks a cached
variable against what was recorded (``_unchanged``).  Runs in the sandboxed child on
every traced line: builtins are bound at import, hot comparisons stay in C.
"""

from __future__ import annotations

import sys
import types
from itertools import chain as _itertools_chain
from itertools import compress as _compress
from operator import is_ as _is  # in C: called per value per line, a def costs a frame
from typing import Any

# Bound at import: the traced program may replace builtins.
_type = type
_id = id
_len = len
_isinstance = isinstance
_map = map
_all = all
_any = any
_object_getattribute = object.__getattribute__
_sum = sum
_chain = _itertools_chain.from_iterable

_ATOMS = frozenset({int, float, str, bool, type(None), bytes, complex, range})
_ATOMS_OR_TUPLE = _ATOMS | {tuple}
_IS_TUPLE = frozenset({tuple}).__contains__
_END = object()  # closes a container in a structure fingerprint
_VOLATILE = object()  # a fingerprint that never matches (value must be re-encoded)
_SMALL = 48  # below this length, comparing items with map(is_) beats the pointer compare
_FINGERPRINT_BUDGET = 20_000

_SKIP_BASE = (
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.GeneratorType,
    types.CoroutineType,
    types.AsyncGeneratorType,
)


class _PlainClassCache(dict):  # type -> bool
    """Classes whose instances keep all their data in a plain ``__dict__``."""

    def __missing__(self, cls: type) -> bool:
        plain = (
            cls is not type
            and not issubclass(cls, _SKIP_BASE)
            and not issubclass(cls, (list, tuple, dict, set, frozenset))
            and not hasattr(cls, "__slots__")
            and cls.__module__ not in ("numpy", "collections", "builtins")
            and _any(
                _type(klass.__dict__.get("__dict__")).__name__ == "getset_descriptor"
                for klass in cls.__mro__
            )
        )
        self[cls] = plain
        return plain


_PLAIN_CLASS = _PlainClassCache()


class _NumpyKindCache(dict):  # type -> "scalar" | "matrix" | None
    """numpy's own scalar types (immutable) and ``numpy.matrix``, by class identity."""

    def __missing__(self, cls: type) -> str | None:
        kind = None
        numpy = sys.modules.get("numpy")  # a numpy class exists only once numpy is loaded
        if numpy is not None:
            try:
                if cls is numpy.matrix:
                    kind = "matrix"
                elif issubclass(cls, (numpy.number, numpy.bool_)) and cls.__module__ == "numpy":
                    kind = "scalar"
            except Exception:  # noqa: BLE001 - a strange numpy: treat as anything else
                kind = None
        self[cls] = kind
        return kind


_NUMPY_KIND = _NumpyKindCache()


class _SkipCache(dict):  # type -> bool
    def __missing__(self, cls: type) -> bool:
        # REval drops modules, functions, builtins, iterators and generators from locals.
        skip = issubclass(cls, _SKIP_BASE) or (
            hasattr(cls, "__next__") and hasattr(cls, "__iter__")
        )
        self[cls] = skip
        return skip


def _fingerprint(value: Any) -> Any:
    """A flat list of every object reachable through plain data, with container ends.

    Two fingerprints match (element-wise identity) only if nothing reachable changed:
    holding the objects keeps their ids from being reused.  ``_VOLATILE`` when the
    value holds something whose changes cannot be seen this way (numpy arrays, deques,
    container subclasses...).

    Long because it is a hot path (every traced line of a mutable value): one
    explicit-stack loop with its type tests inline, where helper calls per object
    would cost more than the walk.

    A tuple of atoms is listed by itself alone: it cannot change, so its identity says
    all its items would (``hidden`` counts those items and its end, so the budget is
    spent exactly as if they were listed); containers of atoms and such tuples are
    listed in one C-level step.
    """
    out: list[Any] = []
    stack = [value]
    pop = stack.pop
    push = stack.append
    append = out.append
    extend = out.extend
    atoms = _ATOMS
    hidden = 0
    while stack:
        item = pop()
        if item is _END:
            append(_END)
            continue
        cls = _type(item)
        append(item)
        if cls in atoms:
            continue
        if cls is list or cls is tuple:
            if atoms.issuperset(_map(_type, item)):
                if cls is tuple:
                    hidden += _len(item) + 1
                else:
                    extend(item)
                    append(_END)
            else:
                batch = _flat_tuples(item)
                if batch is None:
                    push(_END)
                    stack.extend(reversed(item))
                else:
                    hidden = _batch(out, hidden, item, batch)
                    if hidden < 0:
                        return _VOLATILE
                    continue
        elif cls is dict:
            keys = list(item)
            values = list(item.values())
            extend(keys)
            if atoms.issuperset(_map(_type, values)):
                extend(values)
                append(_END)
            else:
                batch = _flat_tuples(values)
                if batch is None:
                    push(_END)
                    stack.extend(reversed(values))
                else:
                    hidden = _batch(out, hidden, values, batch)
                    if hidden < 0:
                        return _VOLATILE
                    continue
        elif cls is set or cls is frozenset:
            extend(item)
            append(_END)
        elif cls is type or _isinstance(item, _SKIP_BASE):
            continue  # encoded by name only
        elif _isinstance(item, (list, tuple, dict, set, frozenset)):
            return _VOLATILE  # a subclass may keep data outside what we can see
        else:
            try:
                attrs = _object_getattribute(item, "__dict__")
            except AttributeError:
                return _VOLATILE
            if (
                _type(attrs) is not dict
                or hasattr(cls, "__slots__")
                or (cls.__module__ in ("numpy", "collections"))
            ):
                return _VOLATILE
            push(_END)
            push(attrs)
        if _len(out) + hidden > _FINGERPRINT_BUDGET:
            return _VOLATILE
    return out


def _flat_tuples(items: list[Any]) -> tuple[int, int] | None:
    """When every item is an atom or a tuple of atoms: (where the last tuple is, how many
    items the tuples hold); else None."""
    kinds = [*_map(_type, items)]
    if not _ATOMS_OR_TUPLE.issuperset(kinds):
        return None
    tuples = [*_compress(items, _map(_IS_TUPLE, kinds))]
    if not _ATOMS.issuperset(_map(_type, _chain(tuples))):
        return None
    kinds.reverse()
    return _len(kinds) - 1 - kinds.index(tuple), _sum(_map(_len, tuples)) + _len(tuples)


def _batch(out: list[Any], hidden: int, items: list[Any], batch: tuple[int, int]) -> int:
    """List a container's atoms and tuples of atoms (the tuples by themselves) in one go.

    Returns the new ``hidden`` count, or -1 where the full listing would have run over
    the budget: it checked after the container itself and after each tuple, and the
    largest of those counts is the one after the last tuple.
    """
    listed = _len(out) + hidden
    last, inside = batch
    if listed > _FINGERPRINT_BUDGET or listed + last + 1 + inside > _FINGERPRINT_BUDGET:
        return -1
    out.extend(items)
    out.append(_END)
    return hidden + inside


def _same(old: Any, new: Any) -> bool:
    if old is _VOLATILE or new is _VOLATILE or _len(old) != _len(new):
        return False
    return _same_items(old, new)


def _identical_slow(old: list[Any], new: list[Any]) -> bool:
    """Whether two equally long lists hold the very same objects, in order."""
    return _all(_map(_is, old, new))


def _make_identical() -> tuple[Any, Any, Any, int]:
    """A fast ``_identical`` for CPython: compare the lists' element pointer arrays.

    Checking a 600-element list element by element costs ~11 µs per traced line; reading
    both lists' ``ob_item`` arrays as bytes and comparing them costs well under 1 µs.
    Same length and same pointers means the same objects (the caller holds ``old``, so
    no id can have been reused).  Verified on import; anything unexpected falls back.

    Also returns, for a list watched line after line, ``view(lst)`` (a ctypes view of its
    ``ob_item`` field: ``string_at(view.value, n * pointer_size)`` is then its first n
    pointers) with ``string_at`` and the pointer size; ``view`` is None where this is
    unavailable.  A view must only be read while its list is alive.
    """
    if sys.implementation.name != "cpython":
        return _identical_slow, None, None, 0
    try:
        import ctypes

        pointer_size = ctypes.sizeof(ctypes.c_void_p)
        offset = 3 * pointer_size  # PyListObject: ob_refcnt, ob_type, ob_size, ob_item
        from_address = ctypes.c_void_p.from_address
        string_at = ctypes.string_at

        def items(lst: list[Any]) -> bytes:
            size = _len(lst)
            if not size:
                return b""
            # A non-empty list's item array is never NULL (mypy sees c_void_p.value as optional).
            return string_at(from_address(_id(lst) + offset).value, size * pointer_size)  # type: ignore[arg-type]

        def identical(old: list[Any], new: list[Any]) -> bool:
            if _type(old) is not list or _type(new) is not list:
                return _identical_slow(old, new)
            return items(old) == items(new)

        def view(lst: list[Any]) -> Any:
            return from_address(_id(lst) + offset)

        probe_a, probe_b = [1.5, "x", None], [1.5, "x", None]
        expected = b"".join(_id(v).to_bytes(pointer_size, sys.byteorder) for v in probe_a)
        if (
            items(probe_a) != expected
            or identical(probe_a, probe_b) != _identical_slow(probe_a, probe_b)
            or not identical(probe_a, list(probe_a))
            or string_at(view(probe_a).value, 3 * pointer_size) != expected
        ):
            return _identical_slow, None, None, 0
        return identical, view, string_at, pointer_size
    except Exception:  # noqa: BLE001 - any surprise: the portable version
        return _identical_slow, None, None, 0


_identical, _list_view, _string_at, _POINTER_SIZE = _make_identical()


def _same_items(old: list[Any], new: Any) -> bool:
    """Whether ``new`` (a list, or any iterable as long as ``old``) yields ``old``'s objects."""
    if _len(old) < _SMALL or _type(new) is not list:
        return _all(_map(_is, old, new))
    return _identical(old, new)


def _unchanged(value: Any, check: Any) -> bool:
    """Whether a cached variable's object still holds what its envelope was made from.

    ``check`` comes from ``Recorder._encode_var``: ``("L", items)`` a flat list, ``("S",
    members)`` a flat set, ``("D", keys, values)`` a flat dict, ``("O", attrs, keys,
    values)`` a plain object with flat attributes, ``("N", shape, dtype, bytes)`` a numpy
    array, ``("F", fingerprint)`` anything else, ``("V",)`` never (``Recorder._renumpy``).
    Lengths are compared first: the item comparisons stop at the shorter side.
    """
    tag = check[0]
    if tag == "O":
        attrs = _object_getattribute(value, "__dict__")
        keys = check[2]
        return (
            attrs is check[1]
            and _len(attrs) == _len(keys)
            and (not keys or (_same_items(keys, attrs) and _same_items(check[3], attrs.values())))
        )
    if tag == "L":
        old = check[1]
        size = _len(old)
        if size != _len(value):
            return False
        if _len(check) > 3:  # a long list: its current pointers against those encoded
            return _string_at(check[3].value, size * _POINTER_SIZE) == check[4]
        return _same_items(old, value)
    if tag == "S":
        old = check[1]
        return _len(old) == _len(value) and _identical_slow(old, value)
    if tag == "V":
        return False
    if tag == "D":
        return (
            _len(check[1]) == _len(value)
            and _all(_map(_is, check[1], value))
            and _all(_map(_is, check[2], value.values()))
        )
    if tag == "N":
        return (
            value.shape == check[1] and value.dtype.str == check[2] and value.tobytes() == check[3]
        )
    return _same(check[1], _fingerprint(value))
