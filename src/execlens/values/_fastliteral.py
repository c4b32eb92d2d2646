"""A fast reader for long literal answers: the values ``parse_literal`` builds, read by the
C JSON parser instead of ``ast``.

``ast.parse`` builds a Python object per node: a 200,000-character answer of nested lists
and tuples takes it 0.1-0.5 s, against a reward budget of 50 ms per answer.  This reader
rewrites the literal's text into JSON with C-level string operations and lets
:func:`json.loads` build it: Python strings become JSON strings, ``True``/``False``/
``None`` become ``true``/``false``/``null``, lists stay JSON arrays (built natively, no
Python code runs per element), and the other brackets become tagged JSON objects that
one hook turns into values: ``(...)`` is ``{"T": [...]}`` (``{"T": [...], "C": 0}``
with a trailing comma: a one-element tuple rather than grouping parentheses), ``{...}``
is ``{"B": [...], "E": 0}`` with each ``:`` a ``"<key>"`` separator (a dict, else a
set).  Brackets that do not match (``[1, 2)``, ``(1}``) make invalid JSON or an object
the hook refuses, and a ``:`` outside braces leaves a separator no dict consumed.

It is a shortcut, never a second grammar: it reads the common forms only (numbers,
strings, ``True``/``False``/``None``, lists, tuples, dicts, sets, grouping parentheses,
trailing commas) and returns :data:`UNREAD` for anything else or anything unusual --
another name, a call, an operator, ``-`` on anything but a number literal, bytes,
implicit concatenation, odd spacing before a trailing comma -- and the caller parses the
text with ``ast`` as always.  Whatever it reads, it reads to the value ``ast`` would give
(tested against ``ast`` on generated literals and on every CRUXEval output).  Nothing
here evaluates anything.
"""

from __future__ import annotations

import ast
import json
import marshal
import re
import secrets
from functools import lru_cache
from typing import Any

__all__ = ["UNREAD", "read_literal", "texts_equal"]

#: Returned when the text is not one this reader reads (parse it with ``ast``).
UNREAD: Any = object()

# The separator of a dict's key and value inside its tagged array: a per-process nonce,
# so no string of an answer can be mistaken for it.
_KEY = f"\x02K{secrets.token_hex(4)}"
_KEY_JSON = json.dumps(_KEY)

_STRING = re.compile(
    r"""('[^'\\\n\r]*(?:\\.[^'\\\n\r]*)*'|"[^"\\\n\r]*(?:\\.[^"\\\n\r]*)*")""", re.DOTALL
)
_TRAILING = re.compile(r",\s*[)\]}]")
# A trailing comma right after a value (``[,]`` stays invalid, and so does ``[1 ,]``:
# left to ast) before ``)``, and before ``]`` or ``}``; the first becomes ``\x03`` until
# the brackets are rewritten.  The comma is matched first and what precedes it looked
# behind, so the search runs at C speed.
_TUPLE_COMMA = re.compile(r",(?<=[\w.\x01)\]}],)\s*\)")
_OTHER_COMMA = re.compile(r",(?<=[\w.\x01)\]}],)(?=\s*[\]}])")
# Text JSON reads but Python does not: JSON's own words (Python names) and characters
# that only a string may hold.
_NOT_PYTHON = ("true", "false", "null", "'", '"', "\\", "\x03")
# In this order: no replacement touches what an earlier one wrote.
_REPLACEMENTS = (
    ("True", "true"),
    ("False", "false"),
    ("None", "null"),
    (":", f",{_KEY_JSON},"),
    ("{", '{"B":['),
    ("}", '],"E":0}'),
    ("(", '{"T":['),
    (")", "]}"),
    ("\x03", '],"C":0}'),
)
_SEPARATOR = "\x01"  # stands for each string while the code between them is rewritten


class _Unread(Exception):
    """The text is not one this reader reads."""


