"""Scoring GRPO-sized batches through the TRL reward adapter, beside a process-per-answer
baseline.

Measured in one run on the shipped data (``EXECLENS_TEST_DATA``, default
``../shared/data``):

* **prediction batch**: 1,024 completions, half output prediction, half input
  prediction, on the first 64 CRUXEval functions (8 real Code Llama generations each,
  as a GRPO group of 8 would send them), through :data:`execlens.rewards.execlens_reward`
  exactly as ``GRPOTrainer`` calls it.  Output and input halves are also timed alone.
* **runtime batch**: 1,024 REval-style answers (coverage / state / path, right and
  wrong in equal measure) on tasks traced from CRUXEval programs.
* **baseline**: one ``multiprocessing.Process`` per completion (the official scorers'
  shape): the child judges the one answer (parses, for input prediction execs the
  program and calls ``f``) and sends the verdict back through a pipe.  Sampled on 96
  completions of each batch, rate extrapolated.
* **1 MB completion**: a reasoning completion whose final answer is a 1 MB assertion
  (``assert f(...) == [1, 1, ...]``), scored through the adapter (target: <= 50 ms);
  baseline: the same answer through the extraction as it was before the size cap
  (``ast.parse`` + ``ast.get_source_segment`` on the whole answer, then the parser's own
  length check), timed once.

The judging engine is started before timing (a trainer pays that once per run).  Prints
completions/s and ratios; ``--json`` prints one JSON object on the last line.
``EXECLENS_PERF_SMALL=1``: 8 problems, groups of 4, 64 runtime answers, a 10 kB answer for
the 1 MB one, two judging servers (``perf/_small.py``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any

from _roles import format_roles, measure, per_item
from _small import SMALL, small

from execlens.bench.cruxeval import load_cruxeval_problems
from execlens.rewards import (
    Task,
    close_shared_engine,
    execlens_reward,
    shared_executor,
    tasks_from_prediction,
    tasks_from_runtime,
)

GROUP = small(8, 4)
PROBLEMS = small(64, 8)
BASELINE_SAMPLE = small(96, 8)
RUNTIME_BATCH = small(1024, 64)


def _data_root() -> Path:
    configured = os.environ.get("EXECLENS_TEST_DATA", "../shared/data")
    path = Path(configured)
    root = Path(__file__).resolve().parents[1]
    return path if path.is_absolute() else (root / path).resolve()


def prediction_batch(root: Path) -> tuple[list[str], list[str], list[str]]:
    """(completions, ground truths, kinds) for 512 output + 512 input completions."""
    crux = root / "cruxeval"
    problems = load_cruxeval_problems(crux)[:PROBLEMS]
    completions, truths, kinds = [], [], []
    for kind in ("output", "input"):
        gens = json.loads((crux / f"codellama-7b_temp0.2_{kind}_generations.json").read_text())
        for problem in problems:
            truth = tasks_from_prediction(problem, kinds=[kind], source="cruxeval")[0].to_json()
            for text in gens[problem.id][:GROUP]:
                completions.append(text)
                truths.append(truth)
                kinds.append(kind)
    return completions, truths, kinds


def _answers(task: Task, right: bool) -> str:
    from execlens.values import decode

    if task.kind == "coverage":
        return "YES" if bool(task.reference) == right else "NO"
    if task.kind == "path":
        line = task.reference[0]
        return str(line if right else line + 100)
    accepted = [e for e in task.reference if e.get("__type__") != "Nil"]
    if not accepted:
        return "Nil" if right else "0"
    return repr(decode(dict(accepted[0]))) if right else "'no such value'"


def runtime_batch(root: Path) -> tuple[list[str], list[str]]:
    """1,024 coverage / state / path answers on tasks traced from CRUXEval programs."""
    from execlens.engine import Engine
    from execlens.tasks import RuntimeProgram, build_tasks

    records = [
        json.loads(line)
        for line in (root / "cruxeval" / "cruxeval.jsonl")
        .read_text()
        .splitlines()[: small(200, 20)]
    ]
    programs = [
        RuntimeProgram("cruxeval", r["id"], 0, r["code"], call=f"f({r['input']})") for r in records
    ]
    with Engine(workers=2) as engine:
        built = build_tasks(programs, engine=engine, kinds=("coverage", "path", "state"))
    tasks = [tasks_from_runtime(t) for t in built]
    completions, truths = [], []
    index = 0
    while len(completions) < RUNTIME_BATCH:
        task = tasks[index % len(tasks)]
        completions.append(f"[ANSWER]{_answers(task, index % 2 == 0)}[/ANSWER]")
        truths.append(task.to_json())
        index += 1
    return completions, truths


def megabyte_completion() -> str:
    """A thinking completion whose final answer is a ~1 MB assertion."""
    literal = "[" + ", ".join(["1"] * small(330_000, 3_000)) + "]"
    return (
        f"<think>\nLet me trace the loop step by step.\n</think>\n\n"
        f"[ANSWER]assert f('abc') == {literal}[/ANSWER]"
    )


def uncapped_extraction(completion: str) -> str:
    """The answer reduction as it ran before the cap (the baseline of the 1 MB case):
    the last tagged answer, the assertion parsed and sliced with
    ``ast.get_source_segment``, then the literal parser (which refuses it as too long)."""
    import ast

    from execlens.values import AnswerParseError, parse_literal

    body = completion[completion.rfind("[ANSWER]") + len("[ANSWER]") :]
    answer = body[: body.find("[/ANSWER]")].strip()
    test = ast.parse(answer).body[0].test  # type: ignore[attr-defined]
    side = ast.get_source_segment(answer, test.comparators[0]) or answer
    try:
        parse_literal(side)
    except AnswerParseError as error:
        return error.kind
    return "parsed"


def _call(completions: list[str], truths: list[str]) -> list[float | None]:
    return execlens_reward(
        prompts=[""] * len(completions),
        completions=completions,
        completion_ids=[[]] * len(completions),
        ground_truth=truths,
        trainer_state=None,
        log_extra=lambda c, v: None,
        log_metric=lambda n, v: None,
    )


def _timed(completions: list[str], truths: list[str], repeat: int = 3) -> tuple[float, Any]:
    best = float("inf")
    values = None
    for _ in range(repeat):
        start = time.perf_counter()
        values = _call(completions, truths)
        best = min(best, time.perf_counter() - start)
    return best, values


def _child(conn: Any, truth: str, completion: str) -> None:
    # The whole judgement in a fresh process, as a per-completion scorer would do it:
    # parse, and for input prediction run the program and the call right here.
    from execlens.rewards import Task, extract_answer
    from execlens.values import parse_call, parse_literal, values_equal

    try:
        task = Task.from_json(truth)
        answer = extract_answer(completion, task.kind).text
        reference = parse_literal(task.reference) if task.kind in ("output", "input") else None
        if task.kind == "output":
            ok = values_equal(parse_literal(answer), reference, "exact")
        elif task.kind == "input":
            call = parse_call(answer, name=task.function)
            namespace: dict[str, Any] = {}
            exec(compile(task.program, "<program>", "exec"), namespace)  # noqa: S102
            ok = values_equal(
                namespace[task.function](*call.args, **call.kwargs), reference, "exact"
            )
        else:
            from execlens.rewards import judge_answer

            ok = judge_answer(task, answer).passed
    except Exception:  # noqa: BLE001 - a failed judgement is a failing verdict
        ok = False
    conn.send(bool(ok))
    conn.close()


def baseline_rate(completions: list[str], truths: list[str]) -> float:
    """Completions/s with one ``multiprocessing.Process`` per completion (sampled)."""
    step = max(1, len(completions) // BASELINE_SAMPLE)
    picked = list(range(0, len(completions), step))[:BASELINE_SAMPLE]
    context = multiprocessing.get_context("fork")
    start = time.perf_counter()
    for i in picked:
        parent, child = context.Pipe(duplex=False)
        process = context.Process(target=_child, args=(child, truths[i], completions[i]))
        process.start()
        child.close()
        if parent.poll(3.0):
            parent.recv()
        process.join(3.0)
        if process.is_alive():
            process.kill()
            process.join()
    return len(picked) / (time.perf_counter() - start)


# --- issue 25: the host's share, judged in process vs by the judge workers -------------
def _roles_of(completions: list[str], truths: list[str], repeat: int = 3) -> dict[str, Any]:
    """Best wall time of ``repeat`` calls, and each role's CPU and faults per completion
    over all of them (warm: the first call is not measured)."""
    _call(completions, truths)
    best = float("inf")

    def calls() -> None:
        nonlocal best
        for _ in range(repeat):
            started = time.perf_counter()
            _call(completions, truths)
            best = min(best, time.perf_counter() - started)

    _, totals = measure(calls)
    return {"per_s": len(completions) / best, "roles": per_item(totals, len(completions) * repeat)}


def host_share(halves: dict[str, tuple[list[str], list[str]]]) -> dict[str, Any]:
    """Each half judged in process (``EXECLENS_JUDGE_WORKERS=0``: the path before judge
    workers) and by the judge workers, alternating, in this one run."""
    out: dict[str, Any] = {}
    configured = os.environ.get("EXECLENS_JUDGE_WORKERS")
    try:
        for name, (completions, truths) in halves.items():
            for path, workers in (("in_process", "0"), ("judge_workers", configured)):
                if workers is None:
                    os.environ.pop("EXECLENS_JUDGE_WORKERS", None)
                else:
                    os.environ["EXECLENS_JUDGE_WORKERS"] = workers
                out.setdefault(name, {})[path] = _roles_of(completions, truths)
            before = out[name]["in_process"]["roles"]["host"]["cpu_ms"]
            after = out[name]["judge_workers"]["roles"]["host"]["cpu_ms"]
            out[name]["host_cpu_ratio"] = before / after if after else float("inf")
    finally:
        if configured is None:
            os.environ.pop("EXECLENS_JUDGE_WORKERS", None)
        else:
            os.environ["EXECLENS_JUDGE_WORKERS"] = configured
    return out


def print_host_share(result: dict[str, Any]) -> None:
    """The host-share lines of the report."""
    for name, paths in result.items():
        print(
            f"{name}: host CPU per completion {paths['in_process']['roles']['host']['cpu_ms']:.4f}"
            f" ms in process -> {paths['judge_workers']['roles']['host']['cpu_ms']:.4f} ms with "
            f"judge workers ({paths['host_cpu_ratio']:.1f}x less); "
            f"{paths['in_process']['per_s']:,.0f}/s -> {paths['judge_workers']['per_s']:,.0f}/s"
        )
        for path in ("in_process", "judge_workers"):
            print(format_roles(path, paths[path]["roles"]))


# --- issue 25 (end) ----------------------------------------------------------------------


# --- issue 27: 16 answers of 200,000 characters, each judged in <= 50 ms (begin) -------
# A separate block (its own functions and result keys) so that it merges apart from the
# rest of this script.  Each completion's answer is a literal just under the cap (nested
# lists and tuples of ints, floats, strings, None/True); half right, half wrong in one
# element.  Timed one completion per call through the TRL adapter (best of 3, the
# reference already parsed, as in a GRPO group), beside the ast path on the same answers
# (``ast.parse`` + the strict comparison, what every answer went through before).
LONG_ANSWERS = 16
LONG_CHARS = 200_000


def _long_value(seed: int) -> list[Any]:
    """A value whose ``repr`` is just under 200,000 characters: nested lists and tuples of
    ints, floats, strings, ``None``/``True``."""
    import random

    rng = random.Random(seed)
    value: list[Any] = []
    total = 2
    while True:
        items = [
            (
                rng.randint(-999, 999),
                rng.choice("abcdefgh") * rng.randint(1, 6),
                [round(rng.random(), 4), rng.choice([True, None, [], (), (1,)])],
            )
            for _ in range(rng.randint(1, 5))
        ]
        part: Any = items if rng.random() < 0.5 else tuple(items)
        size = len(repr(part)) + 2
        if total + size > LONG_CHARS:
            return value
        value.append(part)
        total += size


def long_answer_batch() -> tuple[list[str], list[str], list[str]]:
    """(completions, ground truths, answers): 16 thinking completions whose final answer
    is a literal of just under 200,000 characters, written as Python prints it; the odd
    ones wrong in one element."""
    completions, truths, answers = [], [], []
    for index in range(LONG_ANSWERS):
        value = _long_value(index // 2)
        literal = repr(value)
        truth = Task(
            kind="output",
            program="def f(x):\n    return x\n",
            function="f",
            input="f(0)",
            reference=literal,
        ).to_json()
        answer = literal if index % 2 == 0 else literal.replace("'a", "'z", 1)
        completions.append(f"<think>\nLet me trace it.\n</think>\n\n[ANSWER]{answer}[/ANSWER]")
        truths.append(truth)
        answers.append(answer)
    return completions, truths, answers


def _ast_judgement(answer: str, truth: str) -> bool:
    """The strict judgement of ``answer`` as it ran before the fast reader: ``ast``."""
    from execlens.values import parse_literal, strict_equal
    from execlens.values._parse import _literal, _parse_expression

    reference = parse_literal(Task.from_json(truth).reference)
    return strict_equal(_literal(_parse_expression(answer)), reference)


def time_long_answers() -> dict[str, Any]:
    """Per-answer milliseconds (wall and CPU) of the 16 long answers, and the baseline."""
    completions, truths, answers = long_answer_batch()
    wall: list[float] = []
    cpu: list[float] = []
    rewards: list[float | None] = []
    for completion, truth in zip(completions, truths):
        best_wall = best_cpu = float("inf")
        value = None
        for _ in range(3):
            started, started_cpu = time.perf_counter(), time.process_time()
            [value] = _call([completion], [truth])
            best_wall = min(best_wall, time.perf_counter() - started)
            best_cpu = min(best_cpu, time.process_time() - started_cpu)
        wall.append(best_wall * 1000)
        cpu.append(best_cpu * 1000)
        rewards.append(value)
    baseline: list[float] = []
    agree = 0
    for index, (answer, truth) in enumerate(zip(answers, truths)):
        started = time.perf_counter()
        passed = _ast_judgement(answer, truth)
        baseline.append((time.perf_counter() - started) * 1000)
        agree += passed == ((rewards[index] or 0.0) > 0)
    return {
        "long_answers": len(completions),
        "long_answer_chars_min": min(len(a) for a in answers),
        "long_answer_ms_max": max(wall),
        "long_answer_ms_mean": sum(wall) / len(wall),
        "long_answer_cpu_ms_max": max(cpu),
        "long_answer_cpu_ms_mean": sum(cpu) / len(cpu),
        "long_answer_rewards": rewards,
        "baseline_long_answer_ms_mean": sum(baseline) / len(baseline),
        "ratio_long_answer": (sum(baseline) / len(baseline)) / (sum(wall) / len(wall)),
        "long_answer_verdicts_agree_with_ast": agree,
    }


def print_long_answers(result: dict[str, Any]) -> None:
    """The long answers' line of the report."""
    print(
        f"{result['long_answers']} answers of {result['long_answer_chars_min']:,}+ chars "
        f"(nested lists, tuples): max {result['long_answer_ms_max']:.1f} ms, mean "
        f"{result['long_answer_ms_mean']:.1f} ms (CPU max {result['long_answer_cpu_ms_max']:.1f}"
        f" ms, mean {result['long_answer_cpu_ms_mean']:.1f} ms; target <= 50 ms); ast path "
        f"{result['baseline_long_answer_ms_mean']:,.0f} ms "
        f"({result['ratio_long_answer']:.0f}x); verdicts agree with ast on "
        f"{result['long_answer_verdicts_agree_with_ast']}/{result['long_answers']}"
    )


