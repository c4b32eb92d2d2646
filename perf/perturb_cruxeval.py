"""``--perturb`` on all 800 CRUXEval programs: every kind, each re-executed and compared.

Prints, per kind, how many perturbed programs were kept (same value, exception and, but
after ``prints``, stdout as the original on the dataset's input) and how many were
dropped, with the reasons.  Usage: ``python perf/perturb_cruxeval.py [KIND ...]``.
"""

from __future__ import annotations

import json
import sys
import time

from execlens.bench import PERTURB_KINDS, get_benchmark, perturb_programs
from execlens.judge import scoring_engine


def main(kinds: list[str]) -> None:
    """Perturb, re-execute and count each kind over CRUXEval's 800 programs."""
    bench = get_benchmark("cruxeval")
    targets = [bench.perturb_target(item, "output") for item in bench.load(None)]
    with scoring_engine(4) as engine:
        for kind in kinds or PERTURB_KINDS:
            started = time.perf_counter()
            _, summary = perturb_programs(targets, [kind], 0, engine)
            print(
                json.dumps(
                    {
                        "kind": kind,
                        "seconds": round(time.perf_counter() - started, 1),
                        **summary["per_kind"][kind],
                        "kept": summary["kept"],
                        "dropped": summary["dropped"],
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main(sys.argv[1:])
