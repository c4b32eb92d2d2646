"""The line recorder: runs inside the sandboxed child (or in-process, for benchmarks).

Two modes share one recorder:

* ``reval`` reproduces REval's reference tracer: every event of a program frame goes into
  one flat list of *states*; an event on the same line as the previous state is merged
  into it whatever frame it came from; a ``return``/``exception`` on another line than
  the previous state appends a state with empty locals.
* ``exact`` keeps one step per executed statement per frame: recursion and one-line loops
  stay separate steps, continuation lines of a multi-line statement are folded into the
  statement, comprehension/lambda frames are inlined into the frame that runs them, and
  each frame's locals at its return are kept, so "the state after line N" never reads
  another frame.

Values are encoded to envelopes incrementally: a variable whose object and shallow
structure (the identity of everything reachable through builtin containers and plain
objects' ``__dict__``) did not change since the frame's last step reuses its envelope, so
a loop over a large list does not re-encode the list on every line.  Envelopes and locals
snapshots are interned in tables; steps refer to them by index.

The per-line cost is kept down by looking only at what changed: each frame remembers the
previous line's variable names, objects and value indices by position, so a line whose
locals are the same objects costs one scan and reuses the previous snapshot, and a changed
atom updates a copy of it.  Steps are stored flat and the GC is paced while recording (the
recorder's own per-line containers would otherwise set off its full passes).  What is
recorded is the same as encoding every local afresh at every line
(``tests/trace/test_recorder_snapshots.py``).

Keep this module lean: it is preloaded into every fork server.
"""

from __future__ import annotations

import gc as _gc
import json
import sys
import types
from itertools import chain as _itertools_chain
from itertools import compress as _compress
from operator import is_not as _is_not
from typing import Any

from execlens.values._envelope import Caps, encode

__all__ = ["CAPTURE_COVERAGE", "CAPTURE_FULL", "CAPTURE_LINES", "Limits", "Recorder",
           "statement_line_map"]

CAPTURE_COVERAGE = "coverage"  # the set of executed lines only
CAPTURE_LINES = "lines"  # the step sequence, without locals
CAPTURE_FULL = "full"  # steps with locals, returns, exceptions

PROGRAM_FILENAME = "<program>"

# Bound at import: the traced program may replace builtins.
_type = type
_id = id
_len = len
_isinstance = isinstance
_frozenset = frozenset
_map = map
_all = all
_any = any
_object_getattribute = object.__getattribute__
_iter = iter
_list = list
_range = range
_zip = zip
_sum = sum
_chain = _itertools_chain.from_iterable

_ATOMS = frozenset({int, float, str, bool, type(None), bytes, complex, range})
_PLAIN_CONTAINERS = frozenset({list, tuple, dict, set, frozenset})
_ATOMS_OR_TUPLE = _ATOMS | {tuple}
_IS_TUPLE = frozenset({tuple}).__contains__
_INLINE_CODE_NAMES = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>", "<lambda>"})
_YIELD_VALUE = __import__("opcode").opmap["YIELD_VALUE"]
_RESUME = __import__("opcode").opmap["RESUME"]
_END = object()  # closes a container in a structure fingerprint
_VOLATILE = object()  # a fingerprint that never matches (value must be re-encoded)
_RECHECK = object()  # stands for a mutable value in a frame's previous objects
_POSITIONS = range(1 << 62)  # positions in a locals dict, for itertools.compress
_SMALL = 48  # below this length, comparing items with map(is_) beats the pointer compare
_GC_PACE = 10  # the GC's first threshold is this many times higher while recording
_FINGERPRINT_BUDGET = 20_000
_identical: Any = None  # set below, once _make_identical is defined
_list_view: Any = None
_string_at: Any = None
_POINTER_SIZE = 0
_ENCODE_CAPS = Caps(max_items=1_000, max_str=10_000, max_nodes=20_000)
# What json.dumps(envelope, ensure_ascii=False, separators=(",", ":"), default=str) makes,
# without building an encoder per call: an envelope's size for the bytes cap.
_SIZE_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)

_SKIP_BASE = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
              types.MethodType, types.GeneratorType, types.CoroutineType,
              types.AsyncGeneratorType)


class Limits:
    """Caps on what one trace may record; past any of them the trace is truncated."""

    __slots__ = ("max_bytes", "max_states", "max_steps")

    def __init__(self, max_steps: int = 200_000, max_states: int = 50_000,
                 max_bytes: int = 32 * 1024 * 1024) -> None:
        self.max_steps = max_steps
        self.max_states = max_states
        self.max_bytes = max_bytes


class _PlainClassCache(dict):  # type -> bool
    """Classes whose instances keep all their data in a plain ``__dict__``."""

    def __missing__(self, cls: type) -> bool:
        plain = (cls is not type and not issubclass(cls, _SKIP_BASE)
                 and not issubclass(cls, (list, tuple, dict, set, frozenset))
                 and not hasattr(cls, "__slots__")
                 and cls.__module__ not in ("numpy", "collections", "builtins")
                 and _any(_type(klass.__dict__.get("__dict__")).__name__ == "getset_descriptor"
                          for klass in cls.__mro__))
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
            hasattr(cls, "__next__") and hasattr(cls, "__iter__"))
        self[cls] = skip
        return skip


