"""Tracer overhead on every REval input, in one process, beside a deepcopy baseline.

Every runnable DREval input (HumanEval calls and ClassEval test methods) runs in this
process — no engine, so fork costs do not hide the tracer's — under five regimes:

* untraced;
* coverage only (``Recorder(capture="coverage")``);
* full state, ``exact`` mode (steps, locals as envelopes, returns, exceptions);
* full state, ``reval`` mode;
* a baseline written here in REval's style: ``sys.settrace`` and ``copy.deepcopy`` of
  each program frame's locals on every line.

Each regime runs the whole set ``--rounds`` times; the best round counts (a traced
run includes building the recorder and its ``result()``, and any GC passes it causes).
Prints total seconds, runs/s, the ratio to untraced and the speed-up over the deepcopy
baseline; ``--json`` adds one JSON object on the last line.  Dataset code runs
in-process here, from a scratch working directory: only run it on data you trust (the
REval release).

    .venv/bin/python perf/tracer.py [--data ../shared/data/reval] [--rounds 3] [--json]
``EXECLENS_PERF_SMALL=1``: the first 30 inputs, one round (``perf/_small.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import os
import sys
import tempfile
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _small import small

from execlens.bench.reval import load_reval_problems
from execlens.trace import Recorder, statement_line_map

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("EXECLENS_TEST_DATA", REPO.parent / "shared" / "data")) / "reval"


class _Input:
    """One input, compiled once: ``run(before, start, stop)`` executes it."""

    def __init__(
        self,
        key: str,
        code: str,
        call: str | None,
        test: str | None,
        test_class: str | None,
        test_method: str | None,
    ) -> None:
        self.key = key
        self.source = code
        self.program = compile(code, "<program>", "exec")
        self.call = compile(call, "<call>", "eval") if call else None
        self.test = compile(test, "<test>", "exec") if test else None
        self.test_class = test_class
        self.test_method = test_method
        self.line_map = statement_line_map(code)

    def run(
        self, start: Callable[[], None], stop: Callable[[], None], setup_traced: bool = False
    ) -> Any:
        namespace: dict[str, Any] = {"__name__": "__main__"}
        exec(self.program, namespace)  # noqa: S102 - trusted benchmark data
        if self.call is not None:
            start()
            try:
                return eval(self.call, namespace)  # noqa: S307
            finally:
                stop()
        namespace["__name__"] = "__bench_test__"
        exec(self.test, namespace)  # noqa: S102
        case = namespace[self.test_class](self.test_method)
        if setup_traced:
            start()
        try:
            case.setUp()
            if not setup_traced:
                start()
            getattr(case, self.test_method)()
        finally:
            stop()
        return None


def _noop() -> None:
    return None


def _deepcopy_tracer() -> tuple[Callable[[], None], Callable[[], None], list[Any]]:
    """REval's approach: deepcopy every program frame's locals at every line event."""
    states: list[Any] = []
    skip = (
        types.ModuleType,
        types.FunctionType,
        types.BuiltinFunctionType,
        types.MethodType,
        types.GeneratorType,
    )

    def snapshot(frame: Any) -> dict[str, Any]:
        out = {}
        for name, value in frame.f_locals.items():
            if isinstance(value, skip) or hasattr(type(value), "__next__"):
                continue
            try:
                out[name] = copy.deepcopy(value)
            except Exception:  # noqa: BLE001 - uncopyable values are skipped, as upstream
                continue
        return out

    def local(frame: Any, event: str, arg: Any) -> Any:
        line = frame.f_lineno - 1
        if event == "line":
            state = {"lineno": line, "locals": snapshot(frame)}
            if states and states[-1]["lineno"] == line:
                states[-1].update(state)
            else:
                states.append(state)
        elif event == "return":
            if states and states[-1]["lineno"] == line:
                states[-1]["return"] = copy.deepcopy(arg)
            else:
                states.append({"lineno": line, "locals": {}, "return": copy.deepcopy(arg)})
        elif event == "exception":
            states.append({"lineno": line, "locals": {}, "exception": arg[0]})
        return local

    def global_(frame: Any, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == "<program>" else None

    return (lambda: sys.settrace(global_)), (lambda: sys.settrace(None)), states


def _regimes() -> dict[str, Callable[[_Input], Any]]:
    def untraced(item: _Input) -> Any:
        return item.run(_noop, _noop)

    def recorder(mode: str, capture: str) -> Callable[[_Input], Any]:
        def run(item: _Input) -> Any:
            rec = Recorder(
                mode=mode, capture=capture, line_map=item.line_map if mode == "exact" else None
            )
            item.run(rec.start, rec.stop, setup_traced=mode == "exact")
            return rec.result()

        return run

    def deepcopy_baseline(item: _Input) -> Any:
        start, stop, states = _deepcopy_tracer()
        item.run(start, stop)
        return states

    return {
        "untraced": untraced,
        "coverage": recorder("exact", "coverage"),
        "full_exact": recorder("exact", "full"),
        "full_reval": recorder("reval", "full"),
        "deepcopy_baseline": deepcopy_baseline,
    }


def _load(data: Path) -> list[_Input]:
    items = []
    for problem in load_reval_problems(data):
        if problem.skip_reason:
            continue
        for item in problem.runs:
            items.append(
                _Input(
                    item.key,
                    problem.code,
                    item.call,
                    problem.test,
                    item.test_class,
                    item.test_method,
                )
            )
    return items


def _time_round(items: list[_Input], run: Callable[[_Input], Any]) -> tuple[float, list[float]]:
    per_input = []
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        for item in items:
            start = time.perf_counter()
            try:
                run(item)
            except Exception:  # noqa: BLE001, S110 - failing tests still count as runs
                pass
            per_input.append(time.perf_counter() - start)
            sink.seek(0)
            sink.truncate()
    return sum(per_input), per_input


def main() -> None:
    """Run the benchmark and print the table (and JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--rounds", type=int, default=small(3, 1))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    items = _load(args.data)[: small(None, 30)]
    regimes = _regimes()
    best: dict[str, float] = {}
    tails: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        cwd = os.getcwd()
        os.chdir(scratch)
        try:
            _time_round(items, regimes["untraced"])  # first runs import what programs use
            for name, run in regimes.items():
                _time_round(items[:50], run)  # warm up
                rounds = [_time_round(items, run) for _ in range(args.rounds)]
                total, per_input = min(rounds, key=lambda r: r[0])
                best[name] = total
                tails[name] = per_input
        finally:
            os.chdir(cwd)
    base = best["untraced"]
    print(
        f"REval inputs traced in-process: {len(items)} (Python {sys.version.split()[0]}, "
        f"best of {args.rounds} rounds)"
    )
    print(f"{'regime':<20}{'seconds':>10}{'runs/s':>12}{'x untraced':>12}{'vs deepcopy':>13}")
    for name, total in best.items():
        print(
            f"{name:<20}{total:>10.3f}{len(items) / total:>12.0f}{total / base:>12.1f}"
            f"{best['deepcopy_baseline'] / total:>12.1f}x"
        )
    ratio_vs_baseline = best["deepcopy_baseline"] / best["full_exact"]
    print(
        f"full state (exact) is {ratio_vs_baseline:.1f}x faster than the deepcopy baseline "
        f"(reval mode: {best['deepcopy_baseline'] / best['full_reval']:.1f}x)"
    )
    heavy = sorted(range(len(items)), key=lambda i: -tails["deepcopy_baseline"][i])[:5]
    share = sum(tails["deepcopy_baseline"][i] for i in heavy) / best["deepcopy_baseline"]
    print(
        f"baseline heavy tail: 5 inputs take {share:.0%} of its time "
        f"({', '.join(items[i].key for i in heavy)})"
    )
    if args.json:
        print(
            json.dumps(
                {
                    "inputs": len(items),
                    "python": sys.version.split()[0],
                    "seconds": best,
                    "runs_per_second": {k: len(items) / v for k, v in best.items()},
                    "ratio_to_untraced": {k: v / base for k, v in best.items()},
                    "full_exact_speedup_vs_deepcopy": ratio_vs_baseline,
                    "full_reval_speedup_vs_deepcopy": best["deepcopy_baseline"]
                    / best["full_reval"],
                }
            )
        )


if __name__ == "__main__":
    main()
