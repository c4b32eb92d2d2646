"""Reading RE2-Bench answers as upstream does (``scripts/prompting/parsing_utils.py``,
``scripts/validators/validate_loop.py`` / ``validate_branch.py``).

* I/O answers (:func:`extract_json_answer`): the text between ``[OUTPUT]`` (``[INPUT]`` for
  input prediction) and its closing tag (or the end), case-insensitive; the first fenced
  block inside if there is one; the fence lines and ``#`` comments (outside double
  quotes) removed, trailing commas before ``}``/``]`` removed, then ``json.loads`` with up
  to 25 repair passes, each quoting the value (after the nearest ``:``) where decoding
  failed.  Everything here is string work: nothing is evaluated.
* Loop answers (:func:`parse_loop_answer`): the ``[ANSWER]`` block; each line
  ``<line> ... [STATE]var=value[/STATE] ...``, values read with ``ast.literal_eval``
  (which runs no code), else kept as the text.
* Branch answers (:func:`parse_branch_answer`): lines ``<line> ... ## [BRANCH]taken=[Y, N]
  [/BRANCH]``; ``Y``/``N`` (quotes stripped, any case) become booleans, other tokens are
  dropped (upstream's rule; strict refuses them).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["JsonAnswer", "extract_json_answer", "parse_branch_answer", "parse_loop_answer"]

_MAX_PASSES = 25
#: Longer answers are not parsed (the repair loop is quadratic in the text's length).
MAX_ANSWER_CHARS = 200_000


@dataclass(frozen=True)
class JsonAnswer:
    """An I/O answer: the decoded JSON (``None`` with ``error`` set when none)."""

    value: Any
    text: str
    error: str = ""
    repaired: int = 0

    @property
    def ok(self) -> bool:
        """Whether a JSON value was decoded."""
        return not self.error


def _strip_fences(text: str) -> str:
    text = text.strip()
    if text.startswith("```"):
        text = "\n".join(text.splitlines()[1:])
        if text.rstrip().endswith("```"):
            text = "\n".join(text.splitlines()[:-1])
    return text.strip()


def _drop_comments(text: str) -> str:
    """``#`` to the end of a line, except inside double-quoted strings."""
    lines = []
    for line in text.splitlines():
        kept, quoted, escaped = [], False, False
        for char in line:
            if escaped:
                kept.append(char)
                escaped = False
                continue
            if char == "\\":
                kept.append(char)
                escaped = True
                continue
            if char == '"':
                quoted = not quoted
            elif char == "#" and not quoted:
                break
            kept.append(char)
        lines.append("".join(kept))
    return "\n".join(lines)


def _outside_strings(doc: str) -> list[bool]:
    mask, quoted, escaped = [True] * len(doc), False, False
    for i, char in enumerate(doc):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        mask[i] = not quoted
    return mask


def _value_span(doc: str, position: int) -> tuple[int, int]:
    """The value after the nearest ``:`` before ``position`` (outside strings)."""
    mask = _outside_strings(doc)
    i = min(position, len(doc) - 1)
    while i >= 0 and not (mask[i] and doc[i] == ":"):
        i -= 1
    if i < 0:
        return position, position
    start = i + 1
    while start < len(doc) and doc[start].isspace():
        start += 1
    braces = brackets = parens = 0
    quoted = escaped = False
    j = start
    while j < len(doc):
        char = doc[j]
        if escaped:
            escaped = False
        elif char == "\\" and quoted:
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif not quoted:
            if char == "{":
                braces += 1
            elif char == "}":
                if braces == brackets == parens == 0:
                    break
                braces = max(0, braces - 1)
            elif char == "[":
                brackets += 1
            elif char == "]":
                if braces == brackets == parens == 0:
                    break
                brackets = max(0, brackets - 1)
            elif char == "(":
                parens += 1
            elif char == ")":
                parens = max(0, parens - 1)
            elif char == "," and braces == brackets == parens == 0:
                break
        j += 1
    return start, j