def _fingerprint(value: Any) -> Any:
    """A flat list of every object reachable through plain data, with container ends.

    Two fingerprints match (element-wise identity) only if nothing reachable changed:
    holding the objects keeps their ids from being reused.  ``_VOLATILE`` when the
    value holds something whose changes cannot be seen this way (numpy arrays, deques,
    container subclasses...).

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
            if _type(attrs) is not dict or hasattr(cls, "__slots__") or (
                    cls.__module__ in ("numpy", "collections")):
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
            return string_at(from_address(_id(lst) + offset).value, size * pointer_size)

        def identical(old: list[Any], new: list[Any]) -> bool:
            if _type(old) is not list or _type(new) is not list:
                return _identical_slow(old, new)
            return items(old) == items(new)

        def view(lst: list[Any]) -> Any:
            return from_address(_id(lst) + offset)

        probe_a, probe_b = [1.5, "x", None], [1.5, "x", None]
        expected = b"".join(_id(v).to_bytes(pointer_size, sys.byteorder) for v in probe_a)
        if items(probe_a) != expected or identical(probe_a, probe_b) != _identical_slow(
                probe_a, probe_b) or not identical(probe_a, list(probe_a)) or string_at(
                view(probe_a).value, 3 * pointer_size) != expected:
            return _identical_slow, None, None, 0
        return identical, view, string_at, pointer_size
    except Exception:  # noqa: BLE001 - any surprise: the portable version
        return _identical_slow, None, None, 0


# The C version of ``a is b``: called per value per line, a Python function would cost
# a frame each time.
from operator import is_ as _is  # noqa: E402


_IMMUTABLE = ("I",)  # nothing reachable can change while the object stays the same
_ALWAYS_ENCODE = ("V",)  # a value whose check never passes (see Recorder._renumpy)
_FLAT_MAX = 1_000  # flat containers up to the encoder's item cap take the fast paths


def _atom_envelope(value: Any, cls: type) -> dict[str, Any]:
    """The envelope of an atom, without setting up a full encoding pass."""
    if cls is int:
        if -(1 << 62) < value < (1 << 62):
            return {"__type__": "int", "__value__": value}
    elif cls is str:
        if _len(value) <= _ENCODE_CAPS.max_str:
            return {"__type__": "str", "__value__": value}
    elif cls is bool:
        return {"__type__": "bool", "__value__": value}
    elif cls is float:
        if value - value == 0.0:  # finite (inf - inf and nan - nan are nan)
            return {"__type__": "float", "__value__": value}
    elif value is None:
        return {"__type__": "NoneType", "__value__": None}
    return encode(value, _ENCODE_CAPS)


def _envelopes(values: list[Any]) -> list[dict[str, Any]]:
    """The value table with raw atoms encoded (``_atom_envelope``, common cases inline)."""
    max_str = _ENCODE_CAPS.max_str
    return [value if (cls := _type(value)) is dict
            else {"__type__": "float", "__value__": value}
            if cls is float and value - value == 0.0
            else {"__type__": "int", "__value__": value}
            if cls is int and -(1 << 62) < value < (1 << 62)
            else {"__type__": "str", "__value__": value}
            if cls is str and _len(value) <= max_str
            else _atom_envelope(value, cls)
            for value in values]


def _atom_size(value: Any, cls: type) -> int:
    """Roughly the JSON size of an atom's envelope (for the bytes cap)."""
    return 32 + (_len(value) if cls is str or cls is bytes else 12)


def _flat_size(items: list[Any]) -> int:
    """``16 + sum(_atom_size(x) ...)``, counted in C: 44 bytes an item, 12 fewer for a
    str or bytes item plus its length."""
    kinds = [*_map(_type, items)]
    texts = kinds.count(str) + kinds.count(bytes)
    size = 16 + 44 * _len(kinds)
    if texts:
        size += _sum(_map(_len, _compress(items, _map(_TEXT_TYPES.__contains__, kinds))))
        size -= 12 * texts
    return size


_TEXT_TYPES = frozenset({str, bytes})


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
        return attrs is check[1] and _len(attrs) == _len(keys) and (
            not keys or (_same_items(keys, attrs) and _same_items(check[3], attrs.values())))
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
        return (_len(check[1]) == _len(value) and _all(_map(_is, check[1], value))
                and _all(_map(_is, check[2], value.values())))
    if tag == "N":
        return (value.shape == check[1] and value.dtype.str == check[2]
                and value.tobytes() == check[3])
    return _same(check[1], _fingerprint(value))


def statement_line_map(source: str) -> dict[int, int]:
    """Map each continuation line of a multi-line statement to its first line (1-indexed).

    Used by ``exact`` mode so that a statement spanning lines is one step.  Lines that
    start a statement of their own (a lambda or comprehension body on its own line is not
    one) map to nothing.  Computed outside the tracer (it imports ``ast``).
    """
    import ast

    tree = ast.parse(source)
    mapping: dict[int, int] = {}
    starts: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            starts.add(node.lineno)
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            end = node.body[0].lineno - 1 if node.body else node.lineno
            span_end = max([node.lineno] + [end])
            for line in range(node.lineno + 1, span_end + 1):
                if line not in starts:
                    mapping.setdefault(line, node.lineno)
            continue
        header_end = _header_end(node)
        for line in range(node.lineno + 1, header_end + 1):
            if line not in starts:
                mapping.setdefault(line, node.lineno)
    return mapping


