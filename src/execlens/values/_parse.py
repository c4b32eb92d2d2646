"""Safe parsing of model answers: literals and single literal-argument calls, via ``ast``.

Model output is data.  Nothing here evaluates code: the syntax tree is walked and only
literal forms are turned into values.  Anything else raises :class:`AnswerParseError`
with a named ``kind`` so callers can report *why* an answer was rejected.

Accepted literal forms: Python constants, lists, tuples, sets, dicts, unary +/- on
numbers, complex sums (``1+2j``), and the constructor calls Python itself prints for
values without a literal syntax: ``set()``, ``frozenset({...})``, ``float('nan')``,
``float('inf')``, ``tuple()``, ``list()``, ``dict()``, ``bytes()``.  JSON literals
(``true``, ``false``, ``null``, NaN/Infinity) are accepted as a fallback.

:func:`parse_state_value` reads an answer's *value* (state and output answers of runtime
questions): a literal as above, or literals inside the constructor calls Python prints for
values without literal syntax (``datetime.datetime(2024, 1, 2, 3, 4)``, ``deque([1, 2])``,
``np.float64(1.5)``, ``array([1, 2])``, ``np.matrix([[1, 2]])``, ``bytearray(b'ab')``,
``Decimal('1.5')``...), each built here from literal arguments; :func:`literal_text` is
its inverse.  This is the one safe-value parser of execlens.
"""

from __future__ import annotations

import ast
import json
import keyword
import math
import re
from dataclasses import dataclass, field
from typing import Any

from execlens.values._decode import ObjectRecord, OpaqueRecord, Truncated
from execlens.values._fastliteral import UNREAD, read_literal
from execlens.values._types import _is_ndarray, _is_numpy_scalar, strict_equal

__all__ = [
    "AnswerParseError",
    "ParsedCall",
    "literal_text",
    "parse_call",
    "parse_literal",
    "parse_state_value",
]

_MAX_ANSWER_CHARS = 200_000
#: Answers at least this long are first offered to the fast reader (``_fastliteral``):
#: ``ast`` costs ~1 ms per 1,000 characters; shorter answers, every benchmark's included,
#: take the ``ast`` path alone.
_FAST_FROM = 2_000
_CALL = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*", re.DOTALL)


class AnswerParseError(ValueError):
    """An answer that is not a literal (or a single literal call).

    ``kind`` is one of: ``not_text``, ``empty``, ``too_long``, ``syntax``, ``name``,
    ``attribute``, ``boolop``, ``comprehension``, ``call``, ``operator``, ``not_a_call``,
    ``not_literal``, ``multiple``.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message


@dataclass(frozen=True)
class ParsedCall:
    """``name(*args, **kwargs)`` with literal arguments."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


_CONSTRUCTORS_NO_ARGS = {
    "set": set,
    "frozenset": frozenset,
    "tuple": tuple,
    "list": list,
    "dict": dict,
    "bytes": bytes,
    "str": str,
}


def _reject(node: ast.AST) -> AnswerParseError:
    if isinstance(node, ast.Name):
        return AnswerParseError("name", f"a name ({node.id!r}) is not a literal")
    if isinstance(node, ast.Attribute):
        return AnswerParseError("attribute", "attribute access is not a literal")
    if isinstance(node, ast.BoolOp):
        return AnswerParseError("boolop", "`and`/`or` expressions are not literals")
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return AnswerParseError("comprehension", "comprehensions are not literals")
    if isinstance(node, ast.Call):
        return AnswerParseError("call", "a function call is not a literal")
    if isinstance(
        node,
        (
            ast.BinOp,
            ast.Compare,
            ast.UnaryOp,
            ast.IfExp,
            ast.Lambda,
            ast.Subscript,
            ast.Starred,
            ast.NamedExpr,
            ast.JoinedStr,
        ),
    ):
        return AnswerParseError("operator", f"{type(node).__name__} is not a literal")
    return AnswerParseError("not_literal", f"{type(node).__name__} is not a literal")


