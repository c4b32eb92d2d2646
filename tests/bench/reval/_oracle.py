"""Scripted REval "models" for checking the scorer (test-only): one answers from the
ground truth, one answers constants.

:func:`reval_oracle_answers` writes, for every question, the answer its truth calls for
(``execlens.bench.reval._answers`` renders each one, as the report's expected answers
do); where no text can be right, the reason is returned beside the answers.
:func:`reval_constant_answers`: NO, Nil, -1 and ``assert False`` everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from execlens.bench.reval._answers import output_answer, path_answer, state_answer

if TYPE_CHECKING:
    from execlens.bench.reval import RevalItem, RevalTruth

Answers = dict[str, dict[str, list[str]]]


def reval_constant_answers(questions: Sequence[RevalItem], outputs: Sequence[RevalItem]) -> Answers:
    """Coverage NO, state Nil, path -1 and an output that fails (``assert False``)."""
    ids = [q.sample_id for q in questions]
    return {
        "coverage": {i: ["NO"] for i in ids},
        "state": {i: ["Nil"] for i in ids},
        "path": {i: ["-1"] for i in ids},
        "output": {o.sample_id: ["assert False"] for o in outputs},
    }


def reval_oracle_answers(
    questions: Sequence[RevalItem],
    outputs: Sequence[RevalItem],
    truth: RevalTruth,
    *,
    output_truth: RevalTruth | None = None,
) -> tuple[Answers, dict[str, str]]:
    """Answers from ``truth`` (its mode decides the rendering); and the unanswerable ids.

    ``output_truth`` is the strict truth, whose recorded output values the output answers
    use (official truth has none; official ClassEval answers use the test's expressions).
    """
    mode = truth.mode
    answers: Answers = {"coverage": {}, "state": {}, "path": {}, "output": {}}
    impossible: dict[str, str] = {}
    for item in questions:
        item_truth = truth.questions.get(item.sample_id)
        if item_truth is None:
            continue
        answers["coverage"][item.sample_id] = ["YES" if item_truth.covered else "NO"]
        state, why = state_answer(item_truth, mode)
        answers["state"][item.sample_id] = [state]
        if why:
            impossible[f"state:{item.sample_id}"] = why
        path, why = path_answer(item_truth, item.problem.code)
        answers["path"][item.sample_id] = [path]
        if why:
            impossible[f"path:{item.sample_id}"] = why
    source = output_truth if output_truth is not None else truth
    for item in outputs:
        if item.pair.sample_id in truth.skipped:
            continue
        text, why = output_answer(item, source, mode)
        answers["output"][item.sample_id] = [text]
        if why:
            impossible[f"output:{item.sample_id}"] = why
    return answers, impossible