def _header_end(node: Any) -> int:
    """The last line of a statement's own text (for a compound one, of its header)."""
    import ast

    if isinstance(node, (ast.If, ast.While)):
        return node.test.end_lineno or node.lineno
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return max(node.iter.end_lineno or node.lineno, node.target.end_lineno or node.lineno)
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return max((item.context_expr.end_lineno or node.lineno) for item in node.items)
    if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
        return node.lineno
    if type(node).__name__ == "Match":
        return node.subject.end_lineno or node.lineno
    return node.end_lineno or node.lineno


class _Frame:
    """What the recorder keeps about one program frame."""

    __slots__ = ("cache", "depth", "exception", "final", "ident", "inline", "last_raw",
                 "local", "name", "parent", "release", "result", "snap", "step_line")

    def __init__(self, ident: int, name: str, depth: int, parent: int, inline: bool) -> None:
        self.ident = ident
        self.name = name
        self.depth = depth
        self.parent = parent
        self.inline = inline
        self.cache: dict[str, tuple[Any, Any, int]] = {}
        self.snap: Any = None
        self.release: Any = None  # drops what ``snap`` holds once the frame has ended
        self.step_line = -1
        self.last_raw = -1
        self.result = -1
        self.exception = -1
        self.final = -1
        self.local: Any = None