def _literal(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        if node.value is Ellipsis:
            raise AnswerParseError("not_literal", "`...` is not an answer")
        return node.value
    if isinstance(node, ast.List):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_literal(e) for e in node.elts)
    if isinstance(node, ast.Set):
        return {_hashable_literal(e) for e in node.elts}
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise AnswerParseError("operator", "`**` unpacking is not a literal")
        return {
            _hashable_literal(k): _literal(v)
            for k, v in zip(node.keys, node.values)
            if k is not None
        }  # (every key is set: checked above)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _literal(node.operand)
        if isinstance(operand, (int, float, complex)) and not isinstance(operand, bool):
            return -operand if isinstance(node.op, ast.USub) else +operand
        raise _reject(node)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        # Only the complex literal shape: real ± imaginary.
        left, right = _literal(node.left), _literal(node.right)
        if (
            isinstance(left, (int, float))
            and not isinstance(left, bool)
            and isinstance(right, complex)
        ):
            return left + right if isinstance(node.op, ast.Add) else left - right
        raise _reject(node)
    if isinstance(node, ast.Call):
        return _constructor(node)
    raise _reject(node)


def _hashable_literal(node: ast.AST) -> Any:
    value = _literal(node)
    try:
        hash(value)
    except TypeError as exc:
        raise AnswerParseError("not_literal", f"unhashable set member or dict key: {exc}") from exc
    return value


def _constructor(node: ast.Call) -> Any:
    """The calls Python's own ``repr`` produces for values without literal syntax."""
    if not isinstance(node.func, ast.Name) or node.keywords:
        raise _reject(node)
    name = node.func.id
    if name == "float" and len(node.args) == 1:
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            text = arg.value.strip().lower()
            if text in ("nan", "inf", "-inf", "+inf", "infinity", "-infinity"):
                return float(text)
        raise _reject(node)
    if name in _CONSTRUCTORS_NO_ARGS:
        if not node.args:
            return _CONSTRUCTORS_NO_ARGS[name]()
        if name in ("set", "frozenset") and len(node.args) == 1:
            inner = _literal(node.args[0])
            if isinstance(inner, (set, frozenset, list, tuple)):
                try:
                    return _CONSTRUCTORS_NO_ARGS[name](inner)
                except TypeError as exc:
                    raise AnswerParseError("not_literal", str(exc)) from exc
    raise _reject(node)


def _parse_expression(text: str) -> ast.expr:
    if not isinstance(text, str):
        # A client can hand over None (a response without content) or a JSON value.
        raise AnswerParseError("not_text", f"the answer is {type(text).__name__}, not text")
    if len(text) > _MAX_ANSWER_CHARS:
        raise AnswerParseError("too_long", f"answer longer than {_MAX_ANSWER_CHARS} characters")
    stripped = text.strip()
    if not stripped:
        raise AnswerParseError("empty", "the answer is empty")
    try:
        tree = ast.parse(stripped, mode="eval")
    except SyntaxError as exc:
        raise AnswerParseError("syntax", f"not valid Python: {exc.msg}") from exc
    except (ValueError, RecursionError, MemoryError) as exc:
        raise AnswerParseError("syntax", f"could not parse: {type(exc).__name__}") from exc
    return tree.body


_JSON_CONSTANTS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _json_fallback(text: str) -> Any:
    try:
        return json.loads(text, parse_constant=lambda c: _JSON_CONSTANTS[c])
    except (ValueError, KeyError, RecursionError):
        return _NOT_JSON


_NOT_JSON = object()


def parse_literal(text: str, *, allow_json: bool = True) -> Any:
    """Parse a Python literal (or, failing that, a JSON literal) into a value.

    Raises :class:`AnswerParseError` for anything that is not a literal.
    """
    if isinstance(text, str) and _FAST_FROM <= len(text) <= _MAX_ANSWER_CHARS:
        value = read_literal(text.strip())
        if value is not UNREAD:
            return value
    try:
        return _literal(_parse_expression(text))
    except AnswerParseError as python_error:
        if allow_json and python_error.kind in ("syntax", "name"):
            value = _json_fallback(text.strip())
            if value is not _NOT_JSON:
                return value
        raise
    except RecursionError as exc:
        raise AnswerParseError("too_long", "answer nested too deeply") from exc


