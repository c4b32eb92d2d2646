"""Envelopes: round trips, REval/JetBrains shapes, caps and truncation."""

from __future__ import annotations

import datetime
import decimal
import fractions
import json
import math
from collections import OrderedDict, defaultdict, namedtuple

import numpy as np
import pytest

from execlens.values import (
    NIL,
    Caps,
    ObjectRecord,
    OpaqueRecord,
    Truncated,
    decode,
    dumps,
    encode,
    values_equal,
)

ROUND_TRIP = [
    0,
    -7,
    2**100,
    True,
    False,
    1.5,
    -0.0,
    "",
    "héllo\n",
    None,
    [],
    [1, [2, [3]]],
    (),
    (1,),
    (1, "a", None),
    {1, 2, 3},
    frozenset({"a", "b"}),
    {},
    {"a": 1},
    {1: "x", (2, 3): [4]},
    {None: True, 1.5: frozenset({1})},
    b"\x00\xffabc",
    bytearray(b"xy"),
    3 + 4j,
    datetime.date(2024, 2, 29),
    datetime.datetime(2024, 1, 2, 3, 4, 5, 6),
    datetime.time(1, 2, 3),
    datetime.timedelta(days=1, seconds=3),
    decimal.Decimal("1.10"),
    fractions.Fraction(3, 7),
    range(1, 10, 2),
]


@pytest.mark.parametrize("value", ROUND_TRIP, ids=lambda v: type(v).__name__ + ":" + repr(v)[:20])
def test_round_trip_is_exact(value: object) -> None:
    envelope = encode(value)
    text = dumps(envelope)
    again = decode(json.loads(text))
    assert values_equal(again, value, "exact")
    assert type(again) is type(value)


def test_scalar_shapes_match_the_jetbrains_layout() -> None:
    assert encode(5) == {"__type__": "int", "__value__": 5}
    assert encode("s") == {"__type__": "str", "__value__": "s"}
    assert encode(None) == {"__type__": "NoneType", "__value__": None}
    assert encode(NIL) == {"__type__": "Nil"}
    assert decode({"__type__": "Nil"}) is NIL


@pytest.mark.parametrize("value,text", [(math.nan, "nan"), (math.inf, "inf"), (-math.inf, "-inf")])
def test_non_finite_floats_are_strings(value: float, text: str) -> None:
    envelope = encode(value)
    assert envelope == {"__type__": "float", "__value__": text}
    assert json.loads(dumps(envelope)) == envelope  # strict JSON, no NaN tokens
    back = decode(envelope)
    assert isinstance(back, float) and (math.isnan(back) if text == "nan" else back == value)


def test_lenient_decoding_of_plain_json_containers() -> None:
    assert decode({"__type__": "list", "__value__": [1, "a", None]}) == [1, "a", None]
    assert decode({"__type__": "dict", "__value__": {"k": [1]}}) == {"k": [1]}


def test_set_envelopes_do_not_depend_on_hash_order() -> None:
    a = encode({"pear", "apple", "fig", "kiwi"})
    b = encode({"kiwi", "fig", "apple", "pear"})
    assert dumps(a) == dumps(b)
    assert [item["__value__"] for item in a["__value__"]] == ["apple", "fig", "kiwi", "pear"]


def test_container_subclasses_keep_their_name_and_base() -> None:
    Point = namedtuple("Point", "x y")
    for value, base in (
        (OrderedDict(a=1), "dict"),
        (defaultdict(int, a=2), "dict"),
        (Point(1, 2), "tuple"),
    ):
        envelope = encode(value)
        assert envelope["__type__"] == type(value).__name__
        assert envelope["__base__"] == base
        assert decode(envelope) == value


def test_numpy_arrays_and_scalars() -> None:
    array = np.arange(6, dtype=np.int32).reshape(2, 3)
    back = decode(json.loads(dumps(encode(array))))
    assert isinstance(back, np.ndarray) and back.dtype == np.int32 and back.shape == (2, 3)
    assert values_equal(back, array, "exact")
    scalar = decode(encode(np.float64(2.5)))
    assert scalar == 2.5 and type(scalar).__name__ == "float64"
    assert encode(np.int64(3))["__type__"] == "int64"


def test_deques_and_ndarray_subclasses_keep_their_data() -> None:
    from collections import deque

    queue = deque([1, [2, 3]], maxlen=5)
    back = decode(json.loads(dumps(encode(queue))))
    assert isinstance(back, deque) and list(back) == [1, [2, 3]] and back.maxlen == 5
    assert encode(queue)["__type__"] == "deque"
    matrix = np.matrix([[1, 2], [3, 4]])
    envelope = encode(matrix)
    assert envelope["__type__"] == "matrix" and envelope["shape"] == [2, 2]
    again = decode(json.loads(dumps(envelope)))
    assert isinstance(again, np.matrix) and again.tolist() == [[1, 2], [3, 4]]


def test_custom_objects_decode_to_neutral_records() -> None:
    class Node:
        def __init__(self) -> None:
            self.value = 3
            self.children = [1, 2]

        def __eq__(self, other: object) -> bool:  # pragma: no cover - must never be called
            raise AssertionError("the host called a program's __eq__")

    record = decode(encode(Node()))
    assert isinstance(record, ObjectRecord)
    assert record.type_name == "Node" and record.attributes == {"value": 3, "children": [1, 2]}


def test_slots_objects_and_opaque_values() -> None:
    class Slotted:
        __slots__ = ("a", "b")

        def __init__(self) -> None:
            self.a = 1

    record = decode(encode(Slotted()))
    assert isinstance(record, ObjectRecord) and record.attributes == {"a": 1}
    assert isinstance(decode(encode(len)), OpaqueRecord)
    assert isinstance(decode(encode(lambda: 1)), OpaqueRecord)
    assert isinstance(decode(encode(x for x in ())), OpaqueRecord)
    assert decode(encode(json)).type_name == "module"


def test_caps_truncate_with_an_explicit_marker() -> None:
    caps = Caps(max_items=10, max_str=5, max_depth=3)
    long_list = decode(encode(list(range(100)), caps))
    assert isinstance(long_list, Truncated) and long_list.reason == "items"
    assert long_list.length == 100 and long_list.partial == list(range(10))
    text = decode(encode("abcdefgh", caps))
    assert isinstance(text, Truncated) and text.partial == "abcde" and text.length == 8
    deep = encode([[[[[1]]]]], caps)
    assert "depth" in dumps(deep)
    assert isinstance(decode(encode(10**20000)), Truncated)


def test_cycles_are_cut() -> None:
    a: list[object] = [1]
    a.append(a)
    envelope = encode(a)
    assert envelope["__value__"][1] == {
        "__type__": "list",
        "__truncated__": True,
        "__reason__": "cycle",
    }


def test_truncated_values_never_compare_equal() -> None:
    cut = decode(encode(list(range(5000))))
    assert isinstance(cut, Truncated)
    for mode in ("exact", "python", "tolerant"):
        assert not values_equal(cut, list(range(5000)), mode)
        assert not values_equal(cut, cut, mode)
