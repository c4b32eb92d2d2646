"""A resumable scoring run: official and strict verdicts for a generations file.

Writes into one directory:

* ``run.json``: what is being scored (benchmark, tasks, hashes of data and
  generations).  A later run into the same directory must match it, or be told to
  ``overwrite``.
* ``samples.jsonl``: one line per sample, appended (and flushed) as each finishes:
  ``id``, ``official`` (the verdict list exactly as the official scorer records it),
  ``strict`` (one verdict per generation), per-sample accuracies and a per-generation
  breakdown.  Killed and restarted, a run keeps every complete line, drops a torn last
  one and scores only the samples still missing.
* ``results.json``: pass@1 / pass@5 per mode, verdict counts, and the generations whose
  verdict differs between modes, grouped by reason.  Written last (atomically): its
  presence marks a finished run.

LiveCodeBench code execution uses the same run (its scorer is CRUXEval-shaped).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execlens.bench._references import attach_reference
from execlens.bench.metrics import mean_pass_at_k, sample_accuracy
from execlens.judge import (
    CruxEvalOfficialScorer,
    ExecProblem,
    LCBOfficialScorer,
    SampleScore,
    Scorer,
    StrictScorer,
    Verdict,
    score_samples,
    scoring_engine,
)

if TYPE_CHECKING:
    from execlens.engine import Engine

__all__ = ["BENCHMARKS", "ScoreRunError", "ScoreRunResult", "difference_reason", "score_run"]

BENCHMARKS = ("cruxeval", "lcb-exec")
MODES = ("official", "strict")
# Preloaded in the scoring engine's servers: LiveCodeBench's checks import these.
LCB_PRELOAD = ("numpy", "pandas", "random", "string", "sys")
_EXAMPLES_PER_REASON = 3


class ScoreRunError(RuntimeError):
    """The output directory holds a different run (or is unusable)."""


def difference_reason(official: Verdict, strict: Verdict) -> str | None:
    """Why two verdicts on one generation disagree, or ``None`` when they agree.

    ``"strict unparseable:boolop"`` (official passed it, strict did not, and why) or
    ``"official skipped:filter"`` (strict passed it, official did not, and why).
    """
    if official.passed == strict.passed:
        return None
    return f"strict {strict.label}" if official.passed else f"official {official.label}"


def _sha256_json(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode("utf-8")).hexdigest()


def _scorers(benchmark: str, task: str, official_task: str) -> list[Scorer]:
    if benchmark == "cruxeval":
        return [CruxEvalOfficialScorer(official_task), StrictScorer(task)]
    return [LCBOfficialScorer(), StrictScorer("output")]


def sample_record(problem: ExecProblem, generations: Sequence[str],
                  scores: dict[str, SampleScore]) -> dict[str, Any]:
    """The ``samples.jsonl`` line of one scored sample."""
    official, strict = scores["official"], scores["strict"]
    details = []
    for text, o, s in zip(generations, official.verdicts, strict.verdicts):
        entry: dict[str, Any] = {"official": o.label, "strict": s.label}
        reason = difference_reason(o, s)
        if reason is not None:
            entry["differs"] = reason
            entry["generation"] = text[:500]
        for name, verdict in (("official", o), ("strict", s)):
            if verdict.detail and verdict.status.value not in ("passed", "wrong"):
                entry[f"{name}_detail"] = verdict.detail[:300]
        details.append(entry)
    return {
        "id": problem.id,
        "official": list(official.scored),
        "strict": list(strict.scored),
        "official_accuracy": sample_accuracy(official.scored),
        "strict_accuracy": sample_accuracy(strict.scored),
        "generations": details,
    }


# --------------------------------------------------------------------- files
def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _read_done(samples: Path) -> dict[str, dict[str, Any]]:
    """Complete lines of ``samples.jsonl``; a torn or broken tail is cut off."""
    if not samples.exists():
        return {}
    raw = samples.read_bytes()
    done: dict[str, dict[str, Any]] = {}
    keep = 0
    for line in raw.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break  # torn by a kill mid-write
        try:
            record = json.loads(line)
        except ValueError:
            break
        if not isinstance(record, dict) or "id" not in record:
            break
        done[str(record["id"])] = record
        keep += len(line)
    if keep != len(raw):
        with open(samples, "r+b") as handle:
            handle.truncate(keep)
    return done


def _identity(config: dict[str, Any]) -> dict[str, Any]:
    # The same file under another path is the same run.
    return {k: v for k, v in config.items() if k != "generations_file"}


def _prepare_dir(out: Path, config: dict[str, Any], overwrite: bool) -> None:
    out.mkdir(parents=True, exist_ok=True)
    run_file = out / "run.json"
    if overwrite:
        for name in ("samples.jsonl", "results.json"):
            (out / name).unlink(missing_ok=True)
    elif run_file.exists():
        try:
            previous = json.loads(run_file.read_text(encoding="utf-8"))
        except ValueError:
            previous = None
        if not isinstance(previous, dict) or _identity(previous) != _identity(config):
            raise ScoreRunError(
                f"{out} holds a different scoring run (see {run_file}); choose another "
                f"--out or pass --overwrite")
    elif (out / "samples.jsonl").exists():
        raise ScoreRunError(f"{out} has a samples.jsonl but no run.json; choose another "
                            f"--out or pass --overwrite")
    _write_atomic(run_file, json.dumps(config, indent=2) + "\n")


# ------------------------------------------------------------------- results
def summarise(records: Sequence[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:
    """``results.json``'s content from every sample's record (in dataset order)."""
    modes: dict[str, Any] = {}
    for mode in MODES:
        lists = [record[mode] for record in records]
        labels = Counter(entry[mode] for record in records for entry in record["generations"])
        modes[mode] = {
            "pass@1": mean_pass_at_k(lists, 1),
            "pass@5": mean_pass_at_k(lists, 5),
            "solved": sum(1 for verdicts in lists if True in verdicts),
            "denominator": sum(len(verdicts) for verdicts in lists),
            "verdicts": dict(sorted(labels.items(), key=lambda kv: (-kv[1], kv[0]))),
        }
    if config["benchmark"] == "lcb-exec":
        modes["official"]["note"] = ("LiveCodeBench reports pass@1 only; pass@5 here applies "
                                     "the same estimator to its lists (n may be < 5)")
    only_official: Counter[str] = Counter()
    only_strict: Counter[str] = Counter()
    examples: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        for index, entry in enumerate(record["generations"]):
            reason = entry.get("differs")
            if reason is None:
                continue
            (only_official if reason.startswith("strict ") else only_strict)[reason] += 1
            shown = examples.setdefault(reason, [])
            if len(shown) < _EXAMPLES_PER_REASON:
                shown.append({"id": record["id"], "index": index,
                              "generation": entry.get("generation", "")})
    generations = sum(len(record["generations"]) for record in records)
    return {
        "benchmark": config["benchmark"],
        "task": config["task"],
        "official_task": config["official_task"],
        "generations_file": config["generations_file"],
        "samples": len(records),
        "generations": generations,
        "modes": modes,
        "differences": {
            "total": sum(only_official.values()) + sum(only_strict.values()),
            "official_pass_strict_fail": dict(only_official.most_common()),
            "official_fail_strict_pass": dict(only_strict.most_common()),
            "examples": examples,
        },
    }


# ----------------------------------------------------------------------- run
@dataclass
class ScoreRunResult:
    """A finished run: its results, where they are, and what this invocation did."""

    results: dict[str, Any]
    out_dir: Path
    scored_now: int
    resumed: int
    seconds: float


def score_run(
    out_dir: str | Path,
    items: Sequence[tuple[ExecProblem, Sequence[str]]],
    *,
    benchmark: str,
    task: str,
    official_task: str | None = None,
    generations_file: str = "",
    engine: Engine | None = None,
    workers: int | None = None,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
    extras: Mapping[str, Mapping[str, Any]] | None = None,
    model: str | None = None,
    temperature: float | None = None,
) -> ScoreRunResult:
    """Score ``items`` (problem, generations) in both modes into ``out_dir``, resumably.

    ``official_task`` is the task the official scorer applies (CRUXEval's script infers
    it from the file path); ``task`` the one strict scoring applies.  ``engine``: use
    this one (not closed here); otherwise a scoring engine is started when needed.
    ``progress(done, total)`` is called as samples finish.  ``extras[id]`` is merged into
    that sample's ``samples.jsonl`` line (the eval runner adds prompts and raw responses).
    ``model`` and ``temperature`` say who generated the file: recorded, and used to put a
    published reference beside the scores when one is known.
    """
    if benchmark not in BENCHMARKS:
        raise ValueError(f"benchmark must be one of {BENCHMARKS}, got {benchmark!r}")
    official_task = official_task or task
    out = Path(out_dir)
    config = {
        "benchmark": benchmark,
        "task": task,
        "official_task": official_task,
        "generations_file": generations_file,
        "generations_sha256": _sha256_json([[p.id, list(g)] for p, g in items]),
        "data_sha256": _sha256_json([[p.id, p.code, p.input, p.output, p.function_name]
                                     for p, _ in items]),
    }
    _prepare_dir(out, config, overwrite)
    samples_path = out / "samples.jsonl"
    done = _read_done(samples_path)
    wanted = {p.id for p, _ in items}
    done = {k: v for k, v in done.items() if k in wanted}
    remaining = [(p, list(g)) for p, g in items if p.id not in done]
    started = time.perf_counter()
    if remaining:
        (out / "results.json").unlink(missing_ok=True)
        scorers = _scorers(benchmark, task, official_task)
        own = None
        if engine is None:
            lcb = benchmark == "lcb-exec"
            # Servers that preload pandas are slow to start: fewer of them for LCB.
            own = scoring_engine(workers or (8 if lcb else 16),
                                 preload=LCB_PRELOAD if lcb else ())
        by_id = {p.id: g for p, g in remaining}
        try:
            with open(samples_path, "a", encoding="utf-8") as handle:
                finished = len(done)
                for problem, scores in score_samples(scorers, remaining, engine or own):
                    record = sample_record(problem, by_id[problem.id], scores)
                    if extras and problem.id in extras:
                        record.update(extras[problem.id])
                    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                    handle.flush()
                    done[problem.id] = record
                    finished += 1
                    if progress is not None:
                        progress(finished, len(items))
                os.fsync(handle.fileno())
        finally:
            if own is not None:
                own.close()
    seconds = time.perf_counter() - started
    records = [done[p.id] for p, _ in items]
    results = summarise(records, config)
    scored_generations = sum(len(g) for _, g in remaining)
    results["timing"] = {
        "seconds": round(seconds, 3),
        "samples_scored_now": len(remaining),
        "samples_resumed": len(items) - len(remaining),
        "generations_per_second": round(scored_generations / seconds, 1) if seconds else None,
    }
    if model is not None:
        results["model"] = model
        results["sampling"] = {"temperature": temperature}
        attach_reference(results, benchmark=benchmark, task=official_task, model=model,
                         temperature=temperature, full_benchmark=True)
    _write_atomic(out / "results.json", json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    return ScoreRunResult(results, out, len(remaining), len(items) - len(remaining), seconds)
