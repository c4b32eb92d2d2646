"""RE2-Bench's question kinds: its four tasks as kinds this folder adds (issue 24).

Importing the folder registers ``re2bench_output``, ``re2bench_input``, ``re2bench_loop``
and ``re2bench_branch`` with the kind registry (``execlens.tasks.kinds``), as a plug-in
registers its kinds; their scope is ``given`` (the truth comes with the checkout's
records, never from a trace).  The folder's strict mode is then the core's
``judge.TaskScorer`` over :func:`re2_task`'s tasks: each kind's judge rule is the strict
reading below.

**Strict** reads the final part of a response only (a thought's drafts are never the
answer) and fails an answer that does not decode, by name.  Answers are JSON documents
(``{"output": ...}``, ``{"self", "args", "kwargs"}``, a stdin program's ``{"input":
...}``) compared leaf by leaf, type-strictly (:func:`~._compare.strict_score`): no prefix
credit, no evaluation.  Every verdict carries the problem's partial score, in its reason
(``partial=0.6667``, what ``partial_rs`` averages) and as ``step_credit`` (the kinds'
``partial_credit``).

**Input prediction**: a miss whose answer has the ``{"self", "args", "kwargs"}`` shape
is re-executed in the engine (arguments passed as value envelopes, never as code) and
accepted iff the function's *return value* equals the recorded return type-strictly
(tuples read as lists: the records are JSON).  A stdin program's printed text must
equal the recorded output.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from execlens.engine import Job
from execlens.judge import JudgePlan, Verdict, VerdictStatus, failure_verdict
from execlens.tasks import Task
from execlens.tasks.kinds import KindBase, Scope, register_kind
from execlens.tasks.prompts import Extraction, final_of_whole
from execlens.values import strict_equal

from ._compare import as_lists, compare_branch, compare_loop, strict_score
from ._data import TASKS
from ._parse import extract_json_answer, parse_branch_answer, parse_loop_answer
from ._score import RERUN_LIMITS

if TYPE_CHECKING:
    from execlens.engine import Outcome

    from ._data import RE2Item

__all__ = ["KINDS", "RE2Kind", "re2_task"]

_CALLER = "__execlens_re2_call__"
_FORMS = {
    "output": ('the JSON document {"output": <value>} in [OUTPUT] tags', '{"output": 1}'),
    "input": (
        'the JSON document {"self": ..., "args": ..., "kwargs": ...} in [INPUT] tags',
        '{"self": {}, "args": {"x": 1}, "kwargs": {}}',
    ),
    "loop": ("each loop variable's values, as [STATE]var=[...][/STATE] per loop line", ""),
    "branch": ("each branch's decisions, as [BRANCH]taken=[Y, N][/BRANCH] per line", ""),
}


def _verdict(rs: int, partial: float) -> Verdict:
    """Strict's verdict: passed, or wrong with the partial score (reason and credit)."""
    if rs:
        return Verdict.passing(step_credit=1.0)
    return Verdict.failing(
        VerdictStatus.WRONG, f"partial={partial:.4f}", step_credit=round(partial, 4)
    )


def _caller(name: str, class_name: str | None) -> str:
    """A function defined after the code that calls the problem's function (or method)."""
    if class_name:
        target = (
            f"    obj = object.__new__({class_name})\n"
            f"    obj.__dict__.update(self_values)\n"
            f"    target = getattr(obj, {name!r})\n"
        )
    else:
        target = f"    target = {name}\n"
    return (
        f"\n\ndef {_CALLER}(self_values, args, kwargs):\n{target}"
        "    return target(**args, **kwargs)\n"
    )


def _stdin_form(value: Any) -> bool:
    return isinstance(value, dict) and "input" in value


def _call_form(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("args", {}), dict)
        and isinstance(value.get("kwargs", {}), dict)
        and isinstance(value.get("self", {}), dict)
    )


def re2_task(item: RE2Item) -> Task:
    """The task an RE2-Bench problem asks, of its task's kind (``re2bench_<task>``).

    ``reference``: the recorded return (output), ``{"inputs", "output"}`` (input) or the
    loop / branch truth; ``program`` the code a miss is re-executed with (``""`` and
    ``meta["has_code"]`` false when the checkout lacks it); ``function`` the called
    function; the upstream prompt is the question (``meta["prompt"]``)."""
    if item.task == "output":
        reference: Any = item.output
    elif item.task == "input":
        reference = {"inputs": item.inputs, "output": item.output}
    else:
        reference = item.truth
    return Task(
        kind=f"re2bench_{item.task}",
        program=item.code or "",
        reference=reference,
        function=item.name,
        id=item.sample_id,
        source="re2bench",
        problem_id=item.problem_id,
        meta={
            "difficulty": item.difficulty,
            "benchmark": item.benchmark,
            "class_name": item.class_name,
            "has_code": item.code is not None,
            "prompt": item.prompt,
        },
    )