def parse_call(text: str, *, name: str | None = None) -> ParsedCall:
    """Parse exactly one call ``f(<literals>)``; optionally require the callee's name.

    Nested calls, names, attribute access, ``*args``/``**kwargs`` unpacking and anything
    around the call (``f(1) or True``) are rejected with a named kind.
    """
    fast = _fast_call(text, name)
    if fast is not None:
        return fast
    node = _parse_expression(text)
    if not isinstance(node, ast.Call):
        if isinstance(node, (ast.BoolOp, ast.BinOp, ast.Compare)):
            raise AnswerParseError(
                "multiple", "the answer must be a single call, nothing around it"
            )
        raise AnswerParseError("not_a_call", "the answer must be a call like f(...)")
    if not isinstance(node.func, ast.Name):
        raise AnswerParseError("attribute", "the callee must be a plain name")
    if name is not None and node.func.id != name:
        raise AnswerParseError("name", f"expected a call to {name!r}, got {node.func.id!r}")
    try:
        args = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise AnswerParseError("operator", "`*` unpacking is not allowed")
            args.append(_literal(arg))
        kwargs: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise AnswerParseError("operator", "`**` unpacking is not allowed")
            kwargs[keyword.arg] = _literal(keyword.value)
    except RecursionError as exc:
        raise AnswerParseError("too_long", "answer nested too deeply") from exc
    return ParsedCall(node.func.id, tuple(args), kwargs)


def _fast_call(text: Any, name: str | None) -> ParsedCall | None:
    """A long ``f(<literals>)`` read by the fast reader (its arguments as one tuple), or
    ``None`` for the ``ast`` path (keywords, a name that does not match, anything else)."""
    if not isinstance(text, str) or not _FAST_FROM <= len(text) <= _MAX_ANSWER_CHARS:
        return None
    match = _CALL.fullmatch(text)
    if match is None or keyword.iskeyword(match.group(1)):
        return None  # ``None(...)`` is no call to a name: ast names what it is
    if name is not None and match.group(1) != name:
        return None
    inner = match.group(2).strip()
    if not inner:
        return None
    args = read_literal(f"({inner},)")
    if args is UNREAD or type(args) is not tuple:
        return None
    return ParsedCall(match.group(1), args)


# ------------------------------------------------------------------ values beyond literals
def _numpy() -> Any:
    import numpy

    return numpy