def _block(raw: str, tag: str) -> str | None:
    name = "OUTPUT" if tag == "output" else "INPUT"
    match = re.search(rf"\[{name}\](.*?)(?:\[/{name}\]|$)", raw, flags=re.DOTALL | re.IGNORECASE)
    if match is None:
        return None
    tail = match.group(1)
    fence = re.search(r"```(.*?)```", tail, flags=re.DOTALL)
    return fence.group(0) if fence else tail.strip()


def extract_json_answer(raw: str, tag: str) -> JsonAnswer:
    """``extract_output_json_easy(raw, tag)``: the answer JSON of an I/O response.

    ``tag`` is ``"output"`` (output prediction) or ``"input"``.
    """
    if len(raw) > MAX_ANSWER_CHARS:
        return JsonAnswer(None, "", f"answer longer than {MAX_ANSWER_CHARS} characters")
    block = _block(raw, tag)
    if block is None:
        return JsonAnswer(None, "", f"Marker [{tag}] not found.")
    doc = re.sub(r",(\s*[}\]])", r"\1", _drop_comments(_strip_fences(block)))
    last = ""
    for passes in range(_MAX_PASSES):
        try:
            return JsonAnswer(json.loads(doc), doc, repaired=passes)
        except json.JSONDecodeError as exc:
            last = f"{exc.msg} at pos {exc.pos} (line {exc.lineno}, col {exc.colno})"
            start, end = _value_span(doc, exc.pos)
            if start == end:
                break
            fixed = doc[:start] + json.dumps(doc[start:end].strip()) + doc[end:]
            if fixed == doc:
                break
            doc = fixed
        except RecursionError:
            return JsonAnswer(None, doc, "JSON nested too deeply")
    return JsonAnswer(None, doc, "Could not fully parse. Last error: " + last)


def _answer_block(raw: str) -> str | None:
    match = re.search(r"\[ANSWER\](.*?)\[/ANSWER\]", raw, re.DOTALL)
    if match is None:
        match = re.search(r"\[ANSWER\](.*)", raw, re.DOTALL)
    return None if match is None else match.group(1)


_STATE = re.compile(r"\[STATE\](.+?)=(.+?)\[/STATE\]")
_BRANCH = re.compile(r"^(\d+)\s+.*##\s*\[BRANCH\]taken=\[(.*?)\]\[/BRANCH\]")


@dataclass
class LoopAnswer:
    """``{line: {variable: value}}`` as upstream reads it, and the values it kept as text."""

    states: dict[str, dict[str, Any]] = field(default_factory=dict)
    unparsed: list[str] = field(default_factory=list)
    found: bool = False


def parse_loop_answer(raw: str) -> LoopAnswer:
    """``parse_loop``: per answer line, its ``[STATE]var=value[/STATE]`` pairs."""
    out = LoopAnswer()
    if len(raw) > MAX_ANSWER_CHARS:
        return out
    block = _answer_block(raw)
    if block is None:
        return out
    out.found = True
    for line in block.strip().split("\n"):
        line = line.strip()
        if not line:
            continue
        number = line.split(" ", 1)[0]
        states = {}
        for name, text in _STATE.findall(line):
            try:
                # Upstream's reader (Ellipsis and all), not values.parse_literal.
                states[name] = ast.literal_eval(text)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                states[name] = text
                out.unparsed.append(f"{number}:{name}")
        if states:
            out.states[number] = states
    return out


@dataclass
class BranchAnswer:
    """``{line: [taken, ...]}`` as upstream reads it, and the tokens it dropped."""

    taken: dict[str, list[bool]] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    found: bool = False


def parse_branch_answer(raw: str) -> BranchAnswer:
    """``parse_branch``: per annotated line, its list of ``Y``/``N`` decisions."""
    out = BranchAnswer()
    if len(raw) > MAX_ANSWER_CHARS:
        return out
    block = _answer_block(raw)
    if block is None:
        return out
    out.found = True
    for line in block.split("\n"):
        match = _BRANCH.search(line)
        if match is None:
            continue
        decisions = []
        for token in (v.strip().strip("'\"") for v in match.group(2).split(",")):
            if token.upper() == "Y":
                decisions.append(True)
            elif token.upper() == "N":
                decisions.append(False)
            else:
                out.dropped.append(f"{match.group(1)}:{token}")
        if decisions:
            out.taken[match.group(1)] = decisions
    return out
