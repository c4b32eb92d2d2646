"""RE2-Bench's comparisons: upstream's (``official``) and type-strict ones (``strict``).

**Official I/O** (``scripts/validators/compare_partially.py`` ``partial_compare``): a
recursive score over the ground truth's leaves.  Strings first go through upstream's
sniffers (a ``[...]`` string holding a number is read as a NumPy dump of floats, a
``set(...)``/``{...}`` string as a set, a ``{...}`` string as a dict, a ``[...]`` string
with quoted words or True/False as a list of them); then an exact ``type()`` check
(``1`` vs ``1.0``, ``True`` vs ``1`` score 0, counted over the truth's leaves) -- except
that a predicted *string* of another type is evaluated and compared again; strings equal
after ``strip()``; numbers ``==``; lists position by position over the first
``min(len)`` items, a longer prediction zeroing the list and **a shorter non-empty one
scored on its prefix alone** (``[1, 2]`` for ``[1, 2, 3]`` gets 2/2); an empty truth
list scores 1 iff the prediction is empty; sets by intersection (a bigger prediction
scores 0); dicts per truth key (a missing key is wrong, more keys than the truth zero
the dict).  ``partial_rs = score / count``, ``rs = 1`` iff ``partial_rs == 1``.

Where upstream calls ``eval`` on model text (the type-mismatch retry, the set and dict
sniffers, ``deserialize``'s ``[``/``{`` strings) execlens parses a Python *literal*
(:func:`execlens.values.parse_literal`): identical for every literal, and an answer that
is not one (``"1+1"``, ``"__import__('os')..."``) is not a value here, where upstream
would have run it.  ``deserialize``'s ``datetime.``/``math.`` strings and ``operation``
lambdas are kept as text for the same reason.

**Strict I/O** (:func:`strict_score`): the same leaf count, but no sniffers, no
evaluation, strings exact, any length difference zeroes a list, any key the truth
lacks zeroes a dict; ``rs`` iff every leaf is right.

**Loop / branch** (``validate_loop.compare_loop`` / ``validate_branch.compare_branch``):
per ground-truth line, every tracked variable's value sequence (tuples read as lists,
Python ``==``) or the list of taken booleans must equal; score 1 iff all lines do,
partial = the fraction of lines that do.  Strict compares values type-strictly
(``1.0`` is not ``1``, ``True`` is not ``1``).
"""

from __future__ import annotations

import datetime
import math
import numbers
import re
from collections.abc import Mapping
from typing import Any

from execlens.values import AnswerParseError, parse_literal, strict_equal

__all__ = [
    "as_lists",
    "branch_truth",
    "compare_branch",
    "compare_loop",
    "deserialize",
    "loop_truth",
    "official_score",
    "strict_score",
]

_NOT = object()


def _literal(text: str) -> Any:
    """What upstream's ``eval(text)`` gives for a literal; :data:`_NOT` otherwise."""
    try:
        return parse_literal(text, allow_json=False)
    except (AnswerParseError, RecursionError, MemoryError, ValueError):
        return _NOT


# --------------------------------------------------------------- upstream's sniffers
_NUMBER = r"nan|inf|[-+]?\d*\.\d+e[+-]?\d+|[-+]?\d*\.\d+|\d+"
_TOKEN = r"nan|[-+]?inf|[-+]?\d*\.\d+e[+-]?\d+|[-+]?\d*\.\d+|\d+"


def _looks_numpy(text: str) -> bool:
    text = text.strip()
    if text.startswith("array("):
        return True
    if not (text.startswith("[") and text.endswith("]")):
        return False
    return bool(re.search(_NUMBER, text, re.IGNORECASE))


def _numpy(text: str) -> Any:
    text = text.strip()
    if text.startswith("array(") and text.endswith(")"):
        text = text[len("array(") : -1].strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1].strip()
    rows = []
    for row in re.split(r"\]\s*\[|\n", text):
        parsed: list[Any] = []
        for token in re.findall(_TOKEN, row, flags=re.IGNORECASE):
            low = token.lower()
            if low == "nan":
                parsed.append(None)
            elif low == "inf":
                parsed.append(math.inf)
            elif low == "-inf":
                parsed.append(-math.inf)
            else:
                parsed.append(float(token))
        if parsed:
            rows.append(parsed)
    return rows[0] if len(rows) == 1 else rows


def _looks_set(text: str) -> bool:
    text = text.strip()
    if text.startswith(("set(", "frozenset(")) and text.endswith(")"):
        return True
    if text.startswith("{") and text.endswith("}"):
        return isinstance(_literal(text), (set, frozenset))
    return False