class RE2Kind(KindBase):
    """One RE2-Bench task as a question kind; :meth:`judge` is its judge rule."""

    scope: Scope = "given"
    partial_credit = True
    max_tokens = (8192, 8192)

    def __init__(self, task: str) -> None:
        self.task = task
        self.name = f"re2bench_{task}"
        self.answer_form = _FORMS[task]
        self.description = f"RE2-Bench {task} prediction (the benchmark's own kind)"
        self.judge_rule = self.judge

    def question(self, task: Task) -> str:
        """Upstream's rendered prompt (its file, as the benchmark shows it)."""
        return str(task.meta.get("prompt") or f"What is the {self.task} of this code?")

    def answer_text(self, task: Task) -> str:
        """The recorded truth as the answer's document."""
        reference = task.reference
        if self.task == "output":
            return f"[OUTPUT]\n{json.dumps({'output': reference})}\n[/OUTPUT]"
        if self.task == "input":
            return f"[INPUT]\n{json.dumps(reference['inputs'])}\n[/INPUT]"
        return json.dumps(reference, default=repr)

    def read_answer(self, block: str, how: list[str]) -> Extraction:
        """The block as it is (the judge reads its tags and JSON)."""
        return Extraction(block.strip(), (*how, "the block as it is"))

    def well_formed(self, task: Task, answer: str) -> bool:
        """The answer's document decodes (I/O) or its block is there (loop, branch)."""
        if self.task in ("output", "input"):
            return extract_json_answer(answer, self.task).ok
        if self.task == "loop":
            return parse_loop_answer(answer).found
        return parse_branch_answer(answer).found

    def explain(self, task: Task, run: str) -> Mapping[str, Any]:
        """The recorded truth beside a failed answer."""
        truth = task.reference["inputs"] if self.task == "input" else task.reference
        expected = json.dumps(truth, default=repr)[:2000]
        return {"question": self.question(task), "expected": expected, "true_value": expected}

    def judge(self, task: Task, answer: Any) -> JudgePlan | Verdict:
        """The strict verdict of ``answer`` (a whole response: its final part is read);
        an input miss becomes a plan re-executing it."""
        raw = final_of_whole(str(answer))
        if self.task == "loop":
            loop = parse_loop_answer(raw)
            if not loop.found:
                return _no_block()
            return _verdict(*compare_loop(loop.states, task.reference, strict=True))
        if self.task == "branch":
            branch = parse_branch_answer(raw)
            if not branch.found:
                return _no_block()
            bad = {entry.split(":", 1)[0] for entry in branch.dropped}
            # a line with a token other than Y/N is wrong here (upstream drops the token)
            taken = {line: values for line, values in branch.taken.items() if line not in bad}
            return _verdict(*compare_branch(taken, task.reference))
        read = extract_json_answer(raw, self.task)
        if not read.ok:
            return Verdict.failing(VerdictStatus.UNPARSEABLE, read.status, read.error[:300])
        predicted = read.value
        if self.task == "output":
            if isinstance(predicted, dict) and list(predicted) == ["output"]:
                predicted = predicted["output"]
            return _verdict(*strict_score(predicted, task.reference))
        return _input_plan(task, predicted)


def _no_block() -> Verdict:
    return Verdict.failing(VerdictStatus.UNPARSEABLE, "no_answer_block", "no [ANSWER] block")


def _input_plan(task: Task, predicted: Any) -> JudgePlan | Verdict:
    """The leaf compare; a miss re-executed for its return value (or printed text)."""
    inputs, output = task.reference["inputs"], task.reference["output"]
    rs, partial = strict_score(predicted, inputs)
    first = _verdict(rs, partial)
    if rs or not task.meta.get("has_code"):
        return first
    if _stdin_form(inputs):
        given = predicted.get("input") if isinstance(predicted, dict) else None
        if not isinstance(given, str) or not isinstance(output, str):
            return first
        job = Job(program=task.program, stdin=given, limits=RERUN_LIMITS)
    elif not task.function or not _call_form(predicted):
        return first
    else:
        job = Job(
            program=task.program + _caller(task.function, task.meta.get("class_name")),
            entry_point=_CALLER,
            args=(
                predicted.get("self", {}),
                predicted.get("args", {}),
                predicted.get("kwargs", {}),
            ),
            limits=RERUN_LIMITS,
            hash_seed=0,
        )

    def finish(outcomes: Sequence[Outcome]) -> Verdict:
        return _rerun_verdict(outcomes[0], inputs, output, first)

    return JudgePlan([job], finish)


def _rerun_verdict(outcome: Outcome, inputs: Any, output: Any, first: Verdict) -> Verdict:
    if not outcome.ok:
        failed = failure_verdict(outcome)
        return Verdict.failing(failed.status, first.reason, failed.detail, **first.data)
    if _stdin_form(inputs):
        if outcome.stdout.strip() == str(output).strip():
            return Verdict.passing("re-executed: prints the recorded output", step_credit=1.0)
        return first
    try:
        value = outcome.decoded()
    except Exception:  # noqa: BLE001 - an undecodable envelope is not a match
        return first
    if strict_equal(as_lists(value), output):
        return Verdict.passing("re-executed: returns the recorded output", step_credit=1.0)
    return first


#: The folder's kinds, registered when the folder is imported.
KINDS = {task: register_kind(RE2Kind(task)) for task in TASKS}
