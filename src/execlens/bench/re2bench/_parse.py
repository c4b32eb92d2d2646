"""Reading RE2-Bench answers as upstream does (``scripts/prompting/parsing_utils.py``,
``scripts/validators/validate_loop.py`` / ``validate_branch.py``).

* I/O answers (:func:`extract_json_answer`): the text between the **first** ``[OUTPUT]``
  (``[INPUT]`` for input prediction) anywhere in the response -- inside a reasoning
  model's thought too -- and its closing tag (or the end), case-insensitive; the first
  fenced block inside if there is one; the fence lines and ``#`` comments (outside
  double quotes) removed, trailing commas before ``}``/``]`` removed, then
  ``json.loads`` with up to 25 repair passes, each quoting the value (after the nearest
  ``:``) where decoding failed.  Upstream's quirks are kept: a decoding error at the
  very end of the document makes its repair index past the end and raise (recorded as
  no answer, ``repair_index_error``).  What is bounded here and not upstream: the
  answer's length and the repairs' growth (``repair_runaway``: each re-quoting doubles
  the backslashes already quoted, and upstream's loop ran out of memory on such
  answers).  Everything here is string work: nothing is evaluated.
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
#: Longer answers are not parsed (named ``answer_too_long``).
MAX_ANSWER_CHARS = 200_000
#: How far the repair passes may grow the document: each pass re-quotes a span with
#: ``json.dumps``, which doubles every backslash already in it, so on some answers 25
#: passes would grow it 2**25-fold (upstream's loop ran 12+ minutes and 4-9 GB on such
#: released responses and ends, on any real machine, in the MemoryError its
#: ``parse_results.py`` swallows, recording ``{}``).  Successful repairs of the released
#: answers grow it by at most 16 %: past this bound the answer is ``repair_runaway``.
_GROWTH, _GROWTH_SLACK = 4, 4096

#: Why an answer decoded to no JSON (``JsonAnswer.status``).
PARSE_STATUSES = (
    "no_marker",  # no [OUTPUT]/[INPUT] tag
    "unrepaired",  # 25 repair passes (or a pass that changed nothing) left it invalid
    "repair_index_error",  # upstream's repair indexes past the end and raises
    "repair_runaway",  # the repairs grew it past the bound (see _GROWTH)
    "too_deep",  # nested past the decoder's recursion limit
    "decode_error",  # the decoder raised something else (an integer too long to convert)
    "answer_too_long",
)


@dataclass(frozen=True)
class JsonAnswer:
    """An I/O answer: the decoded JSON (``None`` with ``error`` set when none).

    ``status`` names why nothing decoded (one of :data:`PARSE_STATUSES`; ``""`` when it
    did).  Upstream's ``parse_results.py`` records every such answer as ``{}``.
    """

    value: Any
    text: str
    error: str = ""
    repaired: int = 0
    status: str = ""

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
        if "#" not in line:
            lines.append(line)
            continue
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


_MASK_CHARS = re.compile(r'[\\":]')
_SCAN_CHARS = re.compile(r'[\\"{}\[\](),]')


class _PastTheEnd(Exception):
    """Upstream's ``_find_value_bounds`` reads ``mask[len(doc)]`` (an IndexError)."""


def _colon_before(doc: str, position: int) -> int:
    """The nearest ``:`` at or before ``position`` outside double-quoted strings, or -1.

    Upstream's mask: a backslash escapes the next character wherever it is (inside a
    string or not), a ``"`` that is not escaped toggles the string state.  Only the
    characters that matter are visited (a regex finds them), so a pass is linear in C.
    """
    if position >= len(doc):
        raise _PastTheEnd
    quoted, escaped_at, found = False, -1, -1
    for match in _MASK_CHARS.finditer(doc, 0, position + 1):
        index, char = match.start(), match.group()
        if index == escaped_at:  # escaped: toggles nothing, but the mask still counts it
            if char == ":" and not quoted:
                found = index
            continue
        if char == "\\":
            escaped_at = index + 1
        elif char == '"':
            quoted = not quoted
        elif not quoted:
            found = index
    return found


