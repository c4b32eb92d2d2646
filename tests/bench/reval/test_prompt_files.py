"""Every REval prompt is REval's own file filled by ``str.format``, as evaluation.py does.

All 8 templates (direct/CoT x coverage/path/state/output) x every question of the dataset
(3152 (line, var) questions for coverage/path/state, 690 pairs for output).  The expected
text is built here from the upstream files in ``../shared/data/reval/prompts/`` and the
format fields evaluation.py passes, computed independently of the renderer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from execlens.bench.reval import (
    REVAL_PROMPT_FILES,
    RevalItem,
    load_reval,
    reval_pairs,
    reval_prompt_template,
    reval_questions,
)

_HOOK = "Hook method for setting up the test fixture"
_TEST_CODE = "\n# Test code starts here. Only write the completed test code in your answer.\n"


@pytest.fixture(scope="module")
def upstream(data_dir: Path) -> dict[tuple[str, str], str]:
    folder = data_dir / "reval" / "prompts"
    if not folder.is_dir():
        pytest.skip(f"REval's prompt files not found in {folder}")
    return {
        key: (folder / name).read_text(encoding="utf-8") for key, name in REVAL_PROMPT_FILES.items()
    }


@pytest.fixture(scope="module")
def problems(data_dir: Path) -> list:
    loaded = load_reval(data_dir / "reval")
    loaded.raise_for_errors()
    return loaded.records


def _setup(item: RevalItem, first_commented: bool) -> str:
    """evaluation.py's comment block for the test class's setUp ("" for unittest's own)."""
    setup = item.problem.setups[item.pair.input_idx]
    if not setup:
        return ""
    block = (
        "\n# setup code executed previously\n"
        + ("# " if first_commented else "")
        + "\n# ".join(setup.split("\n")[1:])
    )
    return "" if _HOOK in block else block


def _fields(item: RevalItem, task: str) -> dict[str, object]:
    problem, pair = item.problem, item.pair
    text = problem.inputs[pair.input_idx]
    if task == "output":
        if problem.kind == "humaneval":
            return {"code": problem.code, "invocation": "\n" + pair.output_pred}
        return {
            "code": problem.code,
            "invocation": _setup(item, True) + _TEST_CODE + pair.output_pred,
        }
    question = item.question
    assert question is not None
    if problem.kind == "humaneval":
        invocation = abbr = problem.entry_point + text[:-2] + ")"
    else:
        invocation = _setup(item, task == "path") + "\n" + text.rstrip()
        abbr = "the above test code"
    code = problem.code
    if task == "path" and problem.kind == "humaneval":
        code = "".join(f"{n}\t{line}\n" for n, line in enumerate(problem.code.split("\n"), 1))
    return {
        "code": code,
        "invocation": invocation,
        "invocation_abbr": abbr,
        "line": question.lineno,
        "codeline": problem.code.split("\n")[question.lineno - 1],
        "var": question.var,
    }


def test_packaged_templates_are_the_upstream_files(upstream: dict) -> None:
    assert len(upstream) == 8
    for (style, task), text in upstream.items():
        assert reval_prompt_template(style, task) == text, (style, task)


@pytest.mark.parametrize(("style", "task"), sorted(REVAL_PROMPT_FILES))
def test_every_question_renders_as_reval_formats_it(
    style: str, task: str, upstream: dict, problems: list
) -> None:
    items = reval_pairs(problems) if task == "output" else reval_questions(problems)
    assert len(items) == (690 if task == "output" else 3152)
    template = upstream[(style, task)]
    mismatched = [
        item.sample_id
        for item in items
        if item.render(task, style).text != template.format(**_fields(item, task))
    ]
    assert not mismatched, mismatched[:5]
