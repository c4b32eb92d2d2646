"""Answer extraction for REval, as its evaluation.py ``_postprocess`` methods do it.

Common to all four tasks: a CoT response without ``[/THOUGHT]`` counts as unfinished and
gets the task's default (coverage NO, path -2, state/output ERROR); the text after the
first ``[ANSWER]`` is kept and cut before ``[/ANSWER]`` (and before a truncated
``[/ANSWER``, which local models produced when stop strings misfired). Only string work
happens here: state values are not evaluated and output snippets are not run.
"""

from __future__ import annotations

import re

from execlens.tasks.prompts import NIL, Extraction, StateAnswer, apply_stop

__all__ = [
    "extract_reval",
    "extract_reval_coverage",
    "extract_reval_output",
    "extract_reval_path",
    "extract_reval_state",
    "match_path_answer",
    "normalise_state_type",
]

_STOP = ("[/ANSWER]",)


def _check_style(style: str) -> None:
    if style not in ("direct", "cot"):
        raise ValueError(f"REval has no prompt style {style!r} (expected 'direct' or 'cot')")


def _answer_block(text: str, how: list[str]) -> str:
    """REval's shared cut: after the first [ANSWER], before [/ANSWER] and before [/ANSWER."""
    idx = text.find("[ANSWER]")
    if idx != -1:
        text = text[idx + 8 :].strip()
        how.append("after_answer_tag")
    for close in ("[/ANSWER]", "[/ANSWER"):
        idx = text.find(close)
        if idx != -1:
            text = text[:idx].strip()
            how.append("before_close_tag")
    return text


def _stopped(raw: str, stop: bool, how: list[str]) -> str:
    if not stop:
        return raw
    text, found = apply_stop(raw, _STOP)
    if found:
        how.append("cut_at_stop")
    return text


def extract_reval_coverage(raw: str, style: str, *, stop: bool = True) -> Extraction:
    """Coverage: the first three characters, upper-cased, must hold exactly one of YES / NO.

    ``value`` is the official reading (bool); unfinished CoT, empty and ambiguous answers
    read as NO, as REval reads them.
    """
    _check_style(style)
    how: list[str] = []
    text = _stopped(raw, stop, how).upper().strip()
    if style == "cot" and "[/THOUGHT]" not in text:
        return Extraction(
            text="NO", how=(*how, "default_no"), failure="unfinished_cot", value=False
        )
    text = _answer_block(text, how)
    if text == "":
        return Extraction(text="NO", how=(*how, "default_no"), failure="empty", value=False)
    head = text[:3]
    yes, no = "YES" in head, "NO" in head
    if yes == no:
        return Extraction(
            text="NO", how=(*how, "first_3_chars", "default_no"), failure="ambiguous", value=False
        )
    return Extraction(text="YES" if yes else "NO", how=(*how, "first_3_chars"), value=yes)


def match_path_answer(answer: str, code: str) -> list[int]:
    """REval's path matching: each 1-indexed line whose stripped text is ``answer``; [-2] if none.

    ``answer`` ``"-1"`` (the "no next line" answer) and ``""`` (no answer) give [-1] and [-2].
    """
    if answer == "":
        return [-2]
    if answer == "-1":
        return [-1]
    lines = [i + 1 for i, line in enumerate(code.split("\n")) if answer == line.strip()]
    return lines or [-2]


def extract_reval_path(
    raw: str, style: str, *, code: str | None = None, stop: bool = True
) -> Extraction:
    """Path: the answer's first line, matched to lines of ``code`` by exact stripped text.

    ``code`` is the problem's code as stored (without the line numbers HumanEval prompts
    show). ``value`` is the official list of candidate lines ([-1] for "-1", [-2] for no
    match or no answer); ``None`` when ``code`` is not given and the answer is a code line.
    """
    _check_style(style)
    how: list[str] = []
    text = _stopped(raw, stop, how)
    if style == "cot" and "[/THOUGHT]" not in text:
        return Extraction(text="", how=(*how, "default_-2"), failure="unfinished_cot", value=[-2])
    block = _answer_block(text, how)
    text = block.split("\n")[0].strip()
    how.append("first_line")
    if text == "":
        # REval strips only text it found after [ANSWER]: a completion that starts with a newline
        # (the usual continuation of a prompt ending in "[ANSWER]") has an empty first line and
        # reads as -2 even when the next line holds the answer
        failure = "first_line_empty" if block.strip() else "empty"
        return Extraction(text="", how=(*how, "default_-2"), failure=failure, value=[-2])
    if text == "-1":
        return Extraction(text="-1", how=tuple(how), value=[-1])
    if code is None:
        return Extraction(text=text, how=tuple(how))
    lines = match_path_answer(text, code)
    if lines == [-2]:
        return Extraction(
            text=text, how=(*how, "no_matching_line"), failure="no_matching_line", value=[-2]
        )
    return Extraction(text=text, how=(*how, "matched_lines"), value=lines)


