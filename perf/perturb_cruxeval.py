"""``--perturb`` on all 800 CRUXEval programs: every kind, each re-executed and compared.

Prints, per kind, how many programs it rewrote (``perturbed``; the rest had nothing for
it to change: ``not_applicable``), how many of those still differ from the original
after ``ast.parse`` + ``ast.unparse`` (``differs_after_unparse``: 0 for the layout
checks, ``layout_check``), how many perturbed programs were kept (same value, exception
and, but after ``prints``, stdout as the original on the dataset's input) and how many
were dropped, with the reasons.  Usage: ``python perf/perturb_cruxeval.py [--json] [KIND ...]``
(``--json``: also every kind's figures as one JSON object on the last line).
``EXECLENS_PERF_SMALL=1``: 20 programs, two kinds, two servers (``perf/_small.py``).
"""

from __future__ import annotations

import json
import sys
import time

from _small import small

from execlens.bench import PERTURB_KINDS, get_benchmark, perturb_programs
from execlens.judge import scoring_engine


def main(args: list[str]) -> None:
    """Perturb, re-execute and count each kind over CRUXEval's 800 programs."""
    kinds = [arg for arg in args if arg != "--json"]
    rows = []
    bench = get_benchmark("cruxeval")
    items = bench.load(None)[: small(None, 20)]
    targets = [bench.perturb_target(item, "output") for item in items]
    with scoring_engine(small(4, 2)) as engine:
        for kind in kinds or small(PERTURB_KINDS, PERTURB_KINDS[:2]):
            started = time.perf_counter()
            _, summary = perturb_programs(targets, [kind], 0, engine)
            rows.append(
                {
                    "kind": kind,
                    "seconds": round(time.perf_counter() - started, 1),
                    **summary["per_kind"][kind],
                    "kept": summary["kept"],
                    "dropped": summary["dropped"],
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    if "--json" in args:
        print(json.dumps({"programs": len(targets), "kinds": rows}))


if __name__ == "__main__":
    main(sys.argv[1:])
