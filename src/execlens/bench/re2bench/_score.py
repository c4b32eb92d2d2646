"""RE2-Bench's ``official`` scorer (upstream's validators); ``strict`` is the core's
``judge.TaskScorer`` over the folder's question kinds (``_kinds``).

Every verdict's reason carries the problem's partial score (``partial=0.6667``) so the
metrics can average ``partial_rs`` from the sample records; a passing verdict's partial
score is 1.

**Official reading** (``parse_results.py`` then the validators): the *whole* response is
read -- the first ``[OUTPUT]``/``[INPUT]`` anywhere, a reasoning model's thought included
(the generations file's texts reach the scorer through the generations context) -- and
the prediction is what ``parse_results.py`` records: the decoded JSON, or ``{}`` when
nothing decoded (no tag, an unrepairable document, a repair that indexes past the end or
runs away) *or* it decoded to ``null``; ``{}`` is then compared like any prediction (it
scores against a ``None`` truth as a type mismatch).  The reason names why nothing
decoded (``no_marker,partial=0.0000``).

**Official input prediction**, when ``rs == 0`` (``detect_false_negative_cases.py``):
the code is re-executed on the predicted input -- here in the engine, never in the host
-- and the answer accepted (``rs = partial_rs = 1``) if what it *prints* equals
``str(ground truth output)`` (stripped) and the predicted input differs from the truth.
A function is called as upstream writes the call (``print(f(a="x",b=[1, 2],))``); a
program reading stdin (every Avatar problem, or an ``"input"`` key) gets the predicted
``"input"`` (else a newline) on stdin, and is never accepted when that text is
``str(recorded input)`` -- so an exactly right Avatar answer scores 0, as upstream's.
Deviations, all named in the verdict: a method's object is built with
``object.__new__`` and its recorded attributes (upstream's ``constructor.py`` is not
reproduced); SWE-bench and Real problems are not re-executed (upstream runs them in its
own SWE-bench harness), nor are problems whose code file the checkout lacks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from execlens.engine import Job, Limits
from execlens.judge import SampleScore, ScorePlan, Verdict, VerdictStatus

from ._compare import compare_branch, compare_loop, deserialize, official_score
from ._parse import JsonAnswer, extract_json_answer, parse_branch_answer, parse_loop_answer

if TYPE_CHECKING:
    from execlens.engine import Outcome

    from ._data import RE2Item

__all__ = ["RERUN_LIMITS", "OfficialScorer", "official_prediction", "partial_of"]

#: detect_false_negative_cases.py's 15 s timeout.
RERUN_LIMITS = Limits(wall_time=15.0, memory_mb=1024, output_bytes=1024 * 1024)


def _verdict(rs: int, partial: float, reason: str = "partial") -> Verdict:
    if rs:
        return Verdict.passing()
    return Verdict.failing(VerdictStatus.WRONG, f"{reason}={partial:.4f}")


def _exited_zero(outcome: Outcome) -> bool:
    """Whether the process would have exited with status 0 (``sys.exit()`` too)."""
    exc = outcome.exception
    return outcome.ok or (
        exc is not None and exc.type == "SystemExit" and exc.message in ("", "None", "0")
    )


def partial_of(label: str) -> float:
    """The partial score a verdict label records (``passed`` is 1, no number is 0)."""
    if label == "passed" or label.startswith("passed:"):
        return 1.0
    _, _, tail = label.rpartition("=")
    try:
        return float(tail)
    except ValueError:
        return 0.0


def _escaped(value: str) -> str:
    return value.encode("unicode_escape").decode("utf-8")


def _call_text(name: str, args: dict[str, Any], kwargs: dict[str, Any]) -> str:
    """``build_call_code``: keyword arguments written with ``str()`` (strings escaped)."""
    text = ""
    for key, value in [*args.items(), *kwargs.items()]:
        if isinstance(value, str):
            escaped = _escaped(value)
            text += f"{key}='{escaped}'," if '"' in escaped else f'{key}="{escaped}",'
        else:
            text += f"{key}={value},"
    return f"{name}({text})"


def official_prediction(answer: JsonAnswer) -> Any:
    """What upstream's ``parse_results.py`` records for an answer: the decoded JSON, or
    ``{}`` when none decoded -- and when it decoded to ``null``, since it keeps only a
    ``json`` that ``is not None``."""
    return answer.value if answer.ok and answer.value is not None else {}


def _official_reason(answer: JsonAnswer, base: str = "partial") -> str:
    """The verdict reason: ``base``, after the named reason nothing decoded, if any."""
    if answer.ok:
        return base if answer.value is not None else f"null_read_as_empty,{base}"
    return f"{answer.status},{base}"


class OfficialScorer:
    """Upstream's validators, quirks included (see the module docstrings).  It reads the
    whole response (the first ``[OUTPUT]`` anywhere, inside a reasoning model's thought
    too): both verbs hand it whole responses (``official_reads_thought``).
    """

    name = "official"

    def __init__(self, task: str, *, limits: Limits = RERUN_LIMITS) -> None:
        self.task = task
        self.limits = limits

    def plan(self, item: RE2Item, generations: Sequence[str]) -> ScorePlan:
        """Verdicts decided in the host; input misses planned as engine jobs."""
        if self.task == "loop":
            return self._done(item, [self._loop(g, item) for g in generations])
        if self.task == "branch":
            return self._done(item, [self._branch(g, item) for g in generations])
        firsts: list[Verdict | None] = []
        jobs: list[Job] = []
        owners: list[int] = []
        for index, raw in enumerate(generations):
            verdict, job = self._io(raw, item)
            firsts.append(verdict)
            if job is not None:
                jobs.append(job)
                owners.append(index)

        def finish(outcomes: Sequence[Outcome]) -> SampleScore:
            if len(outcomes) != len(jobs):
                raise ValueError(f"expected {len(jobs)} outcomes, got {len(outcomes)}")
            verdicts = list(firsts)
            for index, outcome in zip(owners, outcomes):
                verdicts[index] = self._rerun_verdict(outcome, item, verdicts[index])
            final = [
                v if v is not None else Verdict.failing(VerdictStatus.SCORING_ERROR)
                for v in verdicts
            ]
            return SampleScore(item.sample_id, self.name, final, [v.passed for v in final])

        return ScorePlan(jobs, finish)

    def _done(self, item: RE2Item, verdicts: list[Verdict]) -> ScorePlan:
        return ScorePlan(
            [],
            lambda outcomes: SampleScore(
                item.sample_id, self.name, verdicts, [v.passed for v in verdicts]
            ),
        )

    def _io(self, raw: str, item: RE2Item) -> tuple[Verdict, Job | None]:
        answer = extract_json_answer(raw, self.task)
        predicted = official_prediction(answer)
        reason = _official_reason(answer)
        if self.task == "output":
            if isinstance(predicted, dict) and "output" in predicted:
                predicted = predicted["output"]
            return _verdict(*official_score(predicted, item.output), reason), None
        if item.benchmark in ("Swebench", "Real"):
            rs, partial = official_score(predicted, item.inputs)
            return _verdict(rs, partial, _official_reason(answer, "partial_not_rerun")), None
        predicted, truth = deserialize(predicted), deserialize(item.inputs)
        rs, partial = official_score(predicted, truth)
        verdict = _verdict(rs, partial, reason)
        if rs or item.code is None or not isinstance(predicted, dict):
            # (a prediction that is no object: upstream's re-execution raises on .keys())
            return verdict, None
        if (
            item.benchmark == "Avatar"
            or "input" in predicted
            or (isinstance(truth, dict) and "input" in truth)
        ):
            # detect_false_negative: the program fed the predicted "input" (else a newline)
            # on stdin; never accepted when that text is str(the recorded input).
            given = predicted.get("input", "\n")
            text = given if isinstance(given, str) else str(given)
            if str(truth) == text:
                return verdict, None
            return verdict, Job(
                program=item.code, stdin=text, limits=self.limits, tag=("stdin", text)
            )
        args, kwargs = predicted.get("args", {}), predicted.get("kwargs", {})
        if (
            predicted == truth
            or not item.name
            or not isinstance(args, dict)
            or not isinstance(kwargs, dict)
        ):
            return verdict, None
        call = _call_text(item.name, {k: v for k, v in args.items() if not callable(v)}, kwargs)
        if item.class_name:
            # upstream: construct_instance(...) then print(self_instance.<call>)
            program = (
                item.code + "\n" + f"__obj = object.__new__({item.class_name})\n"
                f"__obj.__dict__.update({predicted.get('self', {})!r})\n"
                f"print(__obj.{call})\n"
            )
        else:
            program = item.code + "\n" + f"print({call})\n"
        return verdict, Job(program=program, limits=self.limits, tag=("call", call))

    def _rerun_verdict(self, outcome: Outcome, item: RE2Item, first: Verdict | None) -> Verdict:
        # subprocess.run(check=True): any exit status but 0 is no false negative
        if _exited_zero(outcome) and outcome.stdout.strip() == str(item.output).strip():
            return Verdict.passing(
                detail="accepted on re-execution: the printed output equals str(ground truth)"
            )
        return first or Verdict.failing(VerdictStatus.WRONG)

    def _loop(self, raw: str, item: RE2Item) -> Verdict:
        return _verdict(*compare_loop(parse_loop_answer(raw).states, item.truth))

    def _branch(self, raw: str, item: RE2Item) -> Verdict:
        return _verdict(*compare_branch(parse_branch_answer(raw).taken, item.truth))


def answer_text(raw: str, task: str) -> str:
    """What the official reading of a response gives, as text (for the records)."""
    if task in ("input", "output"):
        answer = extract_json_answer(raw, task)
        return json.dumps(answer.value) if answer.ok else ""
    if task == "loop":
        return json.dumps(parse_loop_answer(raw).states, default=repr)
    return json.dumps(parse_branch_answer(raw).taken)
