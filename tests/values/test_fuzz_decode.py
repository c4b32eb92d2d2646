"""Generated garbage against the value decoder and the comparison rules.

Envelopes arrive from sandboxed children (whose program may have written anything) and
from files people edit.  ``decode`` must return a value or raise ``EnvelopeError``;
``values_equal`` must answer True or False for any two values (``ValueError`` only for an
unknown mode), never another exception, and never hang.

Examples are derandomized (CI sees the same ones each run); ``EXECLENS_FUZZ_EXAMPLES=2000``
explores that many fresh random ones per test.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from execlens.values import EnvelopeError, decode, encode, values_equal

pytestmark = pytest.mark.timeout(120)

MODES = ("exact", "python", "tolerant")

FUZZ = settings.get_profile("execlens-fuzz")  # tests/values/conftest.py

# Every type name the decoder knows, and some it does not.
TYPE_NAMES = [
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
    "deque",
    "bytes",
    "bytearray",
    "complex",
    "datetime",
    "date",
    "time",
    "timedelta",
    "Decimal",
    "Fraction",
    "range",
    "Nil",
    "ndarray",
    "matrix",
    "int64",
    "float32",
    "bool_",
    "Point",
    "",
    "__type__",
]
KEYS = [
    "__type__",
    "__value__",
    "__kind__",
    "__base__",
    "__truncated__",
    "__reason__",
    "__length__",
    "__module__",
    "shape",
    "dtype",
    "maxlen",
]
KINDS = ["object", "opaque", "numpy", "builtin", "x"]
DTYPES = ["int64", "float64", "bool", "complex128", "<U3", "O", "V8", "zz", "datetime64[s]"]

json_atoms = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(),
    st.text(max_size=30),
    st.sampled_from(
        TYPE_NAMES
        + KINDS
        + DTYPES
        + ["nan", "inf", "-inf", "1/0", "1e999999", "2020-01-01", "sNaN", "1e-7", "\u1234"]
    ),
)


def _envelope_like(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts shaped like envelopes, each field possibly of the wrong type."""
    return st.fixed_dictionaries(
        {"__type__": st.one_of(st.sampled_from(TYPE_NAMES), inner)},
        optional={
            "__value__": inner,
            "__kind__": st.one_of(st.sampled_from(KINDS), inner),
            "__base__": st.one_of(st.sampled_from(TYPE_NAMES), inner),
            "__truncated__": st.one_of(st.booleans(), inner),
            "__module__": inner,
            "shape": st.one_of(st.lists(st.integers(-2, 4), max_size=3), inner),
            "dtype": st.one_of(st.sampled_from(DTYPES), inner),
            "maxlen": inner,
        },
    )


garbage_json = st.recursive(
    json_atoms,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=8)), inner, max_size=4),
        _envelope_like(inner),
    ),
    max_leaves=25,
)

# Host values of every kind the decoder can produce, for the comparison rules.
host_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(),
        st.text(max_size=10),
        st.binary(max_size=10),
        st.complex_numbers(),
        st.decimals(),
        st.fractions(),
        st.integers(min_value=10**300, max_value=10**400),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.one_of(st.integers(), st.text(max_size=4)), inner, max_size=3),
        st.frozensets(st.integers(), max_size=3),
        st.sets(st.text(max_size=3), max_size=3),
    ),
    max_leaves=20,
)


def _decodes_or_refuses(envelope: Any) -> Any:
    try:
        return decode(envelope)
    except EnvelopeError as error:
        assert isinstance(error, ValueError)
        assert str(error)
        return None


def _compare_everywhere(a: Any, b: Any) -> None:
    for mode in MODES:
        assert values_equal(a, b, mode) in (True, False)
        assert values_equal(b, a, mode) in (True, False)


@FUZZ
@given(garbage_json)
def test_garbage_envelopes_decode_or_are_refused(envelope: Any) -> None:
    value = _decodes_or_refuses(envelope)
    _compare_everywhere(value, value)


@FUZZ
@given(garbage_json)
def test_garbage_from_json_text_decodes_or_is_refused(envelope: Any) -> None:
    # What a reader of a JSONL file gets: the same data after a JSON round trip.
    text = json.dumps(envelope, allow_nan=True)
    _decodes_or_refuses(json.loads(text))