def _value_span(doc: str, position: int) -> tuple[int, int]:
    """The value after the nearest ``:`` before ``position`` (outside strings):
    upstream's ``_find_value_bounds``; ``(position, position)`` when there is none."""
    colon = _colon_before(doc, position)
    if colon < 0:
        return position, position
    start = colon + 1
    while start < len(doc) and doc[start].isspace():
        start += 1
    braces = brackets = parens = 0
    quoted, escaped_at = False, -1
    for match in _SCAN_CHARS.finditer(doc, start):
        index, char = match.start(), match.group()
        if index == escaped_at:
            continue
        if char == "\\":
            if quoted:  # outside a string a backslash is an ordinary character here
                escaped_at = index + 1
        elif char == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif char == "{":
            braces += 1
        elif char == "[":
            brackets += 1
        elif char == "(":
            parens += 1
        elif char == ")":
            parens = max(0, parens - 1)
        elif braces == brackets == parens == 0:  # a closing bracket or a comma, at depth 0
            return start, index
        elif char == "}":
            braces = max(0, braces - 1)
        elif char == "]":
            brackets = max(0, brackets - 1)
    return start, len(doc)


def _block(raw: str, tag: str) -> str | None:
    """The text between the *first* ``[OUTPUT]`` (``[INPUT]``) and its closing tag or the
    end, anywhere in the response -- inside a reasoning model's thought too, as upstream
    reads the whole response; the first fenced block in it, when there is one."""
    name = "OUTPUT" if tag == "output" else "INPUT"
    match = re.search(rf"\[{name}\](.*?)(?:\[/{name}\]|$)", raw, flags=re.DOTALL | re.IGNORECASE)
    if match is None:
        return None
    tail = match.group(1)
    fence = re.search(r"```(.*?)```", tail, flags=re.DOTALL)
    return fence.group(0) if fence else tail.strip()


def extract_json_answer(raw: str, tag: str) -> JsonAnswer:
    """``extract_output_json_easy(raw, tag)``: the answer JSON of an I/O response.

    ``tag`` is ``"output"`` (output prediction) or ``"input"``.  Bounded: an answer over
    :data:`MAX_ANSWER_CHARS` is not read, and the repairs may not grow the document past
    ``_GROWTH`` times its size (each pass is linear), so every answer is decided in well
    under a second and a few times its own size in memory.
    """
    if len(raw) > MAX_ANSWER_CHARS:
        return JsonAnswer(
            None, "", f"answer longer than {MAX_ANSWER_CHARS} characters", status="answer_too_long"
        )
    block = _block(raw, tag)
    if block is None:
        return JsonAnswer(None, "", f"Marker [{tag}] not found.", status="no_marker")
    doc = re.sub(r",(\s*[}\]])", r"\1", _drop_comments(_strip_fences(block)))
    bound = _GROWTH * len(doc) + _GROWTH_SLACK
    last = ""
    for passes in range(_MAX_PASSES):
        try:
            return JsonAnswer(json.loads(doc), doc, repaired=passes)
        except json.JSONDecodeError as exc:
            last = f"{exc.msg} at pos {exc.pos} (line {exc.lineno}, col {exc.colno})"
            try:
                start, end = _value_span(doc, exc.pos)
            except _PastTheEnd:
                return JsonAnswer(
                    None,
                    doc,
                    f"the repair raised IndexError ({last})",
                    passes,
                    status="repair_index_error",
                )
            if start == end:
                break
            fixed = doc[:start] + json.dumps(doc[start:end].strip()) + doc[end:]
            if fixed == doc:
                break
            if len(fixed) > bound:
                return JsonAnswer(
                    None,
                    "",
                    f"the repairs grew the answer past {bound} characters ({last})",
                    passes,
                    status="repair_runaway",
                )
            doc = fixed
        except RecursionError:
            return JsonAnswer(None, doc, "JSON nested too deeply", status="too_deep")
        except ValueError as exc:  # e.g. an integer past int_max_str_digits; upstream raises
            return JsonAnswer(None, doc, f"the decoder raised: {exc}"[:300], passes, "decode_error")
    return JsonAnswer(None, doc, "Could not fully parse. Last error: " + last, status="unrepaired")


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
