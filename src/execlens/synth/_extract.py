"""Extract a prediction from a model's response, as CodeI/O does, without its flaws.

The reference takes the last ```` ```json ```` fence, else the last complete top-level
``{...}`` found by brace counting, and retries after replacing ``True``/``False``/``None``
and every parenthesis *everywhere in the text* (corrupting strings that contain them),
then the last ``\\boxed{...}``.  Here: the same candidates, but brace counting skips
braces inside quoted strings, and a candidate is parsed as JSON, then as a Python
literal through :func:`execlens.values.parse_literal` (``True``, tuples and single
quotes are understood without rewriting any text).  Nothing is evaluated.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from execlens.values import AnswerParseError, parse_literal

__all__ = ["Extracted", "extract_answer", "last_json_object"]

_NO_JSON = "Fail to extract a complete and valid json from the output!"
_NOT_DICT = "The last json is not a dict!"


@dataclass(frozen=True)
class Extracted:
    """The predicted value, or why there is none (``message`` as the reference words it)."""

    ok: bool
    value: Any = None
    message: str = ""


def _top_level_objects(text: str) -> list[str]:
    """Every complete top-level ``{...}`` in ``text``; braces in quoted strings do not count."""
    found: list[str] = []
    depth, start, quote, escaped = 0, -1, "", False
    for index, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote or char == "\n":  # a newline ends a stray quote
                quote = ""
            continue
        if char in "\"'" and depth > 0:
            quote = char
        elif char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                found.append(text[start : index + 1])
    return found


def _after_last(text: str, marker: str) -> int | None:
    """Where the text after the last ``marker`` begins, or ``None`` without one."""
    start = text.rfind(marker)
    return None if start < 0 else start + len(marker)


def _json_fence(text: str) -> str | None:
    body_start = _after_last(text, "```json")
    if body_start is None:
        return None
    end = text.find("```", body_start)
    return text[body_start : end if end >= 0 else len(text)].strip()


def _parse(candidate: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(candidate)
    except (ValueError, RecursionError):
        pass
    try:
        return True, _jsonable(parse_literal(candidate))
    except (AnswerParseError, RecursionError):
        return False, None


def _jsonable(value: Any) -> Any:
    """Tuples become lists (the reference's parenthesis rewrite, done on values)."""
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def _boxed(text: str) -> str | None:
    begin = _after_last(text, "\\boxed{")
    if begin is None:
        return None
    depth = 1
    for index in range(begin, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                content = text[begin:index]
                break
    else:
        return None
    return (
        content.replace("\\left", "").replace("\\right", "").replace("\\{", "{").replace("\\}", "}")
    )


def _candidates(text: str) -> Iterator[str]:
    """The answer candidates in the reference's order: the json fence, the top-level
    ``{...}`` from the last, then the last ``\\boxed{}``'s content and its objects."""
    fence = _json_fence(text)
    if fence is not None:
        yield fence
    yield from reversed(_top_level_objects(text))
    boxed = _boxed(text)
    if boxed is not None:
        yield boxed.strip()
        yield from reversed(_top_level_objects(boxed))


def last_json_object(text: str) -> tuple[bool, Any]:
    """The last parseable answer object: json fence, else the last top-level ``{...}``
    that parses, else the content of the last ``\\boxed{}``."""
    for candidate in _candidates(text):
        ok, value = _parse(candidate)
        if ok:
            return True, value
    return False, None


def extract_answer(text: str | None, field: str) -> Extracted:
    """The ``field`` (``"output"`` or ``"input"``) of the response's last JSON object."""
    if not text:
        return Extracted(False, message=_NO_JSON)
    ok, value = last_json_object(text)
    if not ok:
        return Extracted(False, message=_NO_JSON)
    if not isinstance(value, dict):
        return Extracted(False, message=_NOT_DICT)
    if field not in value:
        return Extracted(False, message=f"No field '{field}' in the last json!")
    return Extracted(True, value=value[field])
