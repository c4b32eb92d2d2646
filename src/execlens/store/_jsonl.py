"""The one JSON Lines reader: one value per line, every failure a typed :class:`JsonlError`.

Every JSONL file execlens reads (data sets, generations, run outputs, shards, training
rows) goes through :func:`jsonl_lines` or its two conveniences, :func:`iter_jsonl`
(streaming) and :func:`read_jsonl` (a list).  Lines end at ``\\n`` only (a ``\\r``
before it is JSON whitespace), as JSON Lines defines them; ``.gz`` files are read
through gzip.  Each line is decoded as UTF-8 on its own, so a file of any size streams.

What can be wrong with a line is one of :data:`JsonlProblem`, carried by the error with
the file, the 1-based line number and the details a caller words its own message from
(the JSON parser's message and column, the byte and its offset, the parsed value).  A
line that fails to decode and is the file's last with no newline after it is *torn*
(``error.torn``): a writer killed mid-line leaves one, and a resumable run's reader may
drop it (``skip_torn_tail=True``) where a corrupt line elsewhere is still an error.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Any, Literal

from ._errors import StoreError

__all__ = [
    "JsonlError",
    "JsonlLine",
    "JsonlProblem",
    "iter_jsonl",
    "json_kind",
    "jsonl_lines",
    "read_jsonl",
]

#: What is wrong with a line: bytes that are not UTF-8, text that is not JSON, JSON nested
#: deeper than the parser's recursion allows, a value that is not an object (only when
#: objects are required).
JsonlProblem = Literal["undecodable", "not-json", "too-deep", "not-object"]

_TYPE_NAMES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    type(None): "null",
}


def json_kind(value: Any) -> str:
    """A parsed JSON value's kind in words (``"an object"``, ``"a list"``, ``"null"``),
    for messages; another type by its name."""
    return _TYPE_NAMES.get(type(value), type(value).__name__)


class JsonlError(StoreError, ValueError):
    """One bad line of a JSONL file: ``path``, 1-based ``line``, and ``problem``.

    ``detail`` is the parser's own words (``"Expecting value"``, ``"invalid start
    byte"``); ``column`` the JSON parser's 1-based column (``not-json``); ``offset`` and
    ``byte`` the undecodable byte's offset in the (decompressed) file and its value
    (``undecodable``); ``value`` the parsed value that is not an object (``not-object``);
    ``torn`` whether the line is the file's last and lacks its newline.
    """

    def __init__(
        self,
        path: Path,
        line: int,
        problem: JsonlProblem,
        detail: str = "",
        *,
        column: int | None = None,
        offset: int | None = None,
        byte: int | None = None,
        value: Any = None,
        torn: bool = False,
    ) -> None:
        self.path = path
        self.line = line
        self.problem: JsonlProblem = problem
        self.detail = detail
        self.column = column
        self.offset = offset
        self.byte = byte
        self.value = value
        self.torn = torn
        super().__init__(f"{path} line {line}: {self.reason}")

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Rebuilt whole when it crosses a process (a worker's read raised it).
        options = {
            "column": self.column,
            "offset": self.offset,
            "byte": self.byte,
            "value": self.value,
            "torn": self.torn,
        }
        return partial(JsonlError, **options), (self.path, self.line, self.problem, self.detail)

    @property
    def reason(self) -> str:
        """What is wrong with the line, without the file and line number."""
        if self.problem == "undecodable":
            what = f"not UTF-8 text (byte {self.byte:#04x} at offset {self.offset})"
        elif self.problem == "not-json":
            what = f"not JSON ({self.detail} at column {self.column})"
        elif self.problem == "too-deep":
            what = "JSON nested too deeply to read"
        else:
            what = f"not a JSON object ({self.value_kind})"
        if self.torn:
            what += "; the last line is cut off (was its writer killed mid-write?)"
        return what

    @property
    def value_kind(self) -> str:
        """The parsed value's kind in words (``"a list"``, ``"null"``), for messages."""
        return json_kind(self.value)