def _json_string(literal: str) -> str:
    """A Python string literal (no bytes, no f-string) as a JSON string literal."""
    quote = literal[0]
    if quote in "'\"" and "\\" not in literal:
        body = literal[1:-1]
        if quote == '"':
            return literal
        return '"' + body.replace('"', '\\"') + '"'
    try:  # escapes or a prefix: read the one string with ast (short, and rare)
        value = ast.literal_eval(literal)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise _Unread from None
    if not isinstance(value, str):
        raise _Unread
    return json.dumps(value)


def _split_strings(text: str) -> tuple[list[str], list[str]]:
    """The code between the string literals of ``text``, and those literals as JSON."""
    if "\\" not in text and ('"' not in text or "'" not in text):
        # One kind of quote, no escapes (the common case): each string is what lies
        # between two quotes, and the same text between double quotes is its JSON.
        quote = "'" if '"' not in text else '"'
        parts = text.split(quote)
        bodies = parts[1::2]
        if not len(parts) % 2 or any(c in _SEPARATOR.join(bodies) for c in "\n\r"):
            raise _Unread  # a quote left open, or a line break inside a string
        return parts[0::2], ['"' + body + '"' for body in bodies]
    parts = _STRING.split(text)
    return parts[0::2], [
        s if s[0] == '"' and "\\" not in s else _json_string(s) for s in parts[1::2]
    ]


def _to_json(text: str) -> str:
    """``text`` rewritten as tagged JSON (see the module docstring)."""
    if _SEPARATOR in text or "\x00" in text:
        raise _Unread
    codes, strings = _split_strings(text)
    code = _SEPARATOR.join(codes)
    if any(word in code for word in _NOT_PYTHON):
        raise _Unread  # a name JSON would read, a quote left over: ast's business
    if _TRAILING.search(code):
        code = _TUPLE_COMMA.sub("\x03", code)
        code = _OTHER_COMMA.sub("", code)
    for old, new in _REPLACEMENTS:
        code = code.replace(old, new)
    pieces = code.split(_SEPARATOR)
    joined: list[str] = [""] * (len(pieces) + len(strings))
    joined[0::2] = pieces
    joined[1::2] = strings
    return "".join(joined)


def _refuse_constant(name: str) -> Any:
    raise _Unread  # JSON's NaN and Infinity are Python names


def _hashable(value: Any) -> Any:
    hash(value)  # a TypeError is an unhashable key or member: ast's reading names it
    return value


class _Builder:
    """The ``object_pairs_hook`` that turns tagged objects into tuples, dicts and sets,
    counting the key separators it consumes.  Called once per tuple: kept lean."""

    def __init__(self) -> None:
        self.keys = 0

    def __call__(self, pairs: list[tuple[str, Any]]) -> Any:
        tag, items = pairs[0]  # every object is one of ours: a tag, then a JSON array
        if tag == "T":
            if len(pairs) == 1:  # no trailing comma: one item is grouping parentheses
                return items[0] if len(items) == 1 else tuple(items)
            if pairs[1][0] == "C" and len(pairs) == 2:
                return tuple(items)
            raise _Unread  # ``(1}``
        if tag != "B" or len(pairs) != 2 or pairs[1][0] != "E":
            raise _Unread  # brackets that do not match: ``{1)``
        # (A ``:`` in a tuple or a list is a separator no dict consumed: refused after.)
        return self._braces(items)

    def _braces(self, items: list[Any]) -> Any:
        separators = items.count(_KEY)
        if not separators:
            return {_hashable(x) for x in items} if items else {}
        self.keys += separators
        keys, values = items[0::3], items[2::3]
        if len(items) % 3 or items[1::3].count(_KEY) != separators or separators != len(keys):
            raise _Unread
        return {_hashable(k): v for k, v in zip(keys, values)}


def read_literal(text: str) -> Any:
    """The value of the literal ``text`` (already stripped), or :data:`UNREAD` when this
    reader does not read it (see the module docstring)."""
    try:
        encoded = _to_json(text)
        build = _Builder()
        value = json.loads(
            encoded, strict=False, object_pairs_hook=build, parse_constant=_refuse_constant
        )
        if build.keys != encoded.count(_KEY_JSON):
            return UNREAD  # a ``:`` outside braces (in a list), or a key beside a key
        return value
    except (_Unread, ValueError, TypeError, RecursionError):
        return UNREAD


