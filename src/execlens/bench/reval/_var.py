"""REval's reading of a question's variable (``dynamics.VarInterpreter``), on envelopes.

REval evaluates the question's expression over *all* the states after the line at once,
not state by state:

* a ``Name`` is the list of its values in every after-state that has it (Nil if none);
* an ``Attribute`` is that attribute of every base value that has it;
* a ``Subscript`` is ``a[i]`` for every pair (base value, index value) -- a cross product
  -- skipping pairs that raise ``TypeError``/``KeyError``/``IndexError``;
* a ``Tuple`` is the cross product of its elements' value lists (so ``(a, b)`` accepts
  ``a`` from one execution with ``b`` from another);
* a ``Constant`` is itself;
* any other node (``i - 1``, ``-1``, a slice, a call) makes the whole expression Nil
  (REval returns a ``ValueError`` object for it, which then fails to iterate).

Here values are envelopes.  Differences that cannot be helped, each rare in the data:
attributes are read from an object's instance ``__dict__`` (REval's ``hasattr`` also sees
class attributes and properties); subscripts work on builtin containers, strings and
numpy arrays, ``numpy.matrix`` included (REval would also call a program class's
``__getitem__``, a ``defaultdict``'s default factory, a ``deque``'s indexing).
"""

from __future__ import annotations

import ast
import itertools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from execlens.values import decode, encode

__all__ = ["MAX_COMBINATIONS", "reval_interpret"]

# A tuple of two loop variables over 1,000 iterations has 10^6 combinations; beyond this
# many the cross product is cut (the question is then judged on the first ones).
MAX_COMBINATIONS = 20_000


class _Unsupported(Exception):
    """A node REval cannot read: the whole expression is Nil."""


Envelope = dict[str, Any]


def reval_interpret(
    var: str, snapshots: Sequence[Mapping[str, Envelope] | None], covered: bool
) -> list[Envelope] | None:
    """The values REval accepts for ``var`` given the after-states' locals; None for Nil.

    ``snapshots`` are the locals (name → envelope) of the state after each execution of
    the line, in order (``None`` for a state without recorded locals).  Duplicates are
    dropped, first occurrence order kept.
    """
    if not covered:
        return None
    try:
        tree = ast.parse(var)
        if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
            return None
        values = _node(tree.body[0].value, [s or {} for s in snapshots])
    except Exception:  # noqa: BLE001 - REval's VarInterpreter.get() turns any error into Nil
        return None
    if values is None:
        return None
    seen: set[str] = set()
    unique: list[Envelope] = []
    for value in values:
        key = json.dumps(value, sort_keys=True, ensure_ascii=False)
        if key not in seen:
            seen.add(key)
            unique.append(value)
    return unique or None


def _node(node: ast.expr, states: list[Mapping[str, Envelope]]) -> list[Envelope] | None:
    if isinstance(node, ast.Constant):
        return [encode(node.value)]
    if isinstance(node, ast.Name):
        found = [state[node.id] for state in states if node.id in state]
        return found or None
    if isinstance(node, ast.Attribute):
        bases = _node(node.value, states)
        if bases is None:
            return None
        found = []
        for base in bases:
            attrs = base.get("__value__") if base.get("__kind__") == "object" else None
            if isinstance(attrs, dict) and not base.get("__truncated__") and node.attr in attrs:
                found.append(attrs[node.attr])
        return found or None
    if isinstance(node, ast.Subscript):
        bases = _node(node.value, states)
        keys = _node(node.slice, states)
        if bases is None or keys is None:
            return None
        found = []
        for base, key in itertools.islice(itertools.product(bases, keys), MAX_COMBINATIONS):
            try:
                found.append(_subscript(base, decode(key)))
            except (TypeError, KeyError, IndexError):
                continue
        return found or None
    if isinstance(node, ast.Tuple):
        elements = [_node(e, states) for e in node.elts]
        if any(e is None for e in elements):
            return None
        columns = [_unique(e or []) for e in elements]
        return [
            {"__type__": "tuple", "__value__": list(combo)}
            for combo in itertools.islice(itertools.product(*columns), MAX_COMBINATIONS)
        ]
    raise _Unsupported(type(node).__name__)


def _unique(values: list[Envelope]) -> list[Envelope]:
    seen: set[str] = set()
    out = []
    for value in values:
        key = json.dumps(value, sort_keys=True, ensure_ascii=False)
        if key not in seen:
            seen.add(key)
            out.append(value)
    return out


def _index(key: Any) -> int:
    # Sequences accept ints and bools (True is 1), as Python's own indexing does.
    if isinstance(key, bool) or isinstance(key, int):
        return int(key)
    raise TypeError("sequence indices must be integers")


def _subscript(base: Envelope, key: Any) -> Envelope:
    """``base[key]`` with Python's semantics, for the containers an envelope can hold."""
    if base.get("__truncated__"):
        raise TypeError("truncated value")
    kind = base.get("__kind__")
    if kind == "numpy":
        # Arrays carry a shape (``ndarray`` and subclasses: REval indexes a
        # ``numpy.matrix`` too, ``ysum[0, i]`` giving a numpy.float64); scalars do not.
        if "shape" not in base:
            raise TypeError("numpy scalar")
        array = decode(base)
        return encode(array[key])
    if kind in ("object", "opaque"):
        raise TypeError("not subscriptable here")
    name = base.get("__base__", base.get("__type__"))
    # Any JSON shape; a missing value fails the indexing below with TypeError, the
    # error every caller already treats as "not subscriptable".
    items: Any = base.get("__value__")
    if name in ("list", "tuple"):
        return items[_index(key)]
    if name == "str":
        return {"__type__": "str", "__value__": items[_index(key)]}
    if name in ("bytes", "bytearray"):
        return {"__type__": "int", "__value__": str(items).encode("latin-1")[_index(key)]}
    if name == "range":
        return {"__type__": "int", "__value__": range(*items)[_index(key)]}
    if name == "dict":
        hash(key)  # TypeError for an unhashable key, as dict lookup raises
        for pair in items or ():
            stored = decode(pair[0])
            try:
                if stored is key or stored == key:
                    return pair[1]
            except Exception:  # noqa: BLE001, S112 - an incomparable stored key
                continue
        raise KeyError(key)
    raise TypeError(f"{name!r} object is not subscriptable")
