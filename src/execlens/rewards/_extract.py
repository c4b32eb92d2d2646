"""Finding the answer in a completion: strict, and saying when there is none.

A completion is read first (:func:`read_completion`, over
:func:`execlens.tasks.prompts.read_response`): a reasoning model's thought -- ``<think>``
tags, a separate ``reasoning_content``, harmony's ``analysis`` channel -- is set apart,
and the answer is looked for in the *final part only*, so a draft inside the thought is
never scored.  A completion with no final part (cut off while thinking, or ending inside
its thought) has no answer: :attr:`Extracted.problem` names why.

In the final part the answer sits inside ``[ANSWER]`` … ``[/ANSWER]`` (the CRUXEval
convention our exported prompts ask for).  When the tags are there, the answer is the text
of the *last* complete pair; an opened but unclosed ``[ANSWER]`` takes the rest of the
text (a generation stopped at ``[/ANSWER]`` never contains it).  Without tags the whole
final part is the answer -- so post-processed benchmark generations (``"'abc'"``,
``"f('abc')"``) judge exactly as the strict scorer judges them.

**No hedging.**  A final part holding two or more *different* answers (``[ANSWER]`` blocks
whose contents differ once parsed: ``[1,2]`` and ``[1, 2]`` are the same answer, ``1`` and
``2`` are not) gets problem ``hedged`` -- otherwise a policy could list candidates and be
judged on the last.  Repeating the *same* answer is fine: models restate their answer,
and nothing is gained by it.  An ``[ANSWER]`` opened and then opened again before any
``[/ANSWER]`` is a mention of the tag in prose, not a block; so is an ``[ANSWER]`` left
open after the last closed block when what follows it is no answer (``[ANSWER]x[/ANSWER]
(I wrapped it in [ANSWER] tags)``).

**Size cap.**  An answer longer than :data:`MAX_ANSWER_CHARS` (the literal parser's own
limit, so no answer it would accept is refused) gets problem ``too_long`` before anything
parses it: a megabyte completion is judged in milliseconds.

Direct (completion-style) prompts end right where the answer goes (``assert f(3) == ``,
as CRUXEval's direct prompts do before their stop sequence); for those,
:func:`first_line` cuts the final part at its first newline -- the stop a generation
server would apply -- and the judge parses that line as strictly as a tagged answer.

A full assertion ``assert A == B`` is reduced as CRUXEval's post-processing intends: for
output prediction ``B``, for input prediction the call ``A``.
Nothing here decides correctness; the judge parses what this returns as data.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from execlens.tasks.kinds import get_kind
from execlens.tasks.prompts import ModelResponse, ReasoningMode, read_response

__all__ = [
    "ANSWER_CLOSE",
    "ANSWER_FORMATS",
    "ANSWER_OPEN",
    "MAX_ANSWER_CHARS",
    "NO_ANSWER_PROBLEMS",
    "Extracted",
    "extract_answer",
    "first_line",
    "read_completion",
    "select_answer_text",
]

#: How a completion carries its answer: inside tags (chat prompts), or as the first line
#: of a completion of a direct prompt.
ANSWER_FORMATS = ("tagged", "first_line")

ANSWER_OPEN = "[ANSWER]"
ANSWER_CLOSE = "[/ANSWER]"

#: The longest answer text parsed (the same limit as ``execlens.values``' literal parser,
#: which refuses anything longer as ``too_long``: capping here changes no verdict, it only
#: stops the assertion reduction and the hedging check from parsing megabytes first).
MAX_ANSWER_CHARS = 200_000

#: Problems meaning the completion gave no answer at all, or gave several: a reward gives
#: them its minimum (:class:`~execlens.rewards.Shaping`).
NO_ANSWER_PROBLEMS = frozenset({"truncated_in_reasoning", "reasoning_only", "hedged"})

# How many different answer blocks the hedging check compares by parsing; more than this
# many different texts is hedging whatever they parse to (and bounds the parsing work).
_MAX_BLOCKS_COMPARED = 4
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# Answers at least this long are read through the literal parser's fast reader (``ast``
# costs ~1 ms per 1,000 characters): its own threshold.
_FAST_FROM = 2_000
_ASSERT = re.compile(r"assert\s+(.*)", re.DOTALL)
_QUOTED = re.compile(r"""('[^'\\\n]*(?:\\.[^'\\\n]*)*'|"[^"\\\n]*(?:\\.[^"\\\n]*)*")""", re.DOTALL)
_REASONING_KEYS = ("reasoning_content", "reasoning", "thinking")


@dataclass(frozen=True, slots=True)
class Extracted:
    """The answer text, whether the completion followed the answer format (tags), and
    ``problem``: why there is no usable answer (``""`` when there is one).

    Problems: ``truncated_in_reasoning`` (cut off while thinking), ``reasoning_only``
    (ended inside its thought, or with an empty final part), ``hedged`` (different
    answers in the final part), ``too_long`` (over :data:`MAX_ANSWER_CHARS`).
    """

    text: str
    tagged: bool
    problem: str = ""

    @property
    def ok(self) -> bool:
        """True when there is an answer to judge."""
        return not self.problem


def _message_parts(message: dict[str, Any]) -> tuple[str, str | None]:
    content = message.get("content")
    reasoning = next(
        (message[k] for k in _REASONING_KEYS if isinstance(message.get(k), str) and message[k]),
        None,
    )
    return ("" if content is None else str(content)), reasoning


def read_completion(
    completion: Any, *, finish_reason: str | None = None, reasoning: ReasoningMode = "auto"
) -> ModelResponse:
    """One completion as a :class:`~execlens.tasks.prompts.ModelResponse`.

    ``completion`` is text (verl's decoded response, TRL's standard completions), a
    message dict, TRL's conversational list of messages (the last assistant message; its
    ``reasoning_content`` / ``reasoning`` / ``thinking`` key, as chat-template response
    parsers fill it, is the thought), or an already read ``ModelResponse`` (returned as
    is).  ``finish_reason="length"`` marks a completion cut by the token limit.
    """
    if isinstance(completion, ModelResponse):
        return completion
    if isinstance(completion, str):
        return read_response(completion, finish_reason=finish_reason, mode=reasoning)
    if isinstance(completion, dict):
        text, thought = _message_parts(completion)
        return read_response(text, reasoning=thought, finish_reason=finish_reason, mode=reasoning)
    if isinstance(completion, Sequence):
        for message in reversed(list(completion)):
            if isinstance(message, dict) and message.get("role", "assistant") == "assistant":
                text, thought = _message_parts(message)
                return read_response(
                    text, reasoning=thought, finish_reason=finish_reason, mode=reasoning
                )
        return read_response("", finish_reason=finish_reason, mode=reasoning)
    raise TypeError(f"a completion is text or a list of messages, got {type(completion).__name__}")


def _source_segment(source: str, node: ast.expr) -> str:
    """``ast.get_source_segment(source, node)``, in linear time.

    The standard one splits the source into lines character by character in Python,
    which takes seconds on a long one-line answer; this finds the line starts with a
    regex (the same line breaks: ``\\r\\n``, ``\\r``, ``\\n``) and converts the UTF-8
    column offsets of the two ends only.
    """
    starts = [0, *(m.end() for m in _LINE_BREAK.finditer(source))]

    def offset(lineno: int, col: int) -> int:
        begin = starts[lineno - 1]
        end = starts[lineno] if lineno < len(starts) else len(source)
        return begin + len(source[begin:end].encode("utf-8")[:col].decode("utf-8"))

    assert node.end_lineno is not None and node.end_col_offset is not None  # parsed source
    return source[
        offset(node.lineno, node.col_offset) : offset(node.end_lineno, node.end_col_offset)
    ]


def _long_assertion(stripped: str, kind: str) -> str | None:
    """The side of a long ``assert A == B`` (see :func:`_strip_assertion`) found without
    ``ast``: split at the one ``==`` outside string literals (a second one, a chained
    comparison, is left to ``ast``).  Where ``ast`` would find a different ``A == B`` --
    an ``==`` nested in ``A`` -- neither side it finds is a literal or a literal call,
    so both readings are judged unparseable; ``None`` for the ``ast`` path."""
    match = _ASSERT.match(stripped)
    if match is None:
        return None
    body = match.group(1)
    at = _first_code_eq(body)
    if at < 0:
        return None
    left, right = body[:at].strip(), body[at + 2 :].strip()
    if not left or not right or _first_code_eq(right) >= 0:
        return None
    return right if _side(kind) == "right" else left


def _first_code_eq(text: str) -> int:
    """Where the first ``==`` outside string literals is in ``text`` (-1: none), found
    with C-level string operations: the code between the strings is searched joined."""
    if "\x01" in text:
        return -1  # the joining mark itself: left to ast
    if "\\" not in text and ('"' not in text or "'" not in text):
        # One kind of quote and no escapes: the strings lie between pairs of quotes.
        parts = text.split("'" if '"' not in text else '"')
        if not len(parts) % 2:
            return -1  # a quote left open
        quotes = 2
    else:
        parts = _QUOTED.split(text)
        quotes = 0
    strings = parts[1::2]
    code = "\x01".join(parts[0::2])
    at = code.find("==")
    if at < 0:
        return -1
    before = code.count("\x01", 0, at)
    return at - before + sum(map(len, strings[:before])) + quotes * before


def _strip_assertion(text: str, kind: str) -> str:
    """``assert A == B`` -> ``B`` (output kinds) or ``A`` (input: the kind's
    ``assertion_side``); anything else unchanged.

    Read with ``ast`` rather than split at the first ``==`` so that an ``==`` inside a
    string argument does not cut the answer; the sides are returned as source text,
    still to be parsed strictly by the judge.  A long one (``_FAST_FROM`` characters) is
    split without ``ast`` when its sides read as a call and a literal.
    """
    stripped = text.strip()
    if not stripped.startswith("assert"):
        return text
    if len(stripped) >= _FAST_FROM:
        fast = _long_assertion(stripped, kind)
        if fast is not None:
            return fast
    try:
        tree = ast.parse(stripped)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text
    if (
        len(tree.body) != 1
        or not isinstance(tree.body[0], ast.Assert)
        or tree.body[0].msg is not None
    ):
        return text
    test = tree.body[0].test
    if (
        not isinstance(test, ast.Compare)
        or len(test.ops) != 1
        or not isinstance(test.ops[0], ast.Eq)
    ):
        return text
    side = test.comparators[0] if _side(kind) == "right" else test.left
    return _source_segment(stripped, side) or text


def _side(kind: str) -> str | None:
    """Which side of ``assert A == B`` a ``kind`` answer is (its kind's
    ``assertion_side``), or None when the kind is not answered that way."""
    try:
        return get_kind("output" if kind == "output_completion" else kind).assertion_side
    except KeyError:
        return None


def _reduced(text: str, kind: str) -> str:
    inner = text.strip()
    if _side(kind) is not None:
        inner = _strip_assertion(inner, kind)
    return inner


def _answer_like(text: str) -> bool:
    """Whether ``text`` reads as an answer (an expression), not prose."""
    if not text:
        return False
    if len(text) >= _FAST_FROM:
        return _long_canonical(text) is not None
    try:
        ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _long_canonical(answer: str) -> str | None:
    """A long answer's canonical form through the literal parser's fast reader (``ast``
    would take a second on 200,000 characters), or ``None`` when it is no literal."""
    from execlens.values import AnswerParseError, literal_fingerprint, parse_literal

    try:
        value = parse_literal(answer)
    except (AnswerParseError, RecursionError, MemoryError):
        return None
    fingerprint = literal_fingerprint(value)
    return None if fingerprint is None else "literal:" + fingerprint.hex()


def _canonical(answer: str) -> str:
    """What two answers are compared by in the hedging check: the parse tree when the
    answer parses as an expression (spacing and quote style do not count), else the text;
    a long literal by its value."""
    if len(answer) >= _FAST_FROM:
        return _long_canonical(answer.strip()) or answer.strip()
    try:
        return ast.dump(ast.parse(answer.strip(), mode="eval"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return answer.strip()


def _hedged(answer: str, others: set[str], kind: str) -> bool:
    others.discard(answer)
    if not others:
        return False
    if len(others) > _MAX_BLOCKS_COMPARED or any(len(o) > MAX_ANSWER_CHARS for o in others):
        return True
    mine = _canonical(answer)
    return any(_canonical(_reduced(other, kind)) != mine for other in others)


def _from_final(final: str, kind: str) -> Extracted:
    """The answer in a final part (see the module docstring)."""
    parts = final.split(ANSWER_OPEN)
    if len(parts) == 1:
        return Extracted(
            final, tagged=False, problem="too_long" if len(final) > MAX_ANSWER_CHARS else ""
        )
    last = parts[-1]
    end = last.find(ANSWER_CLOSE)
    if end < 0 and len(parts) > 2 and not _answer_like(last.strip()):
        if any(ANSWER_CLOSE in part for part in parts[1:-1]):
            # The tag mentioned in prose after the last closed block: not an answer.
            parts = parts[:-1]
            last = parts[-1]
            end = last.find(ANSWER_CLOSE)
    raw = (last if end < 0 else last[:end]).strip()
    if len(raw) > MAX_ANSWER_CHARS:
        return Extracted(raw, tagged=True, problem="too_long")
    # Earlier blocks: an [ANSWER] closed before the next one opens (an unclosed one is the
    # tag mentioned in prose).  Distinct texts only: a repeated answer costs nothing.
    others = {
        part[: part.find(ANSWER_CLOSE)].strip() for part in parts[1:-1] if ANSWER_CLOSE in part
    }
    answer = _reduced(raw, kind)
    others.discard(raw)
    if others and _hedged(answer, others, kind):
        return Extracted(answer, tagged=True, problem="hedged")
    return Extracted(answer, tagged=True)


def extract_answer(
    completion: Any,
    kind: str,
    *,
    answer_format: str = "tagged",
    finish_reason: str | None = None,
    reasoning: ReasoningMode = "auto",
) -> Extracted:
    """The answer of ``completion`` for a task of ``kind``, read from its final part only
    (see the module docstring).  ``completion`` is anything :func:`read_completion`
    reads; ``answer_format`` is one of :data:`ANSWER_FORMATS`."""
    response = read_completion(completion, finish_reason=finish_reason, reasoning=reasoning)
    if not response.answerable:
        return Extracted("", tagged=False, problem=response.status.value)
    return _from_final(select_answer_text(response.final, answer_format), kind)


def first_line(completion: str) -> str:
    """The completion up to its first newline (spaces around it dropped): the answer of a
    direct prompt that ends where the answer goes.  Nothing after the line counts, so
    trailing text can neither help nor hurt; an empty first line is no answer."""
    return completion.split("\n", 1)[0].strip()


def select_answer_text(completion: str, answer_format: str) -> str:
    """The part of ``completion`` holding the answer under ``answer_format`` (one of
    :data:`ANSWER_FORMATS`): the whole text for ``tagged`` (the tags are found later),
    the first line for ``first_line``."""
    if answer_format == "tagged":
        return completion
    if answer_format == "first_line":
        return first_line(completion)
    raise ValueError(f"unknown answer format {answer_format!r}; one of {ANSWER_FORMATS}")