# ------------------------------------------------------------------ comparing two texts
# Comparing an answer with a reference needs no tuples built: two literal texts with the
# same *skeleton* (their brackets, commas and colons outside strings, in order) have the
# same containers in the same places, so their values are equal exactly when the same
# texts read with every bracket as a JSON array ("the list reading") are equal, types
# included.  Only that list reading is built -- by the JSON parser alone, no Python code
# per container.
# Every byte but the skeleton's: deleted by ``bytes.translate`` (C speed).
_NOT_SKELETON = bytes(b for b in range(128) if chr(b) not in "()[]{},:")
_EMPTY_ITEM = re.compile(r"[\[({,]\s*,")  # ``[,]``, ``(1,,)``: no item before a comma
_LIST_COMMA = re.compile(r",(?=[\]}])")
_ANY_TRAILING = re.compile(r",(?<=[\w.\x01)\]}],)(?=\s*[)\]}])")
_AS_LISTS = (
    ("True", "true"),
    ("False", "false"),
    ("None", "null"),
    ("(", "["),
    (")", "]"),
    ("{", "["),
    ("}", "]"),
    (":", ","),
)


def _list_reading(text: str) -> tuple[str, Any] | None:
    """``(skeleton, list reading)`` of a literal text, or ``None`` when this reader does
    not read it (see above)."""
    try:
        if _SEPARATOR in text or "\x00" in text:
            return None
        codes, strings = _split_strings(text)
        code = _SEPARATOR.join(codes)
        if any(word in code for word in _NOT_PYTHON):
            return None
        if not code.isascii() or _EMPTY_ITEM.search(code):
            return None
        # A trailing comma means nothing before ``]`` or ``}``: left out of the skeleton.
        bare = code.encode("ascii").translate(None, _NOT_SKELETON).decode("ascii")
        skeleton = _LIST_COMMA.sub("", bare)
        for trailing in (",)", ",]", ",}"):
            code = code.replace(trailing, trailing[1])
        if _TRAILING.search(code):  # a trailing comma with spaces before the bracket
            code = _ANY_TRAILING.sub("", code)
        for old, new in _AS_LISTS:
            code = code.replace(old, new)
        pieces = code.split(_SEPARATOR)
        joined: list[str] = [""] * (len(pieces) + len(strings))
        joined[0::2] = pieces
        joined[1::2] = strings
        value = json.loads("".join(joined), strict=False, parse_constant=_refuse_constant)
        return skeleton, value
    except (_Unread, ValueError, TypeError, RecursionError):
        return None


@lru_cache(maxsize=64)
def _reference_reading(text: str) -> tuple[str, Any, bytes] | None:
    reading = _list_reading(text.strip())
    if reading is None:
        return None
    try:
        return reading[0], reading[1], marshal.dumps(reading[1], 0)
    except (ValueError, RecursionError):
        return None


def texts_equal(answer: str, reference: str) -> bool | None:
    """Whether the literal texts ``answer`` and ``reference`` hold equal values of equal
    types (``True``/``False``), decided without building either; ``None`` when it cannot
    be decided this way (different skeletons, dicts or sets whose order may differ, a
    text this reader does not read): parse both then.

    ``reference`` must be a literal ``parse_literal`` reads (the caller has checked): an
    answer with its skeleton has its structure.
    """
    wanted = _reference_reading(reference)
    if wanted is None:
        return None
    seen = _list_reading(answer.strip())
    if seen is None or seen[0] != wanted[0]:
        return None
    try:
        if seen[1] == wanted[1]:
            return True if marshal.dumps(seen[1], 0) == wanted[2] else None
    except (ValueError, RecursionError):
        return None
    # Same skeleton, a value that differs: unequal, unless braces (a set or dict in
    # another order) are involved.
    return None if "{" in wanted[0] else False
