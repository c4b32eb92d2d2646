"""The answer REval's truth calls for, written as a model should write it.

The report's expected answers (``_explain``) and the tests' oracle model read these: for
every question, the answer its truth calls for, as raw text in the format the official
extraction reads (``[ANSWER]`` blocks are not needed for direct prompts): ``YES``/``NO``;
the next line's code text or ``-1``; ``Nil`` or ``value; type``; the output snippet
completed.  Values are rendered for the mode they will be judged in: REval's
``eval``/``locate`` reading for ``official`` (``numpy.ndarray`` with a list,
``datetime.datetime`` as ISO text, the test's own expressions in ClassEval masks),
literals for ``strict``.  Where no text can be right (a value the envelopes could not
keep, a next line that is blank), the reason is returned beside the answer.
"""

from __future__ import annotations

import builtins
import datetime
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from execlens.values import (
    ObjectRecord,
    OpaqueRecord,
    Truncated,
    decode,
    envelope_type_key,
    is_ndarray,
    literal_text,
)

from ._masks import MASK, mask_sites
from ._records import MaskTruth, QuestionTruth

if TYPE_CHECKING:
    from ._data import RevalItem
    from ._truth import RevalTruth

__all__ = ["output_answer", "path_answer", "state_answer"]


def _type_text(envelope: dict[str, Any], mode: str) -> str:
    module, name = envelope_type_key(envelope)
    if module in (None, "builtins"):
        return name
    return f"{module}.{name}"


def _official_text(value: Any, top: bool) -> str:
    """Text REval's ``eval`` turns into ``value`` (its namespace binds ``datetime`` to the
    class and ``np`` to numpy); ValueError where no text can be accepted."""
    if (
        isinstance(value, OpaqueRecord)
        and value.type_name == "type"
        and isinstance(getattr(builtins, value.description, None), type)
    ):
        return value.description  # a builtin class, by its name
    if isinstance(value, (ObjectRecord, OpaqueRecord, Truncated)):
        raise ValueError(f"{type(value).__name__} value")
    module = type(value).__module__
    if is_ndarray(value):  # numpy.matrix too: REval builds it from the list and allcloses
        if not top:
            raise ValueError("an array inside a container (REval's == on it raises)")
        return repr(value.tolist())
    if module == "numpy":
        return repr(value.item()) if top else f"np.{type(value).__name__}({value.item()!r})"
    if isinstance(value, datetime.datetime):
        if top:
            return value.isoformat(sep=" ")  # REval parses these with dateutil
        return (
            f"datetime({value.year}, {value.month}, {value.day}, {value.hour}, "
            f"{value.minute}, {value.second}, {value.microsecond})"
        )
    if isinstance(value, float) and value != value:
        raise ValueError("nan never equals itself")
    if type(value) is list:
        return "[" + ", ".join(_official_text(v, False) for v in value) + "]"
    if type(value) is tuple:
        inner = ", ".join(_official_text(v, False) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if type(value) is dict:
        return (
            "{"
            + ", ".join(
                f"{_official_text(k, False)}: {_official_text(v, False)}" for k, v in value.items()
            )
            + "}"
        )
    if type(value).__name__ == "deque" and type(value).__module__ == "collections":
        if not top:
            raise ValueError("a deque inside a container has no name in REval's namespace")
        # REval calls the located type on the evaluated text: deque(<list>).
        return _official_text(list(value), False)
    return repr(value)


def state_answer(truth: QuestionTruth, mode: str) -> tuple[str, str | None]:
    """``Nil`` or ``value; type`` as ``mode`` reads it; and why no text can be right."""
    if truth.nil:
        return "Nil", None
    reasons = []
    for envelope in truth.state:
        value = decode(envelope)
        why = (
            f"{envelope.get('__type__')} value"
            + (" (truncated)" if envelope.get("__truncated__") else "")
            + (" (opaque)" if envelope.get("__kind__") == "opaque" else "")
        )
        if mode == "official":
            try:
                text: str | None = _official_text(value, True)
            except ValueError as error:
                text, why = None, f"{why}: {error}"
        else:
            text = literal_text(value)
        if text is not None:
            return f"{text}; {_type_text(envelope, mode)}", None
        reasons.append(why)
    return "Nil", f"no text names an accepted value: {', '.join(reasons)}"


def path_answer(truth: QuestionTruth, code: str) -> tuple[str, str | None]:
    """The next line's code text (or ``-1``); and why no text can be right."""
    lines = code.split("\n")
    for line in truth.next_lines:
        if line == -1:
            return "-1", None
        text = lines[line - 1].strip()
        if text:
            return text, None
    return "-1", f"the next lines {list(truth.next_lines)} are blank"


def _fill(template: str, fillings: Sequence[str]) -> str:
    parts = template.split(MASK)
    out = parts[0]
    for filling, part in zip(fillings, parts[1:]):
        out += filling + part
    return out


def _mask_literal(mask: MaskTruth) -> str | None:
    for envelope in (*mask.hidden, *mask.other):
        text = literal_text(decode(envelope))
        if text is not None:
            return text
    return None


def output_answer(item: RevalItem, truth: RevalTruth, mode: str) -> tuple[str, str | None]:
    """The output snippet completed with the recorded values; and why it cannot be."""
    problem, pair = item.problem, item.pair
    if mode == "official" and problem.kind == "classeval":
        sites = mask_sites(pair.output_pred, problem.inputs[pair.input_idx])
        return _fill(pair.output_pred, [s.hidden for s in sites]), None
    strict = truth.outputs.get(pair.sample_id)
    if strict is None or strict.error or not strict.masks:
        return "assert False", f"no recorded output: {strict.error if strict else 'none'}"
    fillings = []
    for mask in strict.masks:
        text = _mask_literal(mask)
        if text is None:
            return "assert False", "a mask's value has no literal form"
        fillings.append(text)
    return _fill(pair.output_pred, fillings), None
