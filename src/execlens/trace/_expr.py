"""Evaluate a question's variable expression (``x``, ``self.items``, ``d['k']``, ``(a, b)``)
on a locals snapshot of envelopes, without running any program code.

REval's questions name a Name, Attribute, Subscript, Tuple or Constant.  Evaluation works
on envelopes directly (an attribute is read from an object envelope's attributes, a key is
looked up in a dict envelope by decoded, type-strict equality), so the result is again an
envelope.  Anything that cannot be read (undefined name, missing key, unsupported
expression) is Nil.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping
from typing import Any

from execlens.values import decode, encode, values_equal

__all__ = ["NIL_ENVELOPE", "VariableError", "evaluate", "parse_variable"]

NIL_ENVELOPE: dict[str, Any] = {"__type__": "Nil"}


# Index arithmetic such as ``grid[i - 1]``, on ints only.
_OPERATORS: dict[type, Any] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
}


class VariableError(ValueError):
    """A question's variable is not an expression the evaluator supports."""


class _Nil(Exception):
    """Raised inside evaluation when the value is not defined."""


@functools.lru_cache(maxsize=4096)
def parse_variable(text: str) -> ast.expr:
    """Parse a variable expression; raises :class:`VariableError` for anything else."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise VariableError(f"not an expression: {text!r}") from exc
    for sub in ast.walk(node):
        if not isinstance(
            sub,
            (
                ast.Name,
                ast.Attribute,
                ast.Subscript,
                ast.Tuple,
                ast.Constant,
                ast.Load,
                ast.UnaryOp,
                ast.USub,
                ast.Slice,
                ast.BinOp,
                *_OPERATORS,
            ),
        ):
            raise VariableError(f"unsupported variable expression {text!r}: {type(sub).__name__}")
    return node


def evaluate(text: str, local_envelopes: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    """The envelope of ``text`` evaluated in a snapshot, or :data:`NIL_ENVELOPE`."""
    node = parse_variable(text)
    try:
        return _eval(node, local_envelopes)
    except _Nil:
        return NIL_ENVELOPE


def _eval(node: ast.expr, env: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    if isinstance(node, ast.Name):
        value = env.get(node.id)
        if value is None:
            raise _Nil
        return value
    if isinstance(node, ast.Constant):
        return encode(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return encode(-node.operand.value)  # type: ignore[operator]
    if isinstance(node, ast.BinOp):
        left, right = decode(_eval(node.left, env)), decode(_eval(node.right, env))
        if type(left) is not int or type(right) is not int:
            raise _Nil
        try:
            return encode(_OPERATORS[type(node.op)](left, right))
        except (ZeroDivisionError, KeyError) as exc:
            raise _Nil from exc
    if isinstance(node, ast.Tuple):
        return {"__type__": "tuple", "__value__": [_eval(e, env) for e in node.elts]}
    if isinstance(node, ast.Attribute):
        base = _eval(node.value, env)
        if base.get("__kind__") != "object" or base.get("__truncated__"):
            raise _Nil
        attrs = base.get("__value__") or {}
        if node.attr not in attrs:
            raise _Nil
        return attrs[node.attr]
    if isinstance(node, ast.Subscript):
        base = _eval(node.value, env)
        if isinstance(node.slice, ast.Slice):
            raise _Nil
        key = decode(_eval(node.slice, env))
        return _subscript(base, key)
    raise _Nil


def _subscript(base: dict[str, Any], key: Any) -> dict[str, Any]:
    if base.get("__truncated__") or base.get("__kind__") in ("object", "opaque", "numpy"):
        raise _Nil
    items = base.get("__value__")
    kind = base.get("__base__", base.get("__type__"))
    if kind in ("list", "tuple") and isinstance(items, list):
        if type(key) is not int or not -len(items) <= key < len(items):
            raise _Nil
        return items[key]
    if kind == "str" and isinstance(items, str):
        if type(key) is not int or not -len(items) <= key < len(items):
            raise _Nil
        return {"__type__": "str", "__value__": items[key]}
    if kind == "dict" and isinstance(items, list):
        for pair in items:
            if values_equal(decode(pair[0]), key, mode="exact"):
                return pair[1]
        raise _Nil
    raise _Nil
