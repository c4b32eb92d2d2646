"""``--perturb`` on all of REval (DREval): every kind, each perturbed problem traced again.

Prints, per kind (and for all kinds composed), over every question (coverage/path/state
share them) and, for the composed run, every output pair: how many items were kept (the
line mapped, and the same coverage, values, run end and output truth under both of
REval's modes), dropped (with the reasons: a line that is no line of its own any more, a
fact that moved), not applicable, and how many kept questions had their next-line truth
recomputed.  Usage: ``python perf/perturb_reval.py [--json] [DATA] [KIND ...]`` (DATA: a
DREval folder, default the shipped copy; KIND: default each kind alone, then all
composed; ``--json``: also every run's figures as one JSON object on the last line).
``EXECLENS_PERF_SMALL=1``: 10 items of each plan, one kind alone and all composed
(``perf/_small.py``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from _small import small

from execlens.bench import PERTURB_KINDS, get_benchmark, perturb_plan
from execlens.trace import trace_engine


def main(args: list[str]) -> None:
    """Perturb, trace and count each kind over REval's questions and output pairs."""
    as_json = "--json" in args
    args = [arg for arg in args if arg != "--json"]
    rows = []
    data = args[0] if args and Path(args[0]).exists() else None
    kinds = [k.split(",") for k in args[1 if data else 0 :]] or [
        [kind] for kind in small(PERTURB_KINDS, PERTURB_KINDS[:1])
    ] + [list(PERTURB_KINDS)]
    bench = get_benchmark("reval")
    records = bench.load(data)
    with trace_engine() as engine:
        for chosen in kinds:
            # coverage: every question (path, state too); the output pairs only under the
            # composed run, whose per-kind counts name the kind that changed one (each
            # alone re-runs them for ~7 s and kept all 682: the script stays under 2 min).
            tasks = ("coverage", "output") if len(chosen) > 1 else ("coverage",)
            for task in tasks:
                plan = bench.plan(records, task, limit=small(None, 10), offset=0)
                started = time.perf_counter()
                _, summary = perturb_plan(bench, plan, chosen, 0, engine)
                rows.append(
                    {
                        "kinds": "+".join(chosen),
                        "items": task,
                        "seconds": round(time.perf_counter() - started, 1),
                        **{k: summary[k] for k in ("items", "kept", "dropped")},
                        "per_kind": summary["per_kind"],
                        "recomputed": summary.get("recomputed", {}),
                        "unverifiable": summary.get("unverifiable", {}),
                    }
                )
                print(json.dumps(rows[-1]), flush=True)
    if as_json:
        print(json.dumps({"runs": rows}))


if __name__ == "__main__":
    main(sys.argv[1:])
