"""RE2-Bench: every released I/O response of a checkout judged in the host, answer by answer.

Usage: ``python perf/re2bench_judge.py CHECKOUT [--json]`` (a checkout of
Intelligent-CAT-Lab/RE2Bench with its ``results/``; nothing ships: it has no licence).

For each response under ``results/{output,input}_prediction/<model>/{LC,HC}/*.txt`` whose
problem the checkout's data holds, measured one at a time:

* **baseline**: one ``json.loads`` of the text between the answer tags (what a reader with
  no repair loop spends; it fails on most answers that need a repair);
* **execlens**: the official reading (:func:`extract_json_answer`: tags, fences, comments,
  trailing commas, up to 25 repair passes, bounded) and both modes' comparisons with the
  recorded truth (official ``partial_compare`` and strict), i.e. all host-side judging;
  the engine re-execution of input misses is not part of it (its limits are the
  engine's: 15 s, 1 GiB).

Prints the slowest answer (wall and CPU time, measured untraced) and the largest traced
allocation peak (``tracemalloc``, a second run) per side, the answers per parse status
and the process's peak RSS; ``--json`` prints one JSON object on the last line.  The
point is the bound: no answer may take more than a second or 200 MB (upstream's repair
loop ran 12+ minutes and 4-9 GB on 14 of them).
"""

from __future__ import annotations

import json
import resource
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

from _small import SMALL

from execlens.bench.re2bench import deserialize, load_re2bench, official_score, strict_score
from execlens.bench.re2bench._parse import _block, extract_json_answer
from execlens.bench.re2bench._score import official_prediction

FOLDERS = {"LC": "easy", "HC": "difficult"}


def _judge(raw: str, task: str, item: Any) -> str:
    answer = extract_json_answer(raw, task)
    predicted = official_prediction(answer)
    if task == "output":
        if isinstance(predicted, dict) and "output" in predicted:
            predicted = predicted["output"]
        official_score(predicted, item.output)
        strict_score(answer.value, item.output)
    else:
        official_score(deserialize(predicted), deserialize(item.inputs))
        strict_score(answer.value, item.inputs)
    return answer.status or "json"


def _baseline(raw: str, task: str) -> None:
    block = _block(raw, task)
    try:
        json.loads(block or "")
    except (ValueError, RecursionError):
        pass


def _measure(function: Any, *args: Any) -> tuple[Any, float, float, float]:
    """(result, wall s, CPU s, traced peak MB): timed untraced, then run again traced."""
    started, cpu = time.perf_counter(), time.process_time()
    result = function(*args)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    tracemalloc.start()
    function(*args)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return result, seconds, cpu, peak


def _made_up_checkout() -> Path:
    """The small scale's checkout: the tests' made-up one (no upstream data: it has no
    licence) with one released-style response per I/O problem and task."""
    import importlib.util
    import tempfile

    conftest = Path(__file__).resolve().parents[1] / "tests" / "bench" / "re2bench" / "conftest.py"
    spec = importlib.util.spec_from_file_location("re2bench_fixture", conftest)
    assert spec is not None and spec.loader is not None
    fixture = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixture)
    root = fixture.build_checkout(Path(tempfile.mkdtemp(prefix="re2bench-small-")) / "RE2Bench")
    folder = {v: k for k, v in FOLDERS.items()}
    for item in load_re2bench(root).records:
        if item.task not in ("output", "input"):
            continue
        difficulty, pid = item.sample_id.split("/", 1)
        tag = item.task.upper()
        path = (
            root / "results" / f"{item.task}_prediction" / "m" / folder[difficulty] / f"{pid}.txt"
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'[{tag}]\n```json\n{{"{item.task}": 1,}}\n```\n[/{tag}]\n')
    return root


def main(args: list[str]) -> None:
    """Judge every released response of the checkout in ``args``; print the bounds."""
    paths = [a for a in args if a != "--json"]
    if not paths and SMALL:
        paths = [str(_made_up_checkout())]
    if len(paths) != 1:
        sys.exit("usage: python perf/re2bench_judge.py CHECKOUT [--json]")
    root = Path(paths[0])
    items = {(i.task, i.sample_id): i for i in load_re2bench(root).records}
    worst: dict[str, dict[str, Any]] = {
        side: {
            "seconds": 0.0,
            "seconds_at": "",
            "cpu_seconds": 0.0,
            "cpu_at": "",
            "peak_mb": 0.0,
            "peak_at": "",
        }
        for side in ("baseline", "execlens")
    }
    statuses: Counter[str] = Counter()
    total = {"baseline": 0.0, "execlens": 0.0}
    for task in ("output", "input"):
        for response in sorted((root / "results" / f"{task}_prediction").glob("*/*/*.txt")):
            difficulty = FOLDERS.get(response.parent.name)
            item = items.get((task, f"{difficulty}/{response.stem}"))
            if item is None:
                continue
            raw = response.read_text(encoding="utf-8")
            where = f"{task}/{response.parent.parent.name}/{difficulty}/{response.stem}"
            for side, call in (
                ("baseline", (_baseline, raw, task)),
                ("execlens", (_judge, raw, task, item)),
            ):
                result, seconds, cpu, peak = _measure(*call)
                total[side] += seconds
                if cpu > worst[side]["cpu_seconds"]:
                    worst[side].update(cpu_seconds=cpu, cpu_at=where)
                if side == "execlens":
                    statuses[result] += 1
                if seconds > worst[side]["seconds"]:
                    worst[side].update(seconds=seconds, seconds_at=where)
                if peak > worst[side]["peak_mb"]:
                    worst[side].update(peak_mb=peak, peak_at=where)
    answers = sum(statuses.values())
    report = {
        "answers": answers,
        "statuses": dict(sorted(statuses.items())),
        "total_seconds": {k: round(v, 2) for k, v in total.items()},
        "ratio_total": round(total["execlens"] / total["baseline"], 1)
        if total["baseline"]
        else None,
        "worst": {
            side: {k: round(v, 4) if isinstance(v, float) else v for k, v in w.items()}
            for side, w in worst.items()
        },
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    for side, w in report["worst"].items():
        print(
            f"{side:9} total {report['total_seconds'][side]:8.2f} s; slowest answer "
            f"{w['seconds']:.4f} s wall ({w['seconds_at']}), {w['cpu_seconds']:.4f} s CPU "
            f"({w['cpu_at']}); largest peak {w['peak_mb']:.2f} MB ({w['peak_at']})"
        )
    print(f"{answers} answers; parse statuses {report['statuses']}; ")
    print(f"process peak RSS {report['max_rss_mb']} MB")
    print(f"execlens/baseline total {report['ratio_total']}x")
    if "--json" in args:
        print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1:])
