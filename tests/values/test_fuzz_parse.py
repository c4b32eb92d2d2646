"""Generated garbage against the answer parser: a value or ``AnswerParseError``, nothing else.

Model output is data, and data can be anything: random text, bytes read as text, brackets
nested past every parser's limit, answers of hundreds of kilobytes, or no text at all
(``None`` from a response without content, a JSON value where a string was expected).
``parse_literal`` and ``parse_call`` must return or raise ``AnswerParseError`` with one of
its documented kinds, never another exception, and never hang.

Examples are derandomized (CI sees the same ones each run); ``EXECLENS_FUZZ_EXAMPLES=2000``
explores that many fresh random ones per test.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from execlens.values import AnswerParseError, ParsedCall, parse_call, parse_literal

pytestmark = pytest.mark.timeout(120)

KINDS = {
    "not_text",
    "empty",
    "too_long",
    "syntax",
    "name",
    "attribute",
    "boolop",
    "comprehension",
    "call",
    "operator",
    "not_a_call",
    "not_literal",
    "multiple",
}

FUZZ = settings.get_profile("execlens-fuzz")  # tests/values/conftest.py

_BRACKETS = st.sampled_from(["[", "(", "{", "f(", "set(", "frozenset(", "-", "{'a': ", '{"a":'])
_CLOSERS = {
    "[": "]",
    "(": ")",
    "{": "}",
    "f(": ")",
    "set(": ")",
    "frozenset(": ")",
    "-": "",
    "{'a': ": "}",
    '{"a":': "}",
}

# Text as models and files deliver it: any unicode, bytes decoded every lenient way,
# and fragments of literal syntax glued together.
garbage_text = st.one_of(
    st.text(max_size=300),
    st.binary(max_size=300).map(lambda b: b.decode("utf-8", "replace")),
    st.binary(max_size=300).map(lambda b: b.decode("latin-1")),
    st.binary(max_size=300).map(lambda b: b.decode("utf-8", "surrogateescape")),
    st.lists(
        st.sampled_from(
            [
                "[",
                "]",
                "(",
                ")",
                "{",
                "}",
                ",",
                ":",
                "'",
                '"',
                "1",
                "-",
                "j",
                "e9",
                "nan",
                "None",
                "true",
                "null",
                "f",
                "set()",
                "*",
                "**",
                "lambda",
                "\\",
                "\n",
                " ",
                "\x00",
                "\udcff",
                "...",
            ]
        ),
        max_size=60,
    ).map("".join),
)


@st.composite
def deeply_nested(draw: st.DrawFn) -> str:
    """Brackets nested up to far past the parser's and the interpreter's limits."""
    depth = draw(st.integers(min_value=1, max_value=5_000))
    opener = draw(_BRACKETS)
    closed = draw(st.booleans())
    core = draw(st.sampled_from(["", "1", "'x'", "None", "[]"]))
    return opener * depth + core + (_CLOSERS[opener] * depth if closed else "")


huge_text = st.builds(
    lambda n, filler, quote: quote + filler * n + quote,
    st.integers(min_value=10_000, max_value=260_000),
    st.sampled_from(["a", "9", "[", "é", "1,"]),
    st.sampled_from(["", "'", '"']),
)

# Everything that is not a str, where a str is expected.
wrong_types = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.binary(max_size=20),
    st.lists(st.integers(), max_size=5),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.tuples(st.text(max_size=5)),
    st.builds(object),
    st.just(b"[1, 2]"),
    st.just(["1"]),
)

# Values with a literal form whose repr must parse back to themselves.
literal_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.text(max_size=20),
        st.binary(max_size=10),
        st.floats(allow_nan=False, allow_infinity=False),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.one_of(st.integers(), st.text(max_size=5)), inner, max_size=4),
        st.frozensets(st.integers(), max_size=4),
    ),
    max_leaves=20,
)


def _parses_or_refuses(parse: Any, text: Any, **kwargs: Any) -> Any:
    """The parser's result, or None after a documented refusal."""
    try:
        return parse(text, **kwargs)
    except AnswerParseError as error:
        assert error.kind in KINDS, error.kind
        assert str(error).startswith(f"{error.kind}: ")
        return None


@FUZZ
@given(garbage_text)
def test_garbage_text_parses_or_is_refused(text: str) -> None:
    _parses_or_refuses(parse_literal, text)
    _parses_or_refuses(parse_literal, text, allow_json=False)
    call = _parses_or_refuses(parse_call, text)
    assert call is None or isinstance(call, ParsedCall)
    wrapped = _parses_or_refuses(parse_call, f"f({text})", name="f")
    assert wrapped is None or wrapped.name == "f"


@FUZZ
@given(deeply_nested())
def test_deep_nesting_is_refused_not_crashed(text: str) -> None:
    _parses_or_refuses(parse_literal, text)
    _parses_or_refuses(parse_call, text)
    _parses_or_refuses(parse_call, f"f({text})")


@settings(FUZZ, max_examples=min(FUZZ.max_examples, 12))
@given(huge_text)
def test_huge_answers_parse_or_are_refused(text: str) -> None:
    value = _parses_or_refuses(parse_literal, text)
    if len(text) > 200_000:  # the documented cap, before any parsing
        assert value is None
        with pytest.raises(AnswerParseError) as info:
            parse_literal(text)
        assert info.value.kind == "too_long"
    _parses_or_refuses(parse_call, f"f({text})")


@FUZZ
@given(wrong_types, st.one_of(st.none(), st.text(max_size=5), st.integers()))
def test_wrong_types_are_refused_by_name(value: Any, name: Any) -> None:
    for parse, kwargs in (
        (parse_literal, {}),
        (parse_literal, {"allow_json": False}),
        (parse_call, {}),
        (parse_call, {"name": name}),
    ):
        with pytest.raises(AnswerParseError) as info:
            parse(value, **kwargs)
        assert info.value.kind == "not_text"
        assert type(value).__name__ in info.value.message


@FUZZ
@given(literal_values)
def test_reprs_of_literals_parse_back(value: Any) -> None:
    parsed = parse_literal(repr(value))
    assert parsed == value
    assert type(parsed) is type(value)
    call = parse_call(f"g({value!r}, key={value!r})", name="g")
    assert call.args == (value,) and call.kwargs == {"key": value}


@FUZZ
@given(st.floats(allow_nan=False, allow_infinity=True))
def test_floats_through_repr_and_json(number: float) -> None:
    text = repr(number) if math.isfinite(number) else f"float({str(number)!r})"
    assert parse_literal(text) == number
    assert (
        parse_literal(
            "Infinity"
            if number == math.inf
            else "-Infinity"
            if number == -math.inf
            else repr(number)
        )
        == number
    )


def test_none_answer_is_named() -> None:
    # The one wrong type a client really produces: a response without content.
    with pytest.raises(AnswerParseError) as info:
        parse_literal(None)  # type: ignore[arg-type]
    assert info.value.kind == "not_text"
    assert info.value.message == "the answer is NoneType, not text"
