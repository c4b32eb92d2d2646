"""The fast reader of long literal answers reads exactly what ``ast`` reads, or nothing.

``parse_literal`` offers answers of 2,000 characters or more to ``values._fastliteral``
first; whatever the fast reader returns must be the value (and the types) the ``ast``
path builds, and whatever it is unsure of it must leave to ``ast``.  Checked on generated
literals (every container, trailing commas, grouping parentheses, escapes), on texts
``ast`` refuses, and on every CRUXEval output.
"""

from __future__ import annotations

import json
import marshal
import random
from pathlib import Path

import pytest

from execlens.values import AnswerParseError, literal_fingerprint, parse_call, parse_literal
from execlens.values._fastliteral import UNREAD, read_literal
from execlens.values._parse import _literal, _parse_expression


def _ast(text: str) -> object:
    return _literal(_parse_expression(text))


def _same(a: object, b: object) -> bool:
    """Equal values of equal types, containers included (marshal writes the types)."""
    return marshal.dumps(a, 0) == marshal.dumps(b, 0)


_LEAVES = [
    "1", "-2.5", "'ab'", '"c\\"d"', "True", "None", "False", "0", "1e5", "-0.0", "'x\"y'",
    "r'a\\b'", "'\\n'", "'\\x41'", "12345678901234567890", "3.0", "'é'", "''", '""',
    "'a==b'", "'(1, 2)'", "'{'", "':'", "'True'", "'\\u00e9'",
]  # fmt: skip


def _literal_text(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.2:
        return rng.choice(_LEAVES)
    items = [_literal_text(rng, depth - 1) for _ in range(rng.randint(0, 4))]
    sep = rng.choice([", ", ",", " , ", ",\n "])
    kind = rng.random()
    trailing = rng.choice(["", ","]) if items else ""
    if kind < 0.3:
        return "[" + sep.join(items) + trailing + "]"
    if kind < 0.6:
        return "(" + sep.join(items) + trailing + ")"
    keys = [rng.choice(["1", "'k'", "(1, 2)", "True", "None", "2.5", "3"]) for _ in items]
    if kind < 0.8:
        return "{" + sep.join(f"{k}: {v}" for k, v in zip(keys, items)) + trailing + "}"
    return "{" + sep.join(keys) + trailing + "}" if keys else "{}"


@pytest.mark.parametrize("seed", range(4))
def test_generated_literals_read_as_ast_reads_them(seed: int) -> None:
    rng = random.Random(seed)
    read = 0
    for _ in range(1500):
        text = _literal_text(rng, 4)
        fast = read_literal(text.strip())
        if fast is UNREAD:
            continue
        read += 1
        assert _same(fast, _ast(text)), text
    assert read > 500  # the fast reader reads most of them (it is not a no-op)


@pytest.mark.parametrize(
    "text",
    [
        "[1, 2)", "(1]", "{1)", "(1}", "[1: 2]", "(1: 2)", "{1, 2: 3}", "{1: 2: 3}", "[,]",
        "(,)", "{,}", "'a' 'b'", "[1 2]", "true", "[null]", "[NaN]", "[Infinity]", "-(1)",
        "--1", "+1", "1.", ".5", "00", "[1,,2]", "(1,),", "1, 2", "{[1]: 2}", "{[1]}",
        "[1][0]", "f(1)", "[1e]", "'a\nb'", "'a\rb'", "b'x'", "u'x'", "f'x'", "[x]",
        "[1_0]", "1j", "{**a}", "[*a]", "(1)(2)", "[1 ,]", "'unclosed", "[1, 'a]",
        "[1] # comment", "[1]\\\n", "{'a': 1,, }", "[\x03]",
    ],
)  # fmt: skip
def test_what_it_is_unsure_of_goes_to_ast(text: str) -> None:
    fast = read_literal(text)
    if fast is UNREAD:
        return
    # Read: then ast must read the same value (never a value ast refuses).
    assert _same(fast, _ast(text)), text


def test_long_answers_take_the_fast_path_and_agree(data_dir: Path) -> None:
    """Every CRUXEval output, and long literals made of them, through ``parse_literal``
    (fast path from 2,000 characters) against ``ast``."""
    outputs = [
        json.loads(line)["output"]
        for line in (data_dir / "cruxeval" / "cruxeval.jsonl").read_text().splitlines()
    ]
    readable = []
    for output in outputs:
        fast = read_literal(output.strip())
        if fast is not UNREAD:
            assert _same(fast, _ast(output)), output
            readable.append(output)
    assert len(readable) > 700
    for copies in (1, 16):  # ~12,000 and ~190,000 characters
        long_text = "[" + ", ".join(readable * copies) + "]"
        assert 2_000 <= len(long_text) <= 200_000
        assert read_literal(long_text) is not UNREAD
        assert _same(parse_literal(long_text), _ast(long_text))


def test_a_long_call_reads_its_arguments_fast_and_right() -> None:
    args = "[" + ", ".join(f"({i}, 'x{i}')" for i in range(2_000)) + "], 'tail'"
    call = parse_call(f"f({args})", name="f")
    assert call.name == "f" and _same(call.args, _ast(f"({args},)"))
    with pytest.raises(AnswerParseError):
        parse_call(f"g({args})", name="f")
    with pytest.raises(AnswerParseError):
        parse_call(f"None({args})")  # a keyword is no callee: ast names what it is


def test_fingerprints_tell_types_apart() -> None:
    assert literal_fingerprint([1, (2, 3)]) == literal_fingerprint(_ast("[1, (2, 3)]"))
    assert literal_fingerprint([1]) != literal_fingerprint([True])
    assert literal_fingerprint([1]) != literal_fingerprint([1.0])
    assert literal_fingerprint((1,)) != literal_fingerprint([1])


def _variants(rng: random.Random, text: str) -> list[str]:
    """The reference's text, re-spaced, with a leaf changed, a type changed, a bracket
    changed: answers equal and unequal to it."""
    swaps = [("1", "2"), ("True", "1"), ("'ab'", "'ac'"), ("(", "["), ("[", "("), ("3.0", "3")]
    out = [text, text.replace(", ", ","), text.replace(",", " ,", 1)]
    for old, new in swaps:
        if old in text:
            at = rng.choice([i for i in range(len(text)) if text.startswith(old, i)])
            out.append(text[:at] + new + text[at + len(old) :])
    return out


@pytest.mark.parametrize("seed", range(4))
def test_two_texts_compare_as_their_values_do(seed: int) -> None:
    """``texts_equal`` (the reward judge's shortcut for long answers) says equal or
    unequal only where the values, read by ast, are (type-strictly) equal or unequal."""
    from execlens.values import strict_equal, texts_equal

    rng = random.Random(seed)
    decided = 0
    for _ in range(600):
        reference = _literal_text(rng, 4)
        try:
            expected = _ast(reference)
        except AnswerParseError:
            continue
        for answer in _variants(rng, reference):
            same = texts_equal(answer, reference)
            if same is None:
                continue
            decided += 1
            try:
                truth = strict_equal(_ast(answer), expected)
            except AnswerParseError:
                truth = None
            assert same == truth, (answer, reference)
    assert decided > 1000