class Recorder:
    """Records one run of program code.  ``start()`` … run … ``stop()``; ``result()``.

    ``mode`` is ``"exact"`` or ``"reval"``; ``capture`` is ``"full"``, ``"lines"`` or
    ``"coverage"``.  ``line_map`` (exact mode) maps continuation lines to statement
    lines (1-indexed, see :func:`statement_line_map`).  ``backend`` is ``"auto"``
    (``sys.monitoring`` where available, else ``sys.settrace``), ``"settrace"`` or
    ``"monitoring"``.
    """

    def __init__(self, mode: str = "exact", capture: str = CAPTURE_FULL,
                 limits: Limits | None = None, line_map: dict[int, int] | None = None,
                 filename: str = PROGRAM_FILENAME, backend: str = "auto") -> None:
        if mode not in ("exact", "reval"):
            raise ValueError(f"unknown trace mode {mode!r} (exact or reval)")
        if capture not in (CAPTURE_FULL, CAPTURE_LINES, CAPTURE_COVERAGE):
            raise ValueError(f"unknown capture {capture!r}")
        if backend == "auto":
            backend = "monitoring" if hasattr(sys, "monitoring") else "settrace"
        if backend == "monitoring" and not hasattr(sys, "monitoring"):
            raise ValueError("sys.monitoring needs Python 3.12 or newer")
        self.mode = mode
        self.capture = capture
        self.limits = limits or Limits()
        self.filename = filename
        self.backend = backend
        self.line_map = line_map or {}
        self.values: list[Any] = []  # envelopes, or atoms still to encode
        self.snapshots: list[dict[str, int]] = []
        # Steps, flat: line (0-indexed), frame id, snapshot index, line, ...  A list per
        # step would be a long-lived container per line: the cyclic GC's full passes
        # over them cost more than the recording itself.
        self._steps: list[int] = []
        self.marks: list[list[Any]] = []  # [step index, "return"|"exception", value index]
        self.frames: list[_Frame] = []
        self.coverage: set[int] = set()
        self.truncated: str | None = None
        self.value_bytes = 0
        self._live: dict[Any, _Frame] = {}
        self._skip = _SkipCache()
        self._stopped = False
        self._active = False
        # id -> value index of each atom stored raw in ``values`` (which keeps it alive,
        # so the id stays its own); ints only, so the GC never looks at it.
        self._atom_index: dict[int, int] = {}
        self._monitoring_tool: int | None = None
        self._make_snap: Any = None  # set by start(): see _snapshot_factory
        self._gc_saved: tuple[tuple[int, ...], tuple[int, ...]] | None = None  # _pace_gc
        # [True] once the states or bytes cap is reached (both only grow): one test per
        # line instead of two, and the caps are only looked at again then.
        self._capped = [False]
        # id -> (object, state, envelope, size) of numpy scalars and matrices: _renumpy
        self._numpy_envelopes: dict[int, tuple[Any, Any, Any, int]] = {}
        self._make_local: Any = None  # set by start(): see _local_factory

    @property
    def steps(self) -> list[list[int]]:
        """The steps so far: ``[line (0-indexed), frame id, snapshot index]`` each."""
        triples = _iter(self._steps)
        return _list(_map(_list, _zip(triples, triples, triples)))

    # ------------------------------------------------------------------ control
    def start(self) -> None:
        """Begin recording (the calling frame itself is not recorded)."""
        self._active = True
        if self._make_local is None:
            if self.capture == CAPTURE_FULL:
                self._make_snap = self._snapshot_factory()
            self._make_local = self._local_factory()
        if self.capture == CAPTURE_FULL:
            self._pace_gc()
        if self.backend == "monitoring":
            self._start_monitoring()
        else:
            sys.settrace(self._call_event)

    def stop(self) -> None:
        """Stop recording; safe to call twice."""
        if not self._active:
            return
        self._active = False
        if self.backend == "monitoring":
            self._stop_monitoring()
        else:
            sys.settrace(None)
        self._unpace_gc()

    def _pace_gc(self) -> None:
        """Raise the youngest GC generation's threshold while recording.

        The recorder keeps about one container per traced line (a snapshot, an
        envelope), many times what most programs allocate per line, and the cyclic GC
        counts them all: left alone it would run its collections (full ones walk every
        live object) ten times as often as for the untraced program.  A threshold ten
        times higher keeps it near the program's own pace; the old one is put back by
        ``stop()`` unless the program set its own meanwhile.
        """
        threshold = _gc.get_threshold()
        if threshold[0] > 0 and self._gc_saved is None:
            paced = (threshold[0] * _GC_PACE, *threshold[1:])
            _gc.set_threshold(*paced)
            self._gc_saved = (threshold, paced)

    def _unpace_gc(self) -> None:
        if self._gc_saved is not None:
            saved, paced = self._gc_saved
            self._gc_saved = None
            if _gc.get_threshold() == paced:
                _gc.set_threshold(*saved)

    def _truncate(self, reason: str) -> None:
        if self.truncated is None:
            self.truncated = reason
        if reason == "steps":
            self._stopped = True
            if self.backend == "settrace":
                sys.settrace(None)

    # --------------------------------------------------------------- encoding
    def _intern(self, value: Any) -> int:
        """Encode ``value`` into the value table (atoms are shared by identity)."""
        cls = _type(value)
        if cls in _ATOMS:
            index = self._atom_index.get(_id(value))
            if index is not None:
                return index
            index = self._store(value, _atom_size(value, cls))  # encoded in result()
            if index >= 0:
                self._atom_index[_id(value)] = index
            return index
        try:
            envelope = encode(value, _ENCODE_CAPS)
        except Exception as exc:  # noqa: BLE001 - a hostile value must not stop the trace
            envelope = {"__type__": cls.__name__, "__truncated__": True,
                        "__reason__": f"unencodable: {_type(exc).__name__}"}
        return self._store(envelope, _len(_SIZE_ENCODER.encode(envelope)))

    def _store(self, envelope: Any, size: int) -> int:
        if self.value_bytes > self.limits.max_bytes:
            self._truncate("bytes")
            return -1
        self.value_bytes += size
        if self.value_bytes > self.limits.max_bytes:
            self._capped[0] = True
        self.values.append(envelope)
        return _len(self.values) - 1

    def _encode_var(self, value: Any, cls: type, entry: tuple[Any, ...] | None
                    ) -> tuple[int, Any]:
        """Encode a changed variable; returns (value index, how to check it next time)."""
        if cls in _ATOMS:
            return self._intern(value), _IMMUTABLE
        if cls is list or cls is tuple:
            if cls is list and entry is not None and entry[0] is value and entry[1][0] == "L":
                done = self._reencode_list(value, entry)
                if done is not None:
                    return done
            if _len(value) <= _FLAT_MAX and _ATOMS.issuperset(_map(_type, value)):
                if cls is tuple:
                    return self._intern(value), _IMMUTABLE
                copy = value.copy()
                envelope = {"__type__": "list", "__value__": _envelopes(copy)}
                nbytes = _flat_size(copy)
                return self._store(envelope, nbytes), self._list_check(value, copy, nbytes)
        elif cls is dict and _len(value) <= _FLAT_MAX:
            keys = list(value)
            values = list(value.values())
            if _ATOMS.issuperset(_map(_type, keys)) and _ATOMS.issuperset(_map(_type, values)):
                return self._intern(value), ("D", keys, values)
        elif _PLAIN_CLASS[cls]:
            attrs = _object_getattribute(value, "__dict__")
            keys = list(attrs)
            values = list(attrs.values())
            if _len(keys) <= _FLAT_MAX and _ATOMS.issuperset(_map(_type, values)):
                return self._intern(value), ("O", attrs, keys, values)
        elif (cls is set or cls is frozenset) and _len(value) <= _FLAT_MAX:
            members = list(value)
            if _ATOMS.issuperset(_map(_type, members)):
                return self._intern(value), (_IMMUTABLE if cls is frozenset else ("S", members))
        elif cls.__name__ == "ndarray" and cls.__module__ == "numpy":
            if value.dtype.kind != "O" and value.size <= _FLAT_MAX:
                return self._intern(value), ("N", value.shape, value.dtype.str, value.tobytes())
        kind = _NUMPY_KIND[cls]
        if kind is not None:
            return self._renumpy(value, kind), _ALWAYS_ENCODE
        return self._intern(value), ("F", _fingerprint(value))

    def _reencode_list(self, value: list[Any], entry: tuple[Any, ...]
                       ) -> tuple[int, Any] | None:
        """A flat list that changed since its last envelope (``entry``), when that can be
        derived from the last one: items appended, or items replaced by other atoms.

        The envelope and size are what encoding it afresh gives, except that an append
        adds the tail's ``_flat_size`` (16 bytes more than a fresh count, as it always
        has).  None when neither case applies.
        """
        old_check = entry[1]
        old = old_check[1]
        size = _len(old)
        length = _len(value)
        if length > _FLAT_MAX:
            return None
        if length > size:
            if not (_string_at(old_check[3].value, size * _POINTER_SIZE) == old_check[4]
                    if _len(old_check) > 3 else _all(_map(_is, old, value))):
                return None
            tail = value[size:]
            if not _ATOMS.issuperset(_map(_type, tail)):
                return None
            # Appended to: extend the previous envelope instead of redoing it.
            copy = value.copy()
            head = self.values[entry[2]]["__value__"]
            envelope = {"__type__": "list", "__value__": head + _envelopes(tail)}
            nbytes = old_check[2] + _flat_size(tail)
        elif length == size:
            changed = [*_compress(_POSITIONS, _map(_is_not, value, old))]
            if not _ATOMS.issuperset(_map(_type, _map(value.__getitem__, changed))):
                return None
            # Items replaced: patch a copy of the previous envelope's items.
            copy = value.copy()
            items = self.values[entry[2]]["__value__"].copy()
            for i in changed:
                item = copy[i]
                items[i] = _atom_envelope(item, _type(item))
            envelope = {"__type__": "list", "__value__": items}
            nbytes = _flat_size(copy)
        else:
            return None
        return self._store(envelope, nbytes), self._list_check(value, copy, nbytes)

    @staticmethod
    def _list_check(value: list[Any], copy: list[Any], nbytes: int) -> tuple[Any, ...]:
        """The check of a flat list: its items, envelope size, and for a long list a view
        of its pointer array with the pointers encoded (compared without a Python loop)."""
        size = _len(copy)
        if size < _SMALL or _list_view is None:
            return ("L", copy, nbytes)
        view = _list_view(value)
        return ("L", copy, nbytes, view, _string_at(view.value, size * _POINTER_SIZE))

    def _renumpy(self, value: Any, kind: str) -> int:
        """``_intern(value)`` for a numpy scalar or matrix, whose check never passes (its
        fingerprint is ``_VOLATILE``): it is stored again at every step, as a new value.
        When nothing it is made of changed (a scalar is immutable; a matrix is its class,
        shape, dtype and bytes), the previous envelope and size are stored again instead
        of encoding and measuring it again: the same record, without the work.
        """
        key = _id(value)
        known = self._numpy_envelopes.get(key)
        if kind == "scalar":
            state: Any = None
        elif value.dtype.kind in "biufc" and value.size <= _FLAT_MAX:
            state = (value.shape, value.dtype.str, value.tobytes())
        else:
            return self._intern(value)
        if known is not None and known[0] is value and known[1] == state:
            return self._store(known[2], known[3])
        before = self.value_bytes
        index = self._intern(value)
        if index >= 0:
            self._numpy_envelopes[key] = (value, state, self.values[index],
                                          self.value_bytes - before)
        return index

    def _snapshot(self, rec: _Frame, f_locals: dict[str, Any]) -> int:
        """Record ``rec``'s locals; the snapshot's index (-1 once a cap is reached)."""
        return rec.snap(f_locals)

    def _snapshot_factory(self) -> Any:
        """``make(rec)``: the function that records one frame's locals,
        ``snap(f_locals) -> index``.

        It keeps the previous call's names and objects by position.  When the names are
        the same, only positions whose object changed, or whose object is mutable (kept
        as ``_RECHECK`` so it never compares identical), are looked at: the cost of a line
        is a few C-level list operations plus the work for what changed.  A variable is
        then handled as before: an atom by identity (the atom index), anything else
        through the frame's cache (same object and unchanged contents: same envelope) or
        encoded anew.  Same names and same value indices means the previous snapshot.
        """
        # Bound once per recorder: the per-frame closures share these cells (a cell per
        # name per frame would be thousands of long-lived objects for the GC to walk).
        recorder = self
        skip = self._skip
        atom_index = self._atom_index
        values = self.values
        store_atom = values.append
        snapshots = self.snapshots
        add_snapshot = snapshots.append
        max_states = self.limits.max_states
        max_bytes = self.limits.max_bytes
        encode_var = self._encode_var
        atoms = _ATOMS
        immutable = _IMMUTABLE
        recheck = _RECHECK
        unchanged = _unchanged
        capped = self._capped
        capped[0] = capped[0] or _len(snapshots) >= max_states or self.value_bytes > max_bytes

        def make(rec: _Frame) -> Any:
            cache = rec.cache
            names: list[Any] | None = None  # the variable names at the last call, in order
            seen: list[Any] = []  # their objects then (``_RECHECK`` for mutable ones)
            indices: list[int] = []  # their value indices, -1 for those left out
            last: dict[str, int] | None = None  # the snapshot they made
            last_index = -1

            def snap(f_locals: dict[str, Any]) -> int:
                nonlocal names, seen, indices, last, last_index
                if capped[0]:
                    if _len(snapshots) >= max_states:
                        recorder._truncate("states")
                        return -1
                    if recorder.value_bytes > max_bytes:
                        recorder._truncate("bytes")
                        return -1
                keys = [*f_locals]
                if keys == names:
                    regroup = False
                else:  # new names, or new order: every position is looked at
                    names = keys
                    seen = [recheck] * _len(keys)
                    indices = [-1] * _len(keys)
                    regroup = True
                snapshot = None
                # A plain loop: for a handful of locals it costs less than building lists
                # and comparing them in C, and a line that changed nothing allocates none.
                i = -1
                for value in f_locals.values():
                    i += 1
                    if value is seen[i]:
                        continue
                    cls = _type(value)
                    if cls in atoms:
                        # Stored raw (encoded in ``result()``), shared by identity.
                        key = _id(value)
                        index = atom_index.get(key)
                        if index is None:
                            index = _len(values)
                            store_atom(value)
                            atom_index[key] = index
                            recorder.value_bytes += 40 + (_len(value) if cls is str else 0)
                            if recorder.value_bytes > max_bytes:
                                capped[0] = True
                        seen[i] = value
                        # Another object than before: another index (an atom's index is
                        # its own; any other value's is fresh), so the snapshot changes.
                        old = indices[i]
                        indices[i] = index
                        if regroup or old < 0:
                            regroup = True
                        else:
                            if snapshot is None:
                                snapshot = last.copy()
                            snapshot[keys[i]] = index
                        continue
                    else:
                        name = keys[i]
                        entry = cache.get(name)
                        if entry is not None and entry[0] is value:
                            check = entry[1]
                            tag = check[0]
                            # The two commonest checks inline: a plain object (``self``)
                            # and a short flat list; the rest in ``_unchanged``.
                            if tag == "O":
                                attrs = _object_getattribute(value, "__dict__")
                                held = check[2]
                                same = attrs is check[1] and _len(attrs) == _len(held) and (
                                    not held or (_all(_map(_is, held, attrs)) and _all(
                                        _map(_is, check[3], attrs.values()))))
                            elif tag == "L" and _len(check) == 3:
                                held = check[1]
                                same = _len(held) == _len(value) and _all(
                                    _map(_is, held, value))
                            else:
                                same = check is immutable or unchanged(value, check)
                        else:
                            same = False
                        if same:
                            index = entry[2]
                        elif skip[cls]:
                            index = -1
                        else:
                            index, check = encode_var(value, cls, entry)
                            if index < 0:
                                return -1
                            entry = (value, check, index)
                            cache[name] = entry
                        seen[i] = recheck if index >= 0 and entry[1] is not immutable else value
                    old = indices[i]
                    if index != old:
                        indices[i] = index
                        if regroup or (index < 0) != (old < 0):
                            regroup = True  # a variable joins or leaves: rebuilt below
                        else:
                            if snapshot is None:
                                snapshot = last.copy()
                            snapshot[keys[i]] = index
                if regroup:
                    snapshot = {key: index for key, index in _zip(keys, indices) if index >= 0}
                    if snapshot == last:
                        return last_index
                elif snapshot is None:
                    return last_index
                last = snapshot
                last_index = _len(snapshots)
                add_snapshot(snapshot)
                if last_index + 1 >= max_states:
                    capped[0] = True
                return last_index

            def release() -> None:
                # The frame has ended: hold none of its objects any longer than it did
                # (a generator kept alive would run its ``finally`` late, or never).
                nonlocal names, seen, indices, last
                names, seen, indices, last = None, [], [], None
                cache.clear()

            rec.release = release
            return snap

        return make

    # ------------------------------------------------------------ frame records
    def _enter(self, frame: Any) -> _Frame:
        back = frame.f_back
        parent = None
        live = self._live
        while back is not None:
            parent = live.get(back)
            if parent is not None:
                break
            back = back.f_back
        code = frame.f_code
        rec = _Frame(_len(self.frames), code.co_name,
                     0 if parent is None else parent.depth + 1,
                     -1 if parent is None else parent.ident,
                     code.co_name in _INLINE_CODE_NAMES)
        self.frames.append(rec)
        live[frame] = rec
        if self._make_snap is not None:
            rec.snap = self._make_snap(rec)
        rec.local = self._make_local(rec)
        return rec

    def _forget(self, frame: Any) -> None:
        """A program frame has ended: stop tracking it and release what it holds."""
        rec = self._live.pop(frame, None)
        if rec is not None and rec.release is not None:
            rec.release()

    def _is_yield(self, frame: Any) -> bool:
        # settrace's "return" event serves both returns and yields.  On a yield,
        # f_lasti is the YIELD_VALUE itself up to 3.12, and the RESUME right after it
        # from 3.13 on.
        try:
            code, last = frame.f_code.co_code, frame.f_lasti
            op = code[last]
            return op == _YIELD_VALUE or (op == _RESUME and last >= 2
                                          and code[last - 2] == _YIELD_VALUE)
        except (IndexError, AttributeError):
            return False

    # ---------------------------------------------------------- settrace events
    def _call_event(self, frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename != self.filename or self._stopped:
            return None
        if self.capture == CAPTURE_COVERAGE:
            return self._coverage_event
        rec = self._live.get(frame)
        if rec is None:
            rec = self._enter(frame)
        return rec.local

    def _coverage_event(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            self.coverage.add(frame.f_lineno - 1)
        return self._coverage_event

    def _local_factory(self) -> Any:
        """``make(rec)``: the per-frame trace function (a closure: the hot path avoids
        attribute lookups; what all frames share is bound once, in cells they share)."""
        steps = self._steps
        add_step = steps.extend
        coverage_add = self.coverage.add
        max_flat = 3 * self.limits.max_steps
        recorder = self
        if self.mode == "reval":
            def make_reval(rec: _Frame) -> Any:
                snap = rec.snap
                ident = rec.ident

                def local(frame: Any, event: str, arg: Any) -> Any:
                    line = frame.f_lineno - 1
                    if event == "line":
                        coverage_add(line)
                        index = snap(frame.f_locals) if snap is not None else -1
                        if steps and steps[-3] == line:
                            # REval's merge: same line as the previous state, any frame.
                            steps[-2] = ident
                            steps[-1] = index
                        elif _len(steps) >= max_flat:
                            recorder._truncate("steps")
                            return None
                        else:
                            add_step((line, ident, index))
                        return local
                    if recorder._stopped:
                        return None
                    if event == "return":
                        recorder._reval_mark(frame, rec, line, "return", arg,
                                             final=not recorder._is_yield(frame))
                    elif event == "exception":
                        recorder._reval_mark(frame, rec, line, "exception", arg[0],
                                             final=False)
                    return local

                return local

            return make_reval

        line_of = self.line_map.get
        coverage_event = self._coverage_event

        def make_exact(rec: _Frame) -> Any:
            if rec.inline:
                # Comprehensions and lambdas run as part of their caller's step.
                return coverage_event
            snap = rec.snap
            ident = rec.ident

            def local(frame: Any, event: str, arg: Any) -> Any:
                if event == "line":
                    raw = frame.f_lineno
                    line = line_of(raw, raw) - 1
                    coverage_add(raw - 1)
                    if line == rec.step_line and (raw != line + 1 or rec.last_raw != raw):
                        # On a continuation line of the statement being executed, or back
                        # on its first line from one: the same step.  CPython reports the
                        # same line twice in a row only when a loop jumps back to it: a
                        # new step.
                        rec.last_raw = raw
                        return local
                    rec.last_raw = raw
                    rec.step_line = line
                    if _len(steps) >= max_flat:
                        recorder._truncate("steps")
                        return None
                    add_step((line, ident, snap(frame.f_locals) if snap is not None else -1))
                    return local
                if recorder._stopped:
                    return None
                if event == "return":
                    recorder._exact_exit(frame, rec, arg, final=not recorder._is_yield(frame))
                elif event == "exception":
                    recorder._exact_exception(rec, arg[0])
                return local

            return local

        return make_exact

    def _reval_mark(self, frame: Any, rec: _Frame, line: int, kind: str, value: Any,
                    final: bool) -> None:
        """A return/exception event in reval mode: onto the last state if it is on the
        same line, else onto a new state with empty locals (as REval's tracer does)."""
        steps = self._steps
        index = self._intern(value) if self.capture == CAPTURE_FULL else -1
        if final:
            self._forget(frame)
        if not (steps and steps[-3] == line):
            if _len(steps) >= 3 * self.limits.max_steps:
                self._truncate("steps")
                return
            steps.extend((line, rec.ident, self._empty_snapshot()))
        self.marks.append([_len(steps) // 3 - 1, kind, index])

    def _empty_snapshot(self) -> int:
        if self.capture != CAPTURE_FULL:
            return -1
        index = _len(self.snapshots)
        self.snapshots.append({})
        if index + 1 >= self.limits.max_states:
            self._capped[0] = True
        return index

    def _exact_exit(self, frame: Any, rec: _Frame, value: Any, final: bool) -> None:
        if self.capture == CAPTURE_FULL:
            rec.final = self._snapshot(rec, frame.f_locals)
            rec.result = self._intern(value)
        if final:
            self._forget(frame)
        else:
            rec.step_line = -1  # a generator resumes later: its next line is a new step

    def _exact_exception(self, rec: _Frame, exc_type: Any) -> None:
        if self.capture == CAPTURE_FULL:
            rec.exception = self._intern(exc_type)
            if self._steps:
                self.marks.append([_len(self._steps) // 3 - 1, "exception", rec.exception])

    # -------------------------------------------------------- sys.monitoring
    def _start_monitoring(self) -> None:
        mon = sys.monitoring
        events = mon.events
        tool = None
        for candidate in (mon.DEBUGGER_ID, mon.COVERAGE_ID, mon.PROFILER_ID, 3, 4):
            try:
                mon.use_tool_id(candidate, "execlens-trace")
            except ValueError:
                continue
            tool = candidate
            break
        if tool is None:
            raise RuntimeError("no free sys.monitoring tool id")
        self._monitoring_tool = tool
        self._mon_codes: set[Any] = set()
        self._mon_lines: dict[Any, dict[int, int | None]] = {}
        mon.register_callback(tool, events.PY_START, self._mon_start)
        mon.register_callback(tool, events.PY_RESUME, self._mon_start)
        mon.register_callback(tool, events.LINE, self._mon_line)
        mon.register_callback(tool, events.JUMP, self._mon_jump)
        mon.register_callback(tool, events.PY_RETURN, self._mon_return)
        mon.register_callback(tool, events.PY_YIELD, self._mon_yield)
        mon.register_callback(tool, events.RAISE, self._mon_raise)
        mon.register_callback(tool, events.PY_UNWIND, self._mon_unwind)
        global_events = events.PY_START | events.PY_RESUME
        if self.capture != CAPTURE_COVERAGE:
            global_events |= events.RAISE | events.PY_UNWIND
        mon.set_events(tool, global_events)

    def _stop_monitoring(self) -> None:
        mon = sys.monitoring
        tool = self._monitoring_tool
        if tool is None:
            return
        mon.set_events(tool, 0)
        for code in self._mon_codes:
            mon.set_local_events(tool, code, 0)
        for event in (mon.events.PY_START, mon.events.PY_RESUME, mon.events.LINE,
                      mon.events.JUMP, mon.events.PY_RETURN, mon.events.PY_YIELD, mon.events.RAISE,
                      mon.events.PY_UNWIND):
            mon.register_callback(tool, event, None)
        mon.free_tool_id(tool)
        self._monitoring_tool = None

    def _mon_start(self, code: Any, offset: int) -> Any:
        mon = sys.monitoring
        if code.co_filename != self.filename or self._stopped:
            return mon.DISABLE
        if code not in self._mon_codes:
            self._mon_codes.add(code)
            local = mon.events.LINE
            if self.capture != CAPTURE_COVERAGE:
                local |= mon.events.PY_RETURN | mon.events.PY_YIELD | mon.events.JUMP
            mon.set_local_events(self._monitoring_tool, code, local)
        if self.capture == CAPTURE_COVERAGE:
            return None
        frame = sys._getframe(1)
        if frame not in self._live:
            self._enter(frame)
        return None

    def _mon_line(self, code: Any, line: int) -> Any:
        if self._stopped:
            return sys.monitoring.DISABLE
        if self.capture == CAPTURE_COVERAGE:
            self.coverage.add(line - 1)
            return sys.monitoring.DISABLE  # each line needs reporting once
        self._mon_line_event(sys._getframe(1))
        return None

    def _mon_line_event(self, frame: Any) -> None:
        """A line event of a program frame, handed to its settrace-style handler."""
        rec = self._live.get(frame)
        if rec is None:
            rec = self._enter(frame)
        rec.local(frame, "line", None)

    def _mon_jump(self, code: Any, source: int, destination: int) -> Any:
        # sys.settrace reports a line again on every backward jump that stays on it
        # (one-line loops, inlined comprehensions); LINE events do not, since the line
        # did not change.  Replaying that rule keeps both backends' traces identical.
        if destination > source:
            return sys.monitoring.DISABLE  # forward jumps never repeat a line
        if self._stopped:
            return sys.monitoring.DISABLE
        lines = self._mon_lines.get(code)
        if lines is None:
            lines = self._mon_lines[code] = _line_at_offset(code)
        line = lines.get(destination)
        if line is None or line != lines.get(source):
            return None  # a new line: its LINE event follows
        self._mon_line_event(sys._getframe(1))
        return None

    def _mon_return(self, code: Any, offset: int, value: Any) -> Any:
        frame = sys._getframe(1)
        self._mon_exit(frame, value, final=True)
        return None

    def _mon_yield(self, code: Any, offset: int, value: Any) -> Any:
        frame = sys._getframe(1)
        self._mon_exit(frame, value, final=False)
        return None

    def _mon_exit(self, frame: Any, value: Any, final: bool) -> None:
        if self._stopped:
            return
        rec = self._live.get(frame)
        if rec is None:
            return
        if self.mode == "reval":
            self._reval_mark(frame, rec, frame.f_lineno - 1, "return", value, final)
        elif not rec.inline:
            self._exact_exit(frame, rec, value, final)
        if final:
            self._forget(frame)

    def _mon_raise(self, code: Any, offset: int, exc: BaseException) -> Any:
        if code.co_filename != self.filename or self._stopped:
            return None
        frame = sys._getframe(1)
        rec = self._live.get(frame)
        if rec is None:
            return None
        if self.mode == "reval":
            self._reval_mark(frame, rec, frame.f_lineno - 1, "exception", _type(exc), False)
        elif not rec.inline:
            self._exact_exception(rec, _type(exc))
        return None

    def _mon_unwind(self, code: Any, offset: int, exc: BaseException) -> Any:
        if code.co_filename != self.filename or self._stopped:
            return None
        frame = sys._getframe(1)
        rec = self._live.get(frame)
        if rec is None:
            return None
        # RAISE has already reported the exception in this frame (it fires in every
        # frame the exception passes through); settrace then reports a return of None.
        if self.mode == "reval":
            self._reval_mark(frame, rec, frame.f_lineno - 1, "return", None, True)
        elif not rec.inline:
            self._exact_exit(frame, rec, None, final=True)
        self._forget(frame)
        return None

    # ------------------------------------------------------------------ result
    def result(self) -> dict[str, Any]:
        """Everything recorded, as JSON-ready data (see ``execlens.trace.Trace``)."""
        self.stop()
        # Building the record allocates a list per step and a dict per value, all kept:
        # left on, the cyclic GC would walk the whole recording again and again.  None of
        # it can form a cycle, and no program code runs meanwhile.
        collecting = _gc.isenabled()
        _gc.disable()
        try:
            frames = [[f.name, f.depth, f.parent, f.result, f.exception, f.final,
                       1 if f.inline else 0] for f in self.frames]
            return {
                "version": 1,
                "mode": self.mode,
                "capture": self.capture,
                "backend": self.backend,
                "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
                "coverage": sorted(self.coverage),
                "steps": self.steps,
                "frames": frames,
                "marks": self.marks,
                "snapshots": self.snapshots,
                "values": _envelopes(self.values),
                "truncated": self.truncated,
                "events": _len(self._steps) // 3,
            }
        finally:
            if collecting:
                _gc.enable()


def _line_at_offset(code: Any) -> dict[int, int | None]:
    """Byte offset of each instruction of ``code`` -> its line (None: no line)."""
    lines: dict[int, int | None] = {}
    for start, end, line in code.co_lines():
        for offset in range(start, end, 2):
            lines[offset] = line
    return lines