@FUZZ
@given(
    st.integers(min_value=1, max_value=20_000),
    st.sampled_from(["list", "plain list", "dict", "object"]),
)
def test_deep_nesting_decodes_or_is_refused(depth: int, shape: str) -> None:
    value: Any = {"__type__": "int", "__value__": 1}
    for _ in range(depth):
        if shape == "list":
            value = {"__type__": "list", "__value__": [value]}
        elif shape == "plain list":
            value = [value]
        elif shape == "dict":
            value = {
                "__type__": "dict",
                "__value__": [[{"__type__": "int", "__value__": 0}, value]],
            }
        else:
            value = {"__type__": "P", "__kind__": "object", "__value__": {"a": value}}
    decoded = _decodes_or_refuses(value)
    if depth <= 100:  # well within every limit: it must decode
        assert decoded is not None
    _compare_everywhere(decoded, decoded)


@FUZZ
@given(
    st.one_of(
        st.builds(object),
        st.sets(st.integers(), max_size=3),
        st.tuples(st.integers()),
        st.binary(max_size=8),
        st.complex_numbers(),
        st.builds(
            lambda v: {"__type__": v}, st.one_of(st.builds(object), st.tuples(st.integers()))
        ),
    )
)
def test_non_json_values_decode_or_are_refused(value: Any) -> None:
    _decodes_or_refuses(value)


@FUZZ
@given(host_values, host_values)
def test_any_two_values_compare(a: Any, b: Any) -> None:
    _compare_everywhere(a, b)


@FUZZ
@given(host_values)
def test_values_equal_themselves_exactly(value: Any) -> None:
    # NaN equals NaN under ``exact`` (values are data); Decimal NaNs are left out: a
    # Decimal NaN compares unequal to everything, itself included.
    if "NaN" in repr(value):
        return
    assert values_equal(value, value, "exact")


@FUZZ
@given(
    st.recursive(
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(),
            st.text(max_size=10),
            st.floats(allow_nan=False),
        ),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.tuples(inner)
            | st.dictionaries(st.text(max_size=4), inner, max_size=3)
        ),
        max_leaves=20,
    )
)
def test_encode_decode_round_trip(value: Any) -> None:
    decoded = decode(json.loads(json.dumps(encode(value))))
    assert values_equal(decoded, value, "exact")


@FUZZ
@given(
    st.one_of(st.none(), st.integers(), st.text(max_size=10), st.lists(st.integers(), max_size=2))
)
def test_unknown_modes_are_a_value_error(mode: Any) -> None:
    if mode in MODES:
        return
    with pytest.raises(ValueError, match="CompareMode"):
        values_equal(1, 1, mode)


@pytest.mark.parametrize(
    "envelope",
    [
        {"__type__": "complex", "__value__": 5},
        {"__type__": "dict", "__value__": [1]},
        {"__type__": "bytes", "__value__": "\u1234"},
        {"__type__": "Fraction", "__value__": "1e99999999"},
        {"__type__": "Fraction", "__value__": "1/0"},
        {"__type__": "Decimal", "__value__": "x"},
        {"__type__": "range", "__value__": 5},
        {"__type__": "x", "__kind__": "object", "__value__": [1]},
        {"__type__": [1]},
    ],
)
def test_malformed_envelopes_raise_envelope_error(envelope: dict[str, Any]) -> None:
    with pytest.raises(EnvelopeError, match="malformed"):
        decode(envelope)


def test_a_fraction_envelope_still_decodes() -> None:
    from fractions import Fraction

    assert decode({"__type__": "Fraction", "__value__": "3/7"}) == Fraction(3, 7)
    assert decode({"__type__": "Fraction", "__value__": "1.5e3"}) == Fraction(1500)


def test_too_deep_values_are_unequal_not_a_crash() -> None:
    deep: list[Any] = []
    for _ in range(5_000):
        deep = [deep]
    for mode in MODES:
        assert values_equal(deep, deep, mode) is False


def test_ints_beyond_float_range_are_not_close_to_floats() -> None:
    assert values_equal(10**400, 1.5, "tolerant") is False
    assert values_equal(1.5, 10**400, "tolerant") is False
    assert values_equal(math.inf, 10**400, "tolerant") is False


def test_signalling_decimal_nan_compares_unequal() -> None:
    from decimal import Decimal

    assert values_equal(Decimal("sNaN"), 1, "exact") is False
    assert values_equal(Decimal("sNaN"), Decimal("sNaN"), "exact") is False
