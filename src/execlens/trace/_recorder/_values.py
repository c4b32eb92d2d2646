"""The value table: a traced variable's envelope index, and a frame's locals snapshot.

Values are encoded to envelopes incrementally: a variable whose fingerprint did not change
since the frame's last step reuses its envelope (``_fingerprint``), so a loop over a large
list does not re-encode the list on every line; a flat list that was appended to or had
items replaced patches its previous envelope.  Envelopes and locals snapshots are interned
in tables; steps refer to them by index.  Atoms are stored raw and encoded in
``result()``.

The per-line cost is kept down by looking only at what changed: each frame remembers the
previous line's variable names, objects and value indices by position, so a line whose
locals are the same objects costs one scan and reuses the previous snapshot, and a changed
atom updates a copy of it.  What is recorded is the same as encoding every local afresh at
every line (``tests/trace/test_recorder_snapshots.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import compress as _compress
from operator import is_not as _is_not
from typing import TYPE_CHECKING, Any

from execlens.trace._recorder._fingerprint import (
    _ATOMS,
    _NUMPY_KIND,
    _PLAIN_CLASS,
    _POINTER_SIZE,
    _SMALL,
    _all,
    _fingerprint,
    _id,
    _is,
    _len,
    _list_view,
    _map,
    _object_getattribute,
    _string_at,
    _sum,
    _type,
    _unchanged,
)
from execlens.values import Caps, encode

if TYPE_CHECKING:
    from execlens.trace._recorder._core import Limits, _Frame

_zip = zip  # bound at import: the traced program may replace builtins

_RECHECK = object()  # stands for a mutable value in a frame's previous objects
_POSITIONS = range(1 << 62)  # positions in a locals dict, for itertools.compress
_ENCODE_CAPS = Caps(max_items=1_000, max_str=10_000, max_nodes=20_000)
# What json.dumps(envelope, ensure_ascii=False, separators=(",", ":"), default=str) makes,
# without building an encoder per call: an envelope's size for the bytes cap.
_SIZE_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)
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
    return [
        value
        if (cls := _type(value)) is dict
        else {"__type__": "float", "__value__": value}
        if cls is float and value - value == 0.0
        else {"__type__": "int", "__value__": value}
        if cls is int and -(1 << 62) < value < (1 << 62)
        else {"__type__": "str", "__value__": value}
        if cls is str and _len(value) <= max_str
        else _atom_envelope(value, cls)
        for value in values
    ]


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


class _ValueTable:
    """The recorder's value and snapshot tables (``Recorder`` is built on this; its core
    supplies the attributes below and ``_truncate``)."""

    limits: Limits
    values: list[Any]
    snapshots: list[dict[str, int]]
    value_bytes: int
    _atom_index: dict[int, int]
    _truncate: Callable[[str], None]  # supplied by the core (annotation only)
    _numpy_envelopes: dict[int, tuple[Any, Any, Any, int]]
    _capped: list[bool]
    _skip: dict[type, bool]

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
            envelope = {
                "__type__": cls.__name__,
                "__truncated__": True,
                "__reason__": f"unencodable: {_type(exc).__name__}",
            }
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

    def _encode_var(self, value: Any, cls: type, entry: tuple[Any, ...] | None) -> tuple[int, Any]:
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
        elif (
            cls.__name__ == "ndarray"
            and cls.__module__ == "numpy"
            and value.dtype.kind != "O"
            and value.size <= _FLAT_MAX
        ):
            return self._intern(value), ("N", value.shape, value.dtype.str, value.tobytes())
        kind = _NUMPY_KIND[cls]
        if kind is not None:
            return self._renumpy(value, kind), _ALWAYS_ENCODE
        return self._intern(value), ("F", _fingerprint(value))

    def _reencode_list(self, value: list[Any], entry: tuple[Any, ...]) -> tuple[int, Any] | None:
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
            if not (
                _string_at(old_check[3].value, size * _POINTER_SIZE) == old_check[4]
                if _len(old_check) > 3
                else _all(_map(_is, old, value))
            ):
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
            self._numpy_envelopes[key] = (
                value,
                state,
                self.values[index],
                self.value_bytes - before,
            )
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

        Long because it binds, once per recorder, the cells its per-frame closures
        (``make``, and ``snap`` inside it) share: the tracer's hot path, called on every
        line, where a split into helpers would add a call per variable per line.
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
            """``snap`` for the frame ``rec`` (long for the reason its factory gives)."""
            cache = rec.cache
            names: list[Any] | None = None  # the variable names at the last call, in order
            seen: list[Any] = []  # their objects then (``_RECHECK`` for mutable ones)
            indices: list[int] = []  # their value indices, -1 for those left out
            last: dict[str, int] | None = None  # the snapshot they made
            last_index = -1

            def snap(f_locals: dict[str, Any]) -> int:
                """The index of the snapshot of ``f_locals`` (long: the hot path, see
                the factory)."""
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
                                snapshot = last.copy()  # type: ignore[union-attr]  # set once a snapshot exists
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
                                same = (
                                    attrs is check[1]
                                    and _len(attrs) == _len(held)
                                    and (
                                        not held
                                        or (
                                            _all(_map(_is, held, attrs))
                                            and _all(_map(_is, check[3], attrs.values()))
                                        )
                                    )
                                )
                            elif tag == "L" and _len(check) == 3:
                                held = check[1]
                                same = _len(held) == _len(value) and _all(_map(_is, held, value))
                            else:
                                same = check is immutable or unchanged(value, check)
                        else:
                            same = False
                        if same:
                            index = entry[2]  # type: ignore[index]  # same implies a cached entry
                        elif skip[cls]:
                            index = -1
                        else:
                            index, check = encode_var(value, cls, entry)
                            if index < 0:
                                return -1
                            entry = (value, check, index)
                            cache[name] = entry
                        seen[i] = recheck if index >= 0 and entry[1] is not immutable else value  # type: ignore[index]  # same implies a cached entry
                    old = indices[i]
                    if index != old:
                        indices[i] = index
                        if regroup or (index < 0) != (old < 0):
                            regroup = True  # a variable joins or leaves: rebuilt below
                        else:
                            if snapshot is None:
                                snapshot = last.copy()  # type: ignore[union-attr]  # set once a snapshot exists
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