def _set(text: str) -> Any:
    text = text.strip()
    if text.startswith("set(") and text.endswith(")"):
        inner = _literal(text[len("set(") : -1])
        try:
            return text if inner is _NOT else set(inner)
        except TypeError:
            return text
    value = _literal(text)
    return text if value is _NOT else value


def _looks_dict(text: str) -> bool:
    return text.startswith("{") and text.endswith("}") and isinstance(_literal(text), dict)


def _looks_dump(text: str) -> bool:
    text = text.strip()
    return (
        text.startswith("[") and text.endswith("]") and bool(re.search(r"'[^']*'|True|False", text))
    )


def _dump(text: str) -> list[Any]:
    out: list[Any] = []
    for token in re.findall(r"'[^']*'|True|False", text.strip()[1:-1].strip()):
        out.append(True if token == "True" else False if token == "False" else token[1:-1])
    return out


def _sniff(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    if _looks_numpy(value):
        value = _numpy(value)
    if isinstance(value, str) and _looks_set(value):
        value = _set(value)
    if isinstance(value, str) and _looks_dict(value):
        value = _literal(value)
    if isinstance(value, str) and _looks_dump(value):
        value = _dump(value)
    return value


def _leaves(value: Any) -> int:
    """``count_predictable_attributes``."""
    if isinstance(value, list):
        return sum(_leaves(v) for v in value) if value else 1
    if isinstance(value, dict):
        return sum(_leaves(v) for v in value.values()) if value else 1
    if isinstance(value, (set, frozenset)):
        return len(value) if value else 1
    return 1


class _Tally:
    def __init__(self) -> None:
        self.score = 0.0
        self.count = 0


def _partial(predicted: Any, truth: Any, tally: _Tally, depth: int = 0) -> None:
    if depth > 200:
        tally.count += 1
        return
    predicted, truth = _sniff(predicted), _sniff(truth)
    if type(predicted) is not type(truth):
        if isinstance(predicted, str):
            value = _literal(predicted)
            if value is not _NOT:
                _partial(value, truth, tally, depth + 1)
                return
        tally.count += _leaves(truth)
        return
    if isinstance(predicted, str):
        tally.score += 1 if predicted.strip() == truth.strip() else 0
        tally.count += 1
    elif isinstance(predicted, numbers.Number):  # bools too, as upstream
        tally.score += 1 if predicted == truth else 0
        tally.count += 1
    elif isinstance(predicted, list):
        if not truth:
            tally.count += 1
            tally.score += 0.0 if predicted else 1.0
            return
        before = tally.score
        for index in range(min(len(predicted), len(truth))):
            _partial(predicted[index], truth[index], tally, depth + 1)
        if not predicted:
            tally.count += len(truth)
        elif len(predicted) > len(truth):
            tally.score = before
        # a shorter non-empty prediction: only its prefix was counted (upstream's hole)
    elif isinstance(predicted, (set, frozenset)):
        if not truth:
            tally.count += 1
            tally.score += 0.0 if predicted else 1.0
            return
        tally.count += len(truth)
        if len(predicted) <= len(truth):
            tally.score += len(truth & predicted)
    elif isinstance(predicted, dict):
        if not truth:
            tally.score += 0.0 if predicted else 1.0
            tally.count += 1
            return
        before = tally.score
        for key, value in truth.items():
            if key == "operation" and key in predicted:
                _partial(str(predicted[key]), str(value), tally, depth + 1)
            elif key in predicted:
                _partial(predicted[key], value, tally, depth + 1)
            else:
                tally.count += 1
        if len(predicted) > len(truth):
            tally.score = before
    else:
        tally.score += 1.0 if predicted == truth else 0.0
        tally.count += 1


def official_score(predicted: Any, truth: Any) -> tuple[int, float]:
    """``(rs, partial_rs)`` by ``partial_compare``."""
    tally = _Tally()
    _partial(predicted, truth, tally)
    partial = tally.score / tally.count if tally.count else 0.0
    return (1 if partial == 1 else 0), partial


_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2})?$")


