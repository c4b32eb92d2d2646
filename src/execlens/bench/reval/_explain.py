"""What a reader of a REval failure needs beside the model's answer: the expected answer
written as the model should have written it, the program, the asked line, the lines the
ground-truth run executed and the true value.

Everything comes from the traced truth ``prepare`` returned (no tracing here).  The
expected answer is the *official* truth's (REval's reference tracer) rendered as the
tests' oracle renders it; where the strict truth calls for another answer, both are given
(``expected_by_mode``), since the two modes judge against different traces.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from execlens.values import decode, literal_text

from ._answers import output_answer, path_answer, state_answer

if TYPE_CHECKING:
    from ._data import RevalItem
    from ._records import QuestionTruth
    from ._truth import RevalTruth

__all__ = ["explain_reval", "reval_run_text"]


def reval_run_text(item: RevalItem) -> str:
    """How the pair's program is run: the call (HumanEval) or the test body (ClassEval)."""
    problem, pair = item.problem, item.pair
    text = problem.inputs[pair.input_idx]
    if problem.kind == "humaneval":
        stripped = text.strip()
        # REval's inputs are argument tuples ending in ",)": f(1, 2,) reads as f(1, 2).
        args = stripped[:-2] + ")" if stripped.endswith(",)") else stripped
        return f"{problem.entry_point}{args}"
    return text.rstrip()


def _value_text(envelope: Mapping[str, Any]) -> str:
    """A value as a reader wants it: its literal where it has one, else its type."""
    try:
        text = literal_text(decode(dict(envelope)))
    except (ValueError, TypeError, KeyError):
        text = None
    kind = str(envelope.get("__type__", "?"))
    return f"{text}; {kind}" if text is not None else f"<{kind} without a literal>"


def _line_text(code: str, line: int) -> str:
    lines = code.split("\n")
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _question_answer(task: str, truth: QuestionTruth, code: str, mode: str) -> str:
    if task == "coverage":
        return "YES" if truth.covered else "NO"
    if task == "path":
        return path_answer(truth, code)[0]
    return state_answer(truth, mode)[0]


def _true_value(task: str, truth: QuestionTruth, code: str, line: int, var: str) -> str:
    if task == "coverage":
        return f"line {line} {'ran' if truth.covered else 'never ran'}"
    if task == "path":
        if truth.next_lines == (-1,):
            return "-1: nothing ran after it" if truth.covered else "-1: the line never ran"
        return "; ".join(f"line {n}: {_line_text(code, n)}" for n in truth.next_lines)
    if truth.nil:
        return (
            f"Nil ({var} has no value after line {line}"
            f"{'' if truth.covered else ': the line never ran'})"
        )
    return " | ".join(_value_text(envelope) for envelope in truth.state)


def explain_reval(
    item: RevalItem, task: str, truths: Mapping[str, RevalTruth] | None
) -> dict[str, Any]:
    """The expected answer and the run's facts for one REval question or output item.

    ``truths`` is ``{mode: RevalTruth}`` as ``prepare`` returns it; without it (or without
    this item's truth) only the program and question are given (``expected`` None).
    """
    problem, pair, question = item.problem, item.pair, item.question
    truths = truths or {}
    official, strict = truths.get("official"), truths.get("strict")
    run = reval_run_text(item)
    out: dict[str, Any] = {"expected": None, "program": problem.code, "run": run}
    lines = next(
        (
            t.lines[pair.sample_id]
            for t in (official, strict)
            if t is not None and pair.sample_id in t.lines
        ),
        None,
    )
    if lines is not None:
        out["executed_lines"] = list(lines)
    skipped = next(
        (
            t.skipped[pair.sample_id]
            for t in (official, strict)
            if t is not None and pair.sample_id in t.skipped
        ),
        None,
    )
    if skipped:
        out["note"] = f"no truth: {skipped}"
    if task == "output" or question is None:
        out["question"] = f"complete the assertion ({pair.output_pred.strip()})"
        if strict is not None and pair.sample_id in strict.outputs:
            expected, why = output_answer(item, strict, "strict")
            if why and problem.kind == "classeval":  # the test's own expressions
                expected, why = output_answer(item, strict, "official")
            out["expected"] = expected
            masks = strict.outputs[pair.sample_id].masks
            values = [_value_text(e) for mask in masks for e in mask.hidden[:1]]
            if values:
                out["true_value"] = " | ".join(values)
            if why:
                out["note"] = why
        return out
    line, var = question.lineno, question.var
    out["asked_line"] = line
    out["question"] = {
        "coverage": f"is line {line} executed when {_short(run)} runs?",
        "path": f"which line runs right after line {line} when {_short(run)} runs?",
        "state": f"the value and type of {var} after line {line} when {_short(run)} runs",
    }.get(task, f"line {line}, variable {var}")
    reference = official if official is not None else strict
    truth = reference.questions.get(item.sample_id) if reference is not None else None
    if truth is None or reference is None:  # (no reference has no truth)
        return out
    out["expected"] = _question_answer(task, truth, problem.code, reference.mode)
    out["true_value"] = _true_value(task, truth, problem.code, line, var)
    if truth.note:
        out["note"] = truth.note
    other = strict.questions.get(item.sample_id) if strict is not None else None
    if other is not None and reference is official:
        strict_answer = _question_answer(task, other, problem.code, "strict")
        if strict_answer != out["expected"]:
            out["expected_by_mode"] = {"official": out["expected"], "strict": strict_answer}
    return out


def _short(run: str) -> str:
    """A run named in one line: the call, or "the test" for a ClassEval test body."""
    return run if "\n" not in run and len(run) <= 80 else "the test"