def _build(name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    import collections
    import datetime
    import decimal
    import fractions

    if name in ("datetime.datetime", "datetime"):
        return datetime.datetime(*args, **kwargs)
    if name in ("datetime.date", "date"):
        return datetime.date(*args, **kwargs)
    if name in ("datetime.time", "time"):
        return datetime.time(*args, **kwargs)
    if name in ("datetime.timedelta", "timedelta"):
        return datetime.timedelta(*args, **kwargs)
    if name in ("collections.deque", "deque"):
        return collections.deque(*args, **kwargs)
    if name in ("collections.OrderedDict", "OrderedDict"):
        return collections.OrderedDict(*args, **kwargs)
    if name in ("collections.Counter", "Counter"):
        return collections.Counter(*args, **kwargs)
    if name in ("decimal.Decimal", "Decimal"):
        return decimal.Decimal(*args)
    if name in ("fractions.Fraction", "Fraction"):
        return fractions.Fraction(*args)
    if name == "bytearray":
        return bytearray(*args)
    if name == "complex":
        return complex(*args)
    numpy_name = name.split(".", 1)[1] if name.startswith(("np.", "numpy.")) else name
    if numpy_name in ("array", "asarray", "matrix") and (name != numpy_name or name == "array"):
        np = _numpy()
        dtype = kwargs.pop("dtype", None)
        if kwargs:
            raise AnswerParseError("call", f"unsupported arguments to {name}")
        return getattr(np, numpy_name)(*args, dtype=dtype)
    if name != numpy_name:
        np = _numpy()
        scalar = getattr(np, numpy_name, None)
        if isinstance(scalar, type) and issubclass(scalar, np.generic) and len(args) == 1:
            return scalar(args[0])
    raise AnswerParseError("call", f"{name}(...) is not a value constructor we read")


_CLASS_NAMES = frozenset(
    {
        "int",
        "str",
        "float",
        "bool",
        "list",
        "dict",
        "set",
        "tuple",
        "frozenset",
        "bytes",
        "bytearray",
        "complex",
        "type",
        "object",
    }
)


def _data(node: ast.AST) -> Any:
    """A value from a data expression: literals, builtin class names, known constructors."""
    if isinstance(node, ast.Constant):
        if node.value is Ellipsis:
            raise AnswerParseError("not_literal", "`...` is not an answer")
        return node.value
    if isinstance(node, ast.List):
        return [_data(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_data(e) for e in node.elts)
    if isinstance(node, ast.Set):
        return {_hashable(_data(e)) for e in node.elts}
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise AnswerParseError("operator", "`**` unpacking is not a literal")
        return {
            _hashable(_data(k)): _data(v) for k, v in zip(node.keys, node.values) if k is not None
        }  # (every key is set: checked above)
    if isinstance(node, ast.Name):
        if node.id in _CLASS_NAMES:
            return OpaqueRecord("type", node.id)
        raise AnswerParseError("name", f"a name ({node.id!r}) is not a literal")
    if isinstance(node, ast.Call):
        name = ast.unparse(node.func)
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        ):
            raise AnswerParseError("operator", "unpacking is not allowed")
        args = [_data(a) for a in node.args]
        kwargs = {str(k.arg): _data(k.value) for k in node.keywords}
        try:
            return _build(name, args, kwargs)
        except AnswerParseError:
            raise
        except (TypeError, ValueError, OverflowError, ArithmeticError) as exc:
            raise AnswerParseError("not_literal", f"{name}(...): {exc}") from exc
    # Signed numbers, complex literals and the rest: the literal parser's own rules.
    return parse_literal(ast.unparse(node), allow_json=False)


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError as exc:
        raise AnswerParseError("not_literal", f"unhashable set member or dict key: {exc}") from None
    return value


def parse_state_value(text: str) -> Any:
    """Parse an answer's value: a literal, or literals with value constructors inside.

    Accepted beyond literals: the constructors Python prints for values without literal
    syntax (see the module docstring), with data arguments, at any depth; builtin class
    names (``int``, ``{'age': int}``) read as the classes, kept as
    :class:`~execlens.values.OpaqueRecord` ``("type", name)`` as decoded envelopes hold
    them.  Raises :class:`execlens.values.AnswerParseError` for anything else.
    """
    try:
        return parse_literal(text, allow_json=False)
    except AnswerParseError as error:
        if error.kind not in ("call", "name"):
            raise
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError) as exc:
        raise AnswerParseError("syntax", f"not valid Python: {exc}") from exc
    try:
        return _data(node)
    except RecursionError as exc:
        raise AnswerParseError("too_long", "answer nested too deeply") from exc


def _text(value: Any) -> str:
    """Source text for a value, in the forms :func:`parse_state_value` reads."""
    if isinstance(value, OpaqueRecord) and value.type_name == "type":
        return value.description
    if isinstance(value, (ObjectRecord, OpaqueRecord, Truncated)):
        raise ValueError("no text form")
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return f"float('{value}')"
    if _is_ndarray(value):
        maker = "matrix" if type(value).__name__ == "matrix" else "array"
        return f"np.{maker}({value.tolist()!r}, dtype={str(value.dtype)!r})"
    if _is_numpy_scalar(value):
        return f"np.{type(value).__name__}({value.item()!r})"
    if type(value) is list:
        return "[" + ", ".join(_text(v) for v in value) + "]"
    if type(value) is tuple:
        inner = ", ".join(_text(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if type(value) is dict:
        return "{" + ", ".join(f"{_text(k)}: {_text(v)}" for k, v in value.items()) + "}"
    if type(value) in (set, frozenset):
        if not value:
            return f"{type(value).__name__}()"
        inner = "{" + ", ".join(_text(v) for v in value) + "}"
        return inner if type(value) is set else f"frozenset({inner})"
    return repr(value)


def literal_text(value: Any) -> str | None:
    """Text that :func:`parse_state_value` reads back as ``value``, or None if none does."""
    try:
        text = _text(value)
        parsed = parse_state_value(text)
    except (AnswerParseError, SyntaxError, ValueError, RecursionError):
        return None
    return text if strict_equal(parsed, value) else None
