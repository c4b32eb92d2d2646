"""``runtime-tasks`` (optional): coverage / path / state / output questions built by the
tracer for each collected function and input, as chat ``messages`` (the CodeReasoner
task mix).  The answer is the traced ground truth."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from execlens.synth._programs import IMPORT_PREFIX, NUMPY_PREFIX, needs_numpy
from execlens.synth._stage import Stage, register_stage

_QUESTIONS = {
    "coverage": "Is line {line} (`{code}`) executed when the program runs? Answer true or false.",
    "path": "Which line runs right after line {line} (`{code}`)? Answer with the list of "
            "possible next line numbers (-1 if none).",
    "state": "What is the value of `{var}` right after line {line} (`{code}`) runs?",
    "output": "What does the call return?",
}


def _user_prompt(task: Any) -> str:
    numbered = "\n".join(f"{i:>3} {line}" for i, line in enumerate(task.program.splitlines(), 1))
    question = _QUESTIONS[task.kind].format(line=task.line, code=(task.code_line or "").strip(),
                                            var=task.var)
    return (f"Here is a Python program:\n\n```python\n{numbered}\n```\n\nIt is run with "
            f"`{task.call}`.\n\n{question} Put your final answer in the json format "
            '{"answer": <your answer>}.')


def _answer(task: Any) -> str:
    reference = task.reference
    if task.kind == "state":
        from execlens.values import decode

        reference = repr(decode(reference[0])) if reference else None
    elif task.kind == "output" and isinstance(reference, dict):
        from execlens.values import decode

        value = reference.get("value", reference)
        reference = repr(decode(value)) if isinstance(value, dict) and "__type__" in value \
            else value
    return json.dumps({"answer": reference}, ensure_ascii=False, default=repr)


class RuntimeTaskSettings(BaseModel):
    """``runtime_tasks:`` -- runtime-behaviour tasks built by the tracer for collected
    functions."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kinds: tuple[str, ...] = ("coverage", "path", "state", "output")
    pairs_per_function: int = Field(default=1, ge=1)
    max_tasks_per_pair: int = Field(default=4, ge=1)


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

    def run(self, records: list[dict[str, Any]], shard: int, shards: int
            ) -> Iterator[dict[str, Any]]:
        """Yields ``messages`` records ``<function id>/<pair>/<kind>/<k>``."""
        from execlens.tasks import RuntimeProgram, build_tasks
        from execlens.trace import trace_engine

        settings = self.settings
        programs = []
        for record in records:
            code = record["refcode"]
            prefix = IMPORT_PREFIX + (NUMPY_PREFIX if needs_numpy(code) else "")
            for index, pair in enumerate(record["pairs"][:settings.pairs_per_function]):
                args = ", ".join(f"{k}={v!r}" for k, v in pair["input"].items())
                programs.append(RuntimeProgram(source="codeio", problem_id=record["id"],
                                               input_index=index, program=prefix + "\n" + code,
                                               call=f"main_solution({args})"))
        if not programs:
            return
        with trace_engine(workers=self.context.workers) as engine:
            tasks = build_tasks(programs, engine=engine, mode="exact", selection="balanced",
                                kinds=settings.kinds, seed=self.config.seed)
        per_pair: dict[tuple[str, int, str], int] = {}
        for task in sorted(tasks, key=lambda t: t.id):
            key = (task.problem_id, task.input_index, task.kind)
            count = per_pair.get(key, 0)
            if count >= settings.max_tasks_per_pair:
                continue
            per_pair[key] = count + 1
            self.counters[f"tasks:{task.kind}"] += 1
            yield {"id": f"{task.problem_id}/{task.input_index}/{task.kind}/{count}",
                   "function_id": task.problem_id, "kind": task.kind,
                   "messages": [{"role": "user", "content": _user_prompt(task)},
                                {"role": "assistant", "content": _answer(task)}]}
