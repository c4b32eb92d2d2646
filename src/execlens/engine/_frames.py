"""What the server accepts from a child: one result frame, checked field by field.

A child's frames are written by code in the same process as the untrusted program, so
the server reads them as it would read anything the program wrote: the JSON decoder is
guarded (``_protocol.decode_json``: a frame nested 100,000 deep raises
``RecursionError`` in ``json.loads``), and
every field is checked against the bounds the child's own encoder keeps -- the value
envelope against :class:`execlens.values.Caps` (items per container, depth, string
length, nodes), captured text against the job's output limit, the runner's data against
a depth bound.  A frame that breaks any of them is the child breaking the protocol: the
server marks that child's current input ``crashed`` and keeps every result it already
had.  Honest frames always pass (the bounds are those the child's encoder keeps, with
room to spare), so no honest result is ever refused here.
"""

from __future__ import annotations

import math
from typing import Any

from execlens.engine._protocol import FrameError
from execlens.values import Caps

__all__ = [
    "EXTRA_MAX_DEPTH",
    "STATUSES",
    "check_depth",
    "check_envelope",
    "check_result",
]

#: The statuses a child may report (``timeout``/``crashed`` come from the server).
STATUSES = frozenset(
    {"ok", "exception", "memory_exceeded", "output_limit", "crashed", "sandbox_error", "timeout"}
)
#: JSON nesting a runner's data (the tracer's recording) may have: an envelope (at most
#: about three JSON levels per value level) inside a few levels of records.
EXTRA_MAX_DEPTH = 4 * 26 + 40
#: Bounds on the text fields of a record (the child truncates well within them).
_MAX_MESSAGE = 100_000
_MAX_EXCEPTION_TYPE = 1_000
_MAX_EXCEPTION_MESSAGE = 4_000
_MAX_TRACEBACK_LINES = 64
_MAX_TRACEBACK_LINE = 4_000
_MAX_RETIRE = 200
_CAPS = Caps()


