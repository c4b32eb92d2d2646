"""``runtime-tasks`` (optional): coverage / path / state / output / input / trace questions
(and any plug-in kind's) built by the tracer for each collected function and input, as
chat ``messages`` (the CodeReasoner task mix).

Each question is asked with its kind's one wording (``execlens.tasks.kinds.task_prompt``:
the user turn the rewards' exported prompts carry too), and its assistant turn written,
in execlens' one answer format
(``execlens.tasks.prompts``: ``[ANSWER]YES[/ANSWER]``, the next line's number, ``value;
type`` or ``Nil``, a literal, one call) -- the form the runtime benchmark asks and the
rewards score, so SFT on these records and GRPO on execlens rewards teach one thing.  Each
record carries its ``ground_truth`` (``execlens.tasks.Task`` JSON), which the TRL and
verl rewards read as it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from execlens.synth._programs import IMPORT_PREFIX, NUMPY_PREFIX, needs_numpy
from execlens.synth._stage import Stage, register_stage


def _with_input_tasks(tasks: list[Any]) -> list[Any]:
    """Each output task followed by its input-prediction twin (the input kind's
    ``derive``: same run, the answer is the call), when the run returned a value with a
    literal."""
    from execlens.tasks.kinds import get_kind

    derive = get_kind("input").derive
    out = []
    for task in tasks:
        out.append(task)
        twin = derive(task)
        if twin is not None:
            out.append(replace(twin, function="main_solution"))
    return out


class RuntimeTaskSettings(BaseModel):
    """``runtime_tasks:`` -- runtime-behaviour tasks built by the tracer for collected
    functions."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kinds: tuple[str, ...] = ("coverage", "path", "state", "output")
    pairs_per_function: int = Field(default=1, ge=1)
    max_tasks_per_pair: int = Field(default=4, ge=1)

    @field_validator("kinds")
    @classmethod
    def _known(cls, kinds: tuple[str, ...]) -> tuple[str, ...]:
        """Every kind is a registered question kind (plug-ins included)."""
        from execlens.tasks.kinds import kind_names

        known = kind_names()
        unknown = [k for k in kinds if k not in known]
        if unknown:
            raise ValueError(f"unknown question kinds {unknown}; kinds: {', '.join(known)}")
        return kinds


@register_stage
class RuntimeTasksStage(Stage):
    """Trace each kept pair of each function; one record per question."""

    name = "runtime-tasks"
    order = 40
    consumes = "collect"
    reads = "collected"
    writes = "runtime-task"
    settings_model = RuntimeTaskSettings
    dataset = "runtime_tasks"

    def run(
        self, records: list[dict[str, Any]], shard: int, shards: int
    ) -> Iterator[dict[str, Any]]:
        """Yields ``messages`` records ``<function id>/<pair>/<kind>/<k>``."""
        from execlens.tasks import RuntimeProgram, build_tasks
        from execlens.trace import trace_engine

        settings = self.settings
        programs = []
        for record in records:
            code = record["refcode"]
            prefix = IMPORT_PREFIX + (NUMPY_PREFIX if needs_numpy(code) else "")
            for index, pair in enumerate(record["pairs"][: settings.pairs_per_function]):
                args = ", ".join(f"{k}={v!r}" for k, v in pair["input"].items())
                programs.append(
                    RuntimeProgram(
                        source="codeio",
                        problem_id=record["id"],
                        input_index=index,
                        program=prefix + "\n" + code,
                        call=f"main_solution({args})",
                    )
                )
        if not programs:
            return
        from execlens.tasks import build_kind_names
        from execlens.tasks.kinds import task_prompt
        from execlens.tasks.prompts import NoAnswerForm, render_answer

        buildable = build_kind_names()
        traced = [k for k in settings.kinds if k in buildable]
        if "input" in settings.kinds and "output" not in traced:
            traced.append("output")  # the input question is asked about the output's run
        with trace_engine(
            workers=self.context.workers, mount_ro=[str(p) for p in self.config.mount_ro]
        ) as engine:
            tasks = build_tasks(
                programs,
                engine=engine,
                mode="exact",
                selection="balanced",
                kinds=traced,
                seed=self.config.seed,
            )
        if "input" in settings.kinds:
            tasks = _with_input_tasks(tasks)
        per_pair: dict[tuple[str, int, str], int] = {}
        for task in sorted(tasks, key=lambda t: t.id):
            if task.kind not in settings.kinds:
                continue
            try:
                answer = render_answer(task)
                prompt = task_prompt(task)
            except NoAnswerForm:
                self.counters["skipped:no_answer_form"] += 1
                continue
            key = (task.problem_id, task.input_index, task.kind)
            count = per_pair.get(key, 0)
            if count >= settings.max_tasks_per_pair:
                continue
            per_pair[key] = count + 1
            self.counters[f"tasks:{task.kind}"] += 1
            yield {
                "id": f"{task.problem_id}/{task.input_index}/{task.kind}/{count}",
                "function_id": task.problem_id,
                "kind": task.kind,
                "ground_truth": task.to_json(),
                "messages": [
                    {"role": "user", "content": prompt},
                    {"role": "assistant", "content": answer},
                ],
            }