def normalise_state_type(type_text: str) -> str:
    """REval's type-name clean-up: lower-case, unwrap ``<class '...'>``, drop generics, aliases."""
    name = type_text.strip().lower()
    match = re.match(r"<class '(.*)'>", name)
    if match:
        name = match.group(1)
    match = re.match(r"(.*)\[.*\]", name)
    if match:
        name = match.group(1)
    if name == "string":
        name = "str"
    if name == "integer":
        name = "int"
    if "," in name or "tuple" in name:
        name = "tuple"
    return name


def extract_reval_state(raw: str, style: str, *, stop: bool = True) -> Extraction:
    """State: ``Nil``, or ``value; type`` split at the last ``;`` (type normalised, value as text).

    ``value`` is :data:`NIL` or a :class:`StateAnswer`; REval's ``ERROR`` (unfinished CoT,
    no ``;``) is a failure with ``value`` None. Evaluating the value text is the judge's job.
    """
    _check_style(style)
    how: list[str] = []
    text = _stopped(raw, stop, how)
    if style == "cot" and "[/THOUGHT]" not in text:
        return Extraction(text="", how=(*how, "error"), failure="unfinished_cot")
    text = (
        text.replace("\u2018", "'")
        .replace("\u2019", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
    )
    text = _answer_block(text.strip(), how)
    if text.capitalize() == "Nil" or text == "[Nil]":
        return Extraction(text=text, how=(*how, "nil"), value=NIL)
    semicolon = text.rfind(";")
    if semicolon == -1:
        return Extraction(
            text=text, how=(*how, "error"), failure="no_semicolon" if text else "empty"
        )
    value_text = text[:semicolon].strip()
    if value_text.capitalize() == "Nil":
        return Extraction(text=text, how=(*how, "split_last_semicolon", "nil"), value=NIL)
    answer = StateAnswer(value=value_text, type=normalise_state_type(text[semicolon + 1 :]))
    return Extraction(text=text, how=(*how, "split_last_semicolon"), value=answer)


def extract_reval_output(
    raw: str, style: str, *, question: str | None = None, stop: bool = True
) -> Extraction:
    """Output: the completed snippet inside the answer tags.

    With ``question`` (the pair's ``output_pred``) ``value`` is REval's phase-2 snippet: an
    answer with fewer lines than the question gets the question's first lines put back in
    front; an unfinished CoT becomes ``assert False``.
    """
    _check_style(style)
    how: list[str] = []
    text = _stopped(raw, stop, how)
    if style == "cot" and "[/THOUGHT]" not in text:
        return Extraction(
            text="",
            how=(*how, "error"),
            failure="unfinished_cot",
            value="assert False" if question is not None else None,
        )
    text = _answer_block(text, how)
    failure = None if text.strip() else "empty"
    value: str | None = None
    if question is not None:
        q_lines = question.strip().split("\n")
        a_lines = text.strip().split("\n")
        if len(a_lines) >= len(q_lines):
            value = text
        else:
            value = "\n".join(q_lines[: len(q_lines) - len(a_lines)] + a_lines)
            how.append("padded_from_question")
    return Extraction(text=text, how=tuple(how), failure=failure, value=value)


def extract_reval(
    raw: str,
    task: str,
    style: str,
    *,
    code: str | None = None,
    question: str | None = None,
    stop: bool = True,
) -> Extraction:
    """Dispatch to the REval extractor of ``task`` (coverage, path, state, output)."""
    if task == "coverage":
        return extract_reval_coverage(raw, style, stop=stop)
    if task == "path":
        return extract_reval_path(raw, style, code=code, stop=stop)
    if task == "state":
        return extract_reval_state(raw, style, stop=stop)
    if task == "output":
        return extract_reval_output(raw, style, question=question, stop=stop)
    raise ValueError(f"REval has no task {task!r} (expected coverage, path, state or output)")
