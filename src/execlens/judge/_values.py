"""Answer values, in the host: strict parsing, type names and type-strict equality.

Shared by every judge that reads a value from a model (state answers, output fillings):

* :func:`parse_state_value` reads an answer's value *as data*: a Python literal
  (:func:`execlens.values.parse_literal`), or one of the constructor calls Python prints
  for values without literal syntax (``datetime.datetime(2024, 1, 2, 3, 4)``,
  ``deque([1, 2])``, ``np.float64(1.5)``, ``array([1, 2])``, ``np.matrix([[1, 2]])``,
  ``bytearray(b'ab')``, ``Decimal('1.5')``...), each built here from literal arguments.
  Nothing is evaluated.
* :func:`strict_equal` is type-strict equality, with numpy scalars and arrays (any
  ``ndarray`` subclass, ``numpy.matrix`` included) compared as the Python values they hold.
* :func:`type_names` / :func:`envelope_type_key`: the names a value's type may be given as.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from typing import Any

from execlens.values import (
    AnswerParseError,
    ObjectRecord,
    OpaqueRecord,
    Truncated,
    parse_literal,
    values_equal,
)

__all__ = [
    "envelope_type_key",
    "is_ndarray",
    "literal_text",
    "parse_state_value",
    "strict_equal",
    "type_names",
]


def _is_ndarray(value: Any) -> bool:
    """Any ``numpy.ndarray``, subclasses (``numpy.matrix``) included, without importing numpy."""
    return any(cls.__name__ == "ndarray" and cls.__module__ == "numpy"
               for cls in type(value).__mro__)


def _is_numpy_scalar(value: Any) -> bool:
    return type(value).__module__ == "numpy" and hasattr(value, "item") and not _is_ndarray(
        value)


# ------------------------------------------------------------------ strict parsing
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


_CLASS_NAMES = frozenset({"int", "str", "float", "bool", "list", "dict", "set", "tuple",
                          "frozenset", "bytes", "bytearray", "complex", "type", "object"})


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
        return {_hashable(_data(k)): _data(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Name):
        if node.id in _CLASS_NAMES:
            return OpaqueRecord("type", node.id)
        raise AnswerParseError("name", f"a name ({node.id!r}) is not a literal")
    if isinstance(node, ast.Call):
        name = ast.unparse(node.func)
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
                k.arg is None for k in node.keywords):
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
        raise AnswerParseError("not_literal",
                               f"unhashable set member or dict key: {exc}") from None
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


# ------------------------------------------------------------------ type names
def type_names(module: str | None, name: str) -> set[str]:
    """The lower-case names a type may be given as (``float64``, ``numpy.float64``...)."""
    names = {name.lower()}
    if module and module != "builtins":
        names.add(f"{module}.{name}".lower())
    if module == "numpy":
        names.add(f"np.{name}".lower())
    if name == "NoneType":
        names.add("none")
    return names


# ------------------------------------------------------------------ comparisons
class _Class:
    """A class as data (``OpaqueRecord("type", name)``), equal by name."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Class) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("class", self.name))


def _plain(value: Any) -> Any:
    if _is_numpy_scalar(value):
        return value.item()
    if _is_ndarray(value):
        return value.tolist()
    if isinstance(value, OpaqueRecord) and value.type_name == "type":
        return _Class(value.description.rsplit(".", 1)[-1])
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value


def strict_equal(predicted: Any, reference: Any) -> bool:
    """Type-strict equality; numpy scalars/arrays compare as the Python values they hold,
    classes (as decoded envelopes hold them) by name."""
    return values_equal(_plain(predicted), _plain(reference), "exact")


def is_ndarray(value: Any) -> bool:
    """Whether ``value`` is a numpy array (``numpy.matrix`` and other subclasses too)."""
    return _is_ndarray(value)


_BUILTIN_TYPES = frozenset({
    "int", "str", "bool", "float", "NoneType", "list", "tuple", "set", "frozenset", "dict",
    "bytes", "bytearray", "complex", "range", "type", "object", "slice", "memoryview",
})
_MODULE_OF = {
    "datetime": "datetime", "date": "datetime", "time": "datetime", "timedelta": "datetime",
    "Decimal": "decimal", "Fraction": "fractions", "deque": "collections",
    "defaultdict": "collections", "OrderedDict": "collections", "Counter": "collections",
    "ChainMap": "collections",
}


def envelope_type_key(envelope: Mapping[str, Any]) -> tuple[str | None, str]:
    """``(module, name)`` of the type an envelope records, e.g. ``("builtins", "int")``.

    The module is ``None`` when the envelope does not say and the name is not a known
    builtin or standard-library type (a subclass of a builtin container).
    """
    name = str(envelope.get("__type__", ""))
    kind = envelope.get("__kind__")
    if kind == "numpy":
        return "numpy", name
    module = envelope.get("__module__")
    if module:
        return str(module), name
    if name in _BUILTIN_TYPES:
        return "builtins", name
    return _MODULE_OF.get(name), name
