"""What one process per origin costs (issue 23): the same measurements on two source trees.

``--baseline-src PATH`` names the ``src`` folder of a checkout from before the change
(e.g. ``git worktree add /tmp/before <commit>`` then ``/tmp/before/src``); the measured
tree is this checkout's.  Each measurement runs in a fresh interpreter with one tree or
the other first on ``PYTHONPATH``, alternating the trees for ``--rounds`` rounds on the
same machine; the best figure of each tree counts (other load only ever slows a run).

* ``engine``: ``perf/engine.py``'s trivial job, one job per forked child and 16 per
  child (one origin), with one server per core: runs/s;
* ``score_cruxeval``: official scoring of CRUXEval's 8,000 + 8,000 Code Llama 7B
  generations on a 16-server scoring engine, start-up included (``perf/score_cruxeval.py``'s
  official row): seconds;
* ``rewards``: a GRPO batch of 1,024 completions (512 output + 512 input prediction,
  groups of 8) through the TRL adapter, engine started beforehand (``perf/rewards.py``'s
  prediction batch): completions/s.

Prints each figure of both trees and the cost ratio (baseline speed / this tree's speed:
1.3 means 30 % slower); ``--json`` prints one JSON object on the last line.
``EXECLENS_PERF_SMALL=1``: tiny sizes, two scoring servers, one round, and the baseline
defaults to this tree.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from _small import small

PERF = Path(__file__).resolve().parent
OURS = PERF.parent / "src"

# Each measurement, run with one tree first on the path; prints one JSON number.
_ENGINE = """
import json, sys, engine as bench
from execlens.engine import Engine
runs, batch = int(sys.argv[1]), int(sys.argv[2])
with Engine(workers=bench.WORKERS) as e:
    rate = bench.engine_rate(e, runs, batch)
print(json.dumps(rate))
"""
_SCORE = """
import json, sys, time
import score_cruxeval as bench
from execlens.bench.cruxeval import (
    CruxEvalOfficialScorer, load_cruxeval_generations, load_cruxeval_problems)
from execlens.judge import scoring_engine
samples, workers = int(sys.argv[1]), int(sys.argv[2])
data = bench._data_dir()
problems = load_cruxeval_problems(data)[:samples]
start = time.perf_counter()
engine = scoring_engine(workers)
try:
    for task in ("input", "output"):
        gens = load_cruxeval_generations(data / f"codellama-7b_temp0.2_{task}_generations.json")
        bench.run_mode(CruxEvalOfficialScorer(task), problems, gens, engine)
finally:
    engine.close()
print(json.dumps(time.perf_counter() - start))
"""
_REWARDS = """
import json, sys
import rewards as bench
bench.PROBLEMS = int(sys.argv[1])
completions, truths, _ = bench.prediction_batch(bench._data_root())
bench.shared_executor()
bench._call(completions[:16], truths[:16])
seconds, _ = bench._timed(completions, truths)
bench.close_shared_engine()
print(json.dumps(len(completions) / seconds))
"""
#: name: (driver, arguments, unit, whether more is better)
MEASURES: dict[str, tuple[str, list[str], str, bool]] = {
    "engine_one_per_child": (_ENGINE, [str(small(3000, 60)), "1"], "runs/s", True),
    "engine_16_per_child": (_ENGINE, [str(small(20000, 320)), "16"], "runs/s", True),
    "score_cruxeval_official": (_SCORE, [str(small(800, 8)), str(small(16, 2))], "s", False),
    "rewards_grpo_1024": (_REWARDS, [str(small(64, 4))], "completions/s", True),
}


def measure(driver: str, arguments: list[str], src: Path) -> float:
    """One figure, from a fresh interpreter importing execlens from ``src``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(src), str(PERF)])
    done = subprocess.run(
        [sys.executable, "-c", driver, *arguments],
        cwd=PERF,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"error: a measurement failed under {src}:\n{done.stderr[-3000:]}")
    return float(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    """Alternate the trees, keep each one's best, print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--baseline-src",
        type=Path,
        default=small(None, OURS),
        help="the src folder of a checkout from before the change",
    )
    parser.add_argument("--rounds", type=int, default=small(2, 1))
    parser.add_argument("--only", default=",".join(MEASURES), help="measurements to run")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args()
    if args.baseline_src is None or not (args.baseline_src / "execlens").is_dir():
        raise SystemExit("error: --baseline-src must name a checkout's src folder")
    trees = {"baseline": args.baseline_src.resolve(), "this": OURS}
    chosen = args.only.split(",")
    best: dict[str, dict[str, float]] = {name: {} for name in chosen}
    for _ in range(args.rounds):
        for name in chosen:
            driver, arguments, _, more_is_better = MEASURES[name]
            for tree, src in trees.items():
                value = measure(driver, arguments, src)
                kept = best[name].get(tree)
                if kept is None or (value > kept if more_is_better else value < kept):
                    best[name][tree] = value
    result: dict[str, Any] = {
        "trees": {k: str(v) for k, v in trees.items()},
        "cpus": os.cpu_count(),
    }
    for name in chosen:
        _, _, unit, more_is_better = MEASURES[name]
        base, this = best[name]["baseline"], best[name]["this"]
        ratio = base / this if more_is_better else this / base
        result[name] = {
            "baseline": round(base, 3),
            "this": round(this, 3),
            "cost_ratio": round(ratio, 3),
        }
        print(
            f"{name:<26} baseline {base:>10.2f} {unit:<14} this {this:>10.2f} {unit:<14} "
            f"cost {ratio:.2f}x"
        )
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
