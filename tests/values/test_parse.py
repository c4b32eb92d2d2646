"""Safe answer parsing: literals and single literal calls, with named errors."""

from __future__ import annotations

import math

import pytest

from execlens.values import AnswerParseError, ParsedCall, parse_call, parse_literal


@pytest.mark.parametrize(
    "text,expected",
    [
        ("[1, 2, 3]", [1, 2, 3]),
        ("  {'a': (1, 2)}  ", {"a": (1, 2)}),
        ("-5", -5),
        ("1+2j", 1 + 2j),
        ("set()", set()),
        ("frozenset({1, 2})", frozenset({1, 2})),
        ("b'ab'", b"ab"),
        ("'it''s'", "its"),
        ('{"a": true, "b": null}', {"a": True, "b": None}),
        ("true", True),
        ("(1,)", (1,)),
    ],
)
def test_literals(text: str, expected: object) -> None:
    assert parse_literal(text) == expected
    assert type(parse_literal(text)) is type(expected)


def test_nan_and_inf_constructors() -> None:
    assert math.isnan(parse_literal("float('nan')"))
    assert parse_literal("float('-inf')") == -math.inf
    assert math.isnan(parse_literal("NaN"))  # JSON's spelling


@pytest.mark.parametrize(
    "text,kind",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("[1, 2", "syntax"),
        ("x", "name"),
        ("os.system('rm -rf /')", "call"),
        ("a.b", "attribute"),
        ("[] or True", "boolop"),
        ("[i for i in range(3)]", "comprehension"),
        ("__import__('os')", "call"),
        ("1 + 1", "operator"),
        ("{**a}", "operator"),
        ("lambda: 1", "operator"),
        ("...", "not_literal"),
        ("{[1]: 2}", "not_literal"),
    ],
)
def test_rejections_are_named(text: str, kind: str) -> None:
    with pytest.raises(AnswerParseError) as info:
        parse_literal(text)
    assert info.value.kind == kind


def test_single_call_with_literal_arguments() -> None:
    assert parse_call("f('sea')") == ParsedCall("f", ("sea",), {})
    assert parse_call("f([1, 2], k={'a': 1})") == ParsedCall("f", ([1, 2],), {"k": {"a": 1}})
    assert parse_call("f(set(), x=-1)", name="f").args == (set(),)


@pytest.mark.parametrize(
    "text,kind",
    [
        ("f([]) or True", "multiple"),
        ("f(1) == 2", "multiple"),
        ("f(g(1))", "call"),
        ("f(x)", "name"),
        ("f(*args)", "operator"),
        ("f(**kw)", "operator"),
        ("obj.f(1)", "attribute"),
        ("[1]", "not_a_call"),
        ("g(1)", "name"),
    ],
)
def test_call_rejections(text: str, kind: str) -> None:
    with pytest.raises(AnswerParseError) as info:
        parse_call(text, name="f")
    assert info.value.kind == kind


def test_pathological_input_is_an_error_not_a_crash() -> None:
    with pytest.raises(AnswerParseError):
        parse_literal("[" * 100_000 + "]" * 100_000)
    with pytest.raises(AnswerParseError) as info:
        parse_literal("1" * 300_000)
    assert info.value.kind == "too_long"