def deserialize(value: Any, depth: int = 0) -> Any:
    """``deserialize`` (input prediction outside SWE-bench/Real), ``eval`` made literal."""
    if depth > 200:
        return value
    if isinstance(value, str):
        if _ISO.match(value):
            try:
                return datetime.datetime.fromisoformat(value)
            except ValueError:
                return value
        if value.startswith("["):
            parsed = _literal(value)
            if parsed is not _NOT:
                return parsed
        if value.startswith("{") and value.endswith("}"):
            parsed = _literal(value)
            if parsed is not _NOT:
                return deserialize(parsed, depth + 1)
        return value
    if isinstance(value, list):
        return [deserialize(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: v if k == "operation" else deserialize(v, depth + 1) for k, v in value.items()}
    return value


def _strict(predicted: Any, truth: Any, depth: int = 0) -> tuple[int, int]:
    """``(right leaves, truth leaves)`` with no sniffing, no evaluation, no prefix."""
    count = _leaves(truth)
    if depth > 200 or type(predicted) is not type(truth):
        return 0, count
    if isinstance(truth, list):
        if len(predicted) != len(truth):
            return 0, count
        if not truth:
            return 1, 1
        pairs = [_strict(p, t, depth + 1) for p, t in zip(predicted, truth)]
        return sum(p[0] for p in pairs), sum(p[1] for p in pairs)
    if isinstance(truth, dict):
        if set(predicted) - set(truth):
            return 0, count
        if not truth:
            return 1, 1
        right = 0
        for key, value in truth.items():
            if key in predicted:
                right += _strict(predicted[key], value, depth + 1)[0]
        return right, count
    return (1 if strict_equal(predicted, truth) else 0), 1


def strict_score(predicted: Any, truth: Any) -> tuple[int, float]:
    """``(rs, partial_rs)`` type-strictly: rs iff every leaf of the truth is right."""
    right, count = _strict(predicted, truth)
    return (1 if right == count else 0), (right / count if count else 0.0)


# --------------------------------------------------------------------- loop / branch
def _meaningful(value: Any) -> bool:
    return value is not None and not (
        isinstance(value, (list, dict, str, tuple, set)) and len(value) == 0
    )


def loop_truth(record: Mapping[str, Any]) -> dict[str, dict[str, list[Any]]]:
    """``read_ground_truth`` of a loop file: ``{line: {variable: [values...]}}``."""
    out: dict[str, dict[str, list[Any]]] = {}
    for loop in record.get("loops", {}).values():
        iterations = loop.get("iterations", [])
        if not iterations:
            continue
        states: dict[str, list[Any]] = {}
        for iteration in iterations:
            for name, value in iteration.get("loop_variables", {}).items():
                states.setdefault(name, []).append(value)
        control: dict[str, list[Any]] = {}
        for iteration in iterations:
            variable = iteration.get("control_variable", {}) or {}
            if variable.get("name"):
                control.setdefault(variable["name"], []).append(variable.get("value"))
        for name, values in control.items():
            if any(_meaningful(v) for v in values):
                states[name] = values
        if states:
            out[str(loop.get("line"))] = states
    return out


def branch_truth(record: Mapping[str, Any]) -> dict[str, list[bool]]:
    """``read_ground_truth`` of a branch file: ``{line: [taken, ...]}`` in decision order."""
    out: dict[str, list[bool]] = {}
    for decision in record.get("branches", {}).get("decisions", []):
        out.setdefault(str(decision["line"]), []).append(decision["taken"])
    return out


def as_lists(value: Any) -> Any:
    """``value`` with every tuple made a list, nested ones too (JSON's view of it)."""
    if isinstance(value, (tuple, list)):
        return [as_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: as_lists(v) for k, v in value.items()}
    return value


def compare_loop(
    predicted: Mapping[str, Mapping[str, Any]],
    truth: Mapping[str, Mapping[str, list[Any]]],
    *,
    strict: bool = False,
) -> tuple[int, float]:
    """``compare_loop``: ``(all loops right, fraction of loops right)``."""
    if not truth:
        return 1, 1.0
    right = 0
    for line, variables in truth.items():
        guessed = predicted.get(line)
        if guessed is None:
            continue
        ok = True
        for name, values in variables.items():
            if name not in guessed:
                ok = False
                break
            mine, theirs = as_lists(guessed[name]), as_lists(values)
            if not (strict_equal(mine, theirs) if strict else mine == theirs):
                ok = False
                break
        right += ok
    return (1 if right == len(truth) else 0), right / len(truth)


def compare_branch(
    predicted: Mapping[str, list[bool]], truth: Mapping[str, list[bool]]
) -> tuple[int, float]:
    """``compare_branch``: ``(all lines right, fraction of lines right)``."""
    if not truth:
        return 1, 1.0
    right = sum(1 for line, taken in truth.items() if predicted.get(line, []) == taken)
    return (1 if right == len(truth) else 0), right / len(truth)