# --- issue 27 (end) ----------------------------------------------------------------------


def main() -> None:
    """Run the benchmark (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    options = parser.parse_args()
    root = _data_root()
    if not (root / "cruxeval" / "cruxeval.jsonl").is_file():
        print(
            f"error: CRUXEval data not found under {root}; set EXECLENS_TEST_DATA", file=sys.stderr
        )
        raise SystemExit(2)

    if SMALL:
        os.environ.setdefault("EXECLENS_REWARD_WORKERS", "2")
    completions, truths, kinds = prediction_batch(root)
    runtime_completions, runtime_truths = runtime_batch(root)
    shared_executor()  # engine start-up: once per training run, not per batch
    _call(completions[:16], truths[:16])

    out_idx = [i for i, k in enumerate(kinds) if k == "output"]
    in_idx = [i for i, k in enumerate(kinds) if k == "input"]

    def pick(xs: list[Any], idx: list[int]) -> list[Any]:
        return [xs[i] for i in idx]

    t_mixed, mixed_values = _timed(completions, truths)
    t_out, _ = _timed(pick(completions, out_idx), pick(truths, out_idx))
    t_in, _ = _timed(pick(completions, in_idx), pick(truths, in_idx))
    t_rt, rt_values = _timed(runtime_completions, runtime_truths)
    base_pred = baseline_rate(completions, truths)
    base_rt = baseline_rate(runtime_completions, runtime_truths)
    big = megabyte_completion()
    out_truth = truths[out_idx[0]]
    t_big, big_values = _timed([big], [out_truth], repeat=5)
    start = time.perf_counter()
    big_baseline_kind = uncapped_extraction(big)
    t_big_base = time.perf_counter() - start
    long_answers = time_long_answers()  # issue 27
    shares = host_share(  # issue 25
        {
            "output": (pick(completions, out_idx), pick(truths, out_idx)),
            "input": (pick(completions, in_idx), pick(truths, in_idx)),
            "mixed": (completions, truths),
        }
    )
    close_shared_engine()

    result = {
        "prediction_batch": len(completions),
        "prediction_per_s": len(completions) / t_mixed,
        "output_per_s": len(out_idx) / t_out,
        "input_per_s": len(in_idx) / t_in,
        "runtime_batch": len(runtime_completions),
        "runtime_per_s": len(runtime_completions) / t_rt,
        "baseline_prediction_per_s": base_pred,
        "baseline_runtime_per_s": base_rt,
        "ratio_prediction": (len(completions) / t_mixed) / base_pred,
        "ratio_runtime": (len(runtime_completions) / t_rt) / base_rt,
        "prediction_mean_reward": sum(v or 0.0 for v in mixed_values) / len(mixed_values),
        "runtime_mean_reward": sum(v or 0.0 for v in rt_values) / len(rt_values),
        "megabyte_chars": len(big),
        "megabyte_ms": t_big * 1000,
        "megabyte_reward": big_values[0] if big_values else None,
        "baseline_megabyte_ms": t_big_base * 1000,
        "baseline_megabyte_result": big_baseline_kind,
        "cpus": os.cpu_count(),
        **long_answers,  # issue 27
        "host_share": shares,  # issue 25
    }
    print(
        f"prediction batch ({len(completions)}: {len(out_idx)} output + {len(in_idx)} input): "
        f"{result['prediction_per_s']:,.0f}/s (baseline {base_pred:,.0f}/s, "
        f"{result['ratio_prediction']:.1f}x)"
    )
    print(
        f"  output prediction alone: {result['output_per_s']:,.0f}/s; "
        f"input prediction alone: {result['input_per_s']:,.0f}/s"
    )
    print(
        f"runtime batch ({len(runtime_completions)} coverage/state/path): "
        f"{result['runtime_per_s']:,.0f}/s (baseline {base_rt:,.0f}/s, "
        f"{result['ratio_runtime']:.1f}x)"
    )
    print(
        f"1 MB completion ({len(big):,} chars, answer an assertion): "
        f"{result['megabyte_ms']:.1f} ms, reward {result['megabyte_reward']} "
        f"(uncapped extraction: {result['baseline_megabyte_ms']:,.0f} ms, "
        f"{big_baseline_kind}; target <= 50 ms)"
    )
    print_long_answers(long_answers)  # issue 27
    print_host_share(shares)  # issue 25
    if options.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
