"""The question-kind registry and the built-in kinds' contracts (``execlens.tasks.kinds``)."""

from __future__ import annotations

import pytest

from execlens.judge import judge_task
from execlens.tasks import QUESTION_KINDS, Task, TaskError
from execlens.tasks.kinds import (
    KindBase,
    QuestionKind,
    get_kind,
    kind_names,
    register_kind,
    task_prompt,
)
from execlens.tasks.prompts import render_answer


def _example_task(name: str) -> Task:
    kind = get_kind(name)
    example = kind.example
    assert example is not None, name
    return Task(
        kind=name,
        program=example.program,
        call=example.call,
        reference=example.reference,
        line=example.line,
        var=example.var,
    )


def test_the_built_in_kinds_come_first_in_their_order() -> None:
    assert kind_names()[: len(QUESTION_KINDS)] == QUESTION_KINDS
    assert all(isinstance(get_kind(name), QuestionKind) for name in QUESTION_KINDS)


def test_an_unknown_kind_is_named_with_the_known_ones() -> None:
    with pytest.raises(KeyError, match="unknown question kind 'coverge'.*coverage"):
        get_kind("coverge")
    with pytest.raises(TaskError, match="unknown task kind 'coverge'"):
        Task(kind="coverge", program="x = 1", reference=True, line=1)


def test_a_second_kind_of_a_taken_name_is_refused() -> None:
    class Other(KindBase):
        name = "coverage"

    with pytest.raises(ValueError, match="registered already"):
        register_kind(Other())
    with pytest.raises(TypeError, match="not a QuestionKind"):
        register_kind(object())  # type: ignore[arg-type]


@pytest.mark.parametrize("name", [k for k in QUESTION_KINDS if k != "input"])
def test_each_worked_example_is_answered_in_its_kind_s_form_and_passes_its_judge(
    name: str,
) -> None:
    # The runtime benchmark shows this example; its answer is what the kind renders
    # for the example's reference, and the kind's judge rule passes it.
    task = _example_task(name)
    kind = get_kind(name)
    assert kind.answer_text(task) == kind.example.answer  # type: ignore[union-attr]
    assert render_answer(task) == f"[ANSWER]{kind.example.answer}[/ANSWER]"  # type: ignore[union-attr]
    assert judge_task(task, kind.example.answer).passed  # type: ignore[union-attr]
    assert not judge_task(task, "Nil" if name != "state" else "2; int").passed


@pytest.mark.parametrize("name", QUESTION_KINDS)
def test_the_prompt_shows_the_program_as_the_kind_does_and_asks_its_question(name: str) -> None:
    task = _example_task(name)
    kind = get_kind(name)
    prompt = task_prompt(task)
    assert f"```python\n{kind.show_program(task)}\n```\n{kind.question(task)} " in prompt
    assert prompt.endswith("[/ANSWER].")
    numbered = kind.numbering != "plain"
    assert (task.program in prompt) is not numbered


def test_line_kinds_need_their_line() -> None:
    for name in ("coverage", "path", "state"):
        with pytest.raises(TaskError, match="needs its line"):
            Task(kind=name, program="x = 1", call="f()", reference=True)