def check_depth(data: Any, limit: int) -> None:
    """Raise :class:`FrameError` if ``data`` (decoded JSON) nests deeper than ``limit``.

    Iterative, so a deep value cannot exhaust the checker's own stack.
    """
    stack: list[tuple[Any, int]] = [(data, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        kind = type(item)
        if kind is dict:
            children: Any = item.values()
        elif kind is list:
            children = item
        else:
            continue
        if depth >= limit:
            raise FrameError(f"runner data nested deeper than {limit} levels")
        for child in children:
            child_kind = type(child)
            if child_kind is dict or child_kind is list:
                push((child, depth + 1))


def check_envelope(value: Any, caps: Caps = _CAPS) -> None:
    """Raise :class:`FrameError` unless ``value`` could come from ``encode(..., caps)``.

    The checks are the encoder's own bounds, counted on the JSON: no list longer than
    ``max_items`` (plus the few fixed-size lists an envelope holds), no string longer
    than ``max_str``, no integer past ``max_int_digits``, no nesting past what
    ``max_depth`` value levels take, and no more JSON nodes than ``max_nodes``
    envelopes can hold.  The walk stops at the first breach, so a forged frame of
    millions of items costs one ``len`` of its list.  Names the encoder does not cut (a
    class named with more than ``4 * max_str`` characters) are refused too.
    """
    max_items = caps.max_items + 2  # a dict item's [key, value], a shape, a complex
    # Values are cut at max_str; names (a type's, an attribute's) are not, so strings
    # get four times that before a frame counts as forged.
    max_str = 4 * caps.max_str
    max_digits = caps.max_int_digits
    depth_limit = 4 * (caps.max_depth + 2) + 8
    budget = 16 * caps.max_nodes + 64
    stack: list[tuple[Any, int]] = [(value, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        budget -= 1
        if budget < 0:
            raise FrameError("value holds more nodes than the value caps allow")
        kind = type(item)
        if kind is dict:
            if depth >= depth_limit or len(item) > 16 + max_items:
                raise FrameError("value nests deeper or wider than the value caps allow")
            for child in item.values():
                push((child, depth + 1))
        elif kind is list:
            if depth >= depth_limit or len(item) > max_items:
                raise FrameError("value nests deeper or holds more items than the caps allow")
            for child in item:
                push((child, depth + 1))
        elif kind is str:
            if len(item) > max_str:
                raise FrameError("value holds a string past the value caps")
        elif kind is int:
            if item.bit_length() > max_digits * 3.33 + 8:
                raise FrameError("value holds an integer past the value caps")
        elif kind is float:
            if not math.isfinite(item):
                raise FrameError("value holds a non-finite float")
        elif item is not None and kind is not bool:
            raise FrameError(f"value holds a {kind.__name__}")


def _text(record: dict[str, Any], key: str, bound: int) -> None:
    text = record.get(key)
    if text is not None and (type(text) is not str or len(text) > bound):
        raise FrameError(f"field {key!r} is not text within {bound} characters")


def _number(record: dict[str, Any], key: str) -> None:
    number = record.get(key)
    if number is None:
        return
    if type(number) not in (int, float) or not math.isfinite(number) or number < 0:
        raise FrameError(f"field {key!r} is not a finite non-negative number")


def _exception(data: Any) -> None:
    if data is None:
        return
    if type(data) is not dict:
        raise FrameError("field 'exception' is not an object")
    _text(data, "type", _MAX_EXCEPTION_TYPE)
    _text(data, "message", _MAX_EXCEPTION_MESSAGE)
    lines = data.get("traceback", [])
    if type(lines) is not list or len(lines) > _MAX_TRACEBACK_LINES:
        raise FrameError("field 'exception.traceback' is not a short list")
    for line in lines:
        if type(line) is not str or len(line) > _MAX_TRACEBACK_LINE:
            raise FrameError("a traceback line is not short text")
    if set(data) - {"type", "message", "traceback"} or type(data.get("type")) is not str:
        raise FrameError("field 'exception' has unknown or missing fields")


#: Every field a result record may carry, and what the host reads from it.
_FIELDS = frozenset(
    {
        "i",
        "n",
        "status",
        "value",
        "stdout",
        "stderr",
        "stdout_truncated",
        "stderr_truncated",
        "duration",
        "peak_memory_mb",
        "exception",
        "message",
        "extra",
        "retire",
    }
)


def check_result(message: Any, output_cap: int) -> dict[str, Any]:
    """The result record in ``message``, checked; raises :class:`FrameError` otherwise.

    ``output_cap`` is the job's output limit: captured stdout and stderr together never
    exceed it (the child's capture stops the input there).  Unknown fields are refused,
    not dropped: only a forged frame has them.  Written for the common case (a small
    value, no exception, no runner data) to cost little more than decoding the frame.
    """
    if type(message) is not dict or not _FIELDS.issuperset(message):
        raise FrameError("a result frame is not an object of known fields")
    if message.get("status") not in STATUSES:
        raise FrameError("a result frame has no known status")
    out = message.get("stdout", "")
    err = message.get("stderr", "")
    if type(out) is not str or type(err) is not str or len(out) + len(err) > output_cap:
        raise FrameError("captured output is not text within the job's output limit")
    if (
        type(message.get("stdout_truncated", False)) is not bool
        or type(message.get("stderr_truncated", False)) is not bool
    ):
        raise FrameError("a truncation flag is not a bool")
    _number(message, "duration")
    _number(message, "peak_memory_mb")
    if "message" in message:
        _text(message, "message", _MAX_MESSAGE)
    if "retire" in message:
        _text(message, "retire", _MAX_RETIRE)
    if "exception" in message:
        _exception(message["exception"])
    if "value" in message:
        value = message["value"]
        if not _plain_scalar(value):
            check_envelope(value)
    extra = message.get("extra")
    if extra is not None:
        if type(extra) is not dict:
            raise FrameError("field 'extra' is not an object")
        check_depth(extra, EXTRA_MAX_DEPTH)
    return message


def _plain_scalar(value: Any) -> bool:
    """Whether ``value`` is an envelope of one short scalar (most results): no walk needed."""
    if type(value) is not dict or len(value) != 2:
        return False
    name = value.get("__type__")
    if type(name) is not str or len(name) > _CAPS.max_str:
        return False
    item = value.get("__value__", ...)
    kind = type(item)
    if kind is str:
        return len(item) <= _CAPS.max_str
    if kind is int:
        return item.bit_length() <= _CAPS.max_int_digits * 3.33
    if kind is float:
        return math.isfinite(item)
    return kind is bool or item is None