@dataclass(frozen=True, slots=True)
class JsonlLine:
    """One non-blank line: its 1-based ``number`` and parsed ``value``, or the ``error``
    that says why it has none (``value`` is then ``None``)."""

    number: int
    value: Any
    error: JsonlError | None = None


def _open(path: Path) -> IO[bytes]:
    if path.name.lower().endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return path.open("rb")


def _parse(
    path: Path, number: int, raw: bytes, start: int, objects: bool, skip_blank: bool
) -> JsonlLine | None:
    """The line ``raw`` parsed, or ``None`` for a blank line that is skipped."""
    torn = not raw.endswith(b"\n")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        error = JsonlError(
            path,
            number,
            "undecodable",
            exc.reason,
            offset=start + exc.start,
            byte=raw[exc.start],
            torn=torn,
        )
        return JsonlLine(number, None, error)
    if skip_blank and not text.strip():
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        error = JsonlError(path, number, "not-json", exc.msg, column=exc.colno, torn=torn)
        return JsonlLine(number, None, error)
    except RecursionError:
        return JsonlLine(number, None, JsonlError(path, number, "too-deep", torn=torn))
    if objects and not isinstance(value, dict):
        return JsonlLine(number, None, JsonlError(path, number, "not-object", value=value))
    return JsonlLine(number, value)


def jsonl_lines(
    path: Path | str,
    *,
    objects: bool = True,
    skip_blank: bool = True,
    skip_torn_tail: bool = False,
) -> Iterator[JsonlLine]:
    """Every line of ``path`` in order, one at a time, as a :class:`JsonlLine`.

    A bad line is yielded with its ``error`` set, never raised, so a reader that keeps
    the good lines and reports the bad ones can; :func:`iter_jsonl` raises instead.
    ``objects`` requires each value to be a JSON object; ``skip_blank`` passes over lines
    of whitespace (without it a blank line is ``not-json``); ``skip_torn_tail`` drops a
    torn last line (see the module doc).  Opening the file raises ``OSError`` as
    ``open`` does, and a broken gzip stream raises gzip's own errors.
    """
    path = Path(path)
    with _open(path) as handle:
        yield from read_lines(
            path, handle, objects=objects, skip_blank=skip_blank, skip_torn_tail=skip_torn_tail
        )


def read_lines(
    path: Path,
    handle: IO[bytes],
    *,
    objects: bool = True,
    skip_blank: bool = True,
    skip_torn_tail: bool = False,
) -> Iterator[JsonlLine]:
    """:func:`jsonl_lines` over an open binary ``handle`` (``path`` names it in errors):
    for a reader that holds the bytes already, such as the append log's repair."""
    offset = 0
    for number, raw in enumerate(handle, 1):
        start, offset = offset, offset + len(raw)
        line = _parse(path, number, raw, start, objects, skip_blank)
        if line is None:
            continue
        if skip_torn_tail and line.error is not None and line.error.torn:
            return
        yield line


def iter_jsonl(
    path: Path | str,
    *,
    objects: bool = True,
    skip_blank: bool = True,
    skip_torn_tail: bool = False,
) -> Iterator[Any]:
    """The values of ``path``'s lines, streamed; the first bad line raises its
    :class:`JsonlError` (options as :func:`jsonl_lines`)."""
    for line in jsonl_lines(
        path, objects=objects, skip_blank=skip_blank, skip_torn_tail=skip_torn_tail
    ):
        if line.error is not None:
            raise line.error
        yield line.value


def read_jsonl(
    path: Path | str,
    *,
    objects: bool = True,
    skip_blank: bool = True,
    skip_torn_tail: bool = False,
) -> list[Any]:
    """The values of ``path``'s lines as a list (see :func:`iter_jsonl`)."""
    return list(
        iter_jsonl(path, objects=objects, skip_blank=skip_blank, skip_torn_tail=skip_torn_tail)
    )
