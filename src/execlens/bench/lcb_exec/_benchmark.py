"""LiveCodeBench code execution's declaration: one task, CRUXEval-shaped scoring."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from execlens.bench import (
    Generations,
    PerturbTarget,
    ProblemScorer,
    SampleBenchmark,
    TaskSpec,
    dataset_records,
    match_generations,
    read_generations_json,
)
from execlens.judge import Scorer, StrictScorer
from execlens.tasks import Task
from execlens.tasks.prompts import Extraction, RenderedPrompt

from ._data import load_lcb_exec
from ._extract import extract_lcb
from ._generations import (
    lcb_question,
    lcb_task,
    load_lcb_generations,
    load_lcb_problems,
)
from ._official import LCB_PRELUDE, LCBOfficialScorer

__all__ = ["BENCHMARK", "LCBExec"]


class LCBExec(SampleBenchmark[Any]):
    """LiveCodeBench code execution (``livecodebench/execution-v2``): predict the output."""

    name = "lcb-exec"
    description = "LiveCodeBench code execution: predict the output of a full call"
    tasks: Mapping[str, TaskSpec] = {
        "output": TaskSpec("output", ("direct", "cot"), "predict the output of <input call>"),
    }
    modes = ("official", "strict")
    scores_raw = False
    # Its checks import these; servers that preload pandas are slow to start: fewer.
    preload: tuple[str, ...] = ("numpy", "pandas", "random", "string", "sys")
    scoring_workers = 8
    eval_files: tuple[str, ...] = ("lcb*/*.jsonl",)
    """Where its programs sit in an evaluation-data folder (``export`` decontaminates)."""

    def load(self, data: str | None) -> list[Any]:
        """The execution-v2 rows in LiveCodeBench's order; malformed records stop the run."""
        return dataset_records(load_lcb_exec(data))

    def render(self, item: Any, task: str, style: str) -> RenderedPrompt:
        """The official prompt."""
        return item.render(style)

    def extract(self, raw: str, item: Any, task: str, style: str, flavor: str) -> Extraction:
        """The text LiveCodeBench's extraction hands to the scorer."""
        return extract_lcb(raw, style)

    def scorers(self, task: str, style: str, context: Any) -> dict[str, Scorer[Any]]:
        """LiveCodeBench's official scorer and strict output prediction."""
        return {
            "official": ProblemScorer(LCBOfficialScorer(), lcb_task),
            "strict": ProblemScorer(StrictScorer("output"), lcb_task),
        }

    def explain(self, item: Any, task: str, context: Any) -> dict[str, Any] | None:
        """The reference output literal (what the official extraction should read)."""
        return {
            "expected": item.output,
            "program": item.code,
            "true_value": item.output,
            "question": f"the output of {item.input}",
        }

    def question_task(self, record: Mapping[str, Any]) -> Task | None:
        """The output-prediction task one row of execution-v2's shape asks (``export``):
        its code without the import block, as the row has it; ``None`` for a row whose
        input is not a call of its ``function_name``."""
        return lcb_question(record)

    def perturb_target(self, item: Any, task: str) -> PerturbTarget:
        """``--perturb``: the code is rewritten (after the import block, which stays);
        the call of ``input`` (keyword names protected) must return the same."""
        return PerturbTarget(
            item.code, (item.input,), lambda code: replace(item, code=code), prelude=LCB_PRELUDE
        )

    def read_generations(self, path: Path, data: str | None, task: str | None) -> Generations:
        """LiveCodeBench's output list (problems embedded; its ``pred_list`` holds answers
        the official runner extracted) or ``{id: [response, ...]}`` (read as eval reads
        a reply; a bare one-line answer reads as itself)."""
        answers, embedded = load_lcb_generations(path)
        official_list = isinstance(read_generations_json(Path(path)), list)
        problems = load_lcb_problems(data) if data is not None or embedded is None else embedded
        return Generations(
            task="output",
            items=match_generations(problems, answers, str(path)),
            notes={
                "official_task": "output",
                "note": "LiveCodeBench reports pass@1 only; pass@5 here "
                "applies the same estimator to its lists",
            },
            responses=not official_list,
            prompted=False,  # problems, not prompts: the extraction cuts at [/ANSWER]
        )

    def references(self) -> Sequence[Any]:
        """None published in a form we can reproduce offline."""
        return ()


BENCHMARK = LCBExec()
