"""The recorder's incremental locals snapshots against encoding every local afresh.

The recorder reuses envelopes while a variable's object (and, for containers and plain
objects, what they hold) did not change, patches list envelopes in place, and skips
unchanged positions of the locals dict.  Here every snapshot it takes is checked against
a fresh ``encode()`` of the same locals at the same moment, on programs built to change
variables in every way those shortcuts must notice.  Recorded in-process, so the
comparison sees the very dict the recorder saw.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest

from execlens.trace import Recorder, statement_line_map
from execlens.trace._recorder import Limits
from execlens.trace._recorder._fingerprint import _SkipCache
from execlens.trace._recorder._values import _ENCODE_CAPS
from execlens.values import encode

PROGRAM = """
import collections

class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y

class Bag:
    def __init__(self):
        self.items = []
        self.counts = {}
    def add(self, item):
        self.items.append(item)
        self.counts[item] = self.counts.get(item, 0) + 1
        return len(self.items)

def lists(n):
    xs = []
    for i in range(n):
        xs.append(i * 1.5)
    xs[3] = "three"
    xs[0], xs[1] = xs[1], xs[0]
    xs.insert(0, None)
    xs.pop()
    big = list(range(100))
    big[50] = -1
    big.append(10 ** 20)
    big.extend([True, b"raw", 2.5])
    del big[:3]
    big.sort(key=str)
    nested = [[0] * 3 for _ in range(3)]
    nested[1][1] = 5
    nested.append((1, 2))
    huge = list(range(1500))
    huge[7] = "x"
    return xs, big, nested, len(huge)

def rebinding(n):
    v = 1
    v = len
    v = 2.0
    v = [v]
    v = lists
    v = (1, 2)
    w = v
    del v
    v = w
    try:
        1 / 0
    except ZeroDivisionError as err:
        caught = err
    text = "a"
    for _ in range(n):
        text += "b"
    return text, caught.args

def objects(n):
    p = Point(1, 2)
    bag = Bag()
    for i in range(n):
        p.x += i
        bag.add(i % 3)
    p.z = [p.x]
    p.z.append(p.y)
    d = {"a": 1}
    d["b"] = [1, 2]
    d["b"].append(3)
    d.pop("a")
    s = {1, 2}
    s.add(3)
    fs = frozenset(s)
    q = collections.deque([1, 2])
    q.appendleft(0)
    dd = collections.defaultdict(list)
    dd["k"].append(1)
    return p.x, bag.counts, d, sorted(fs), list(q), dict(dd)

def frames(n):
    def fact(k):
        return 1 if k <= 1 else k * fact(k - 1)
    def gen(k):
        acc = []
        for i in range(k):
            acc.append(i)
            yield list(acc)
    total = sum(len(x) for x in gen(n))
    squares = [x * x for x in range(n)]
    table = {x: [x] for x in range(3)}
    return fact(n), total, squares, table

def specials(n):
    floats = [float("nan"), float("inf"), -0.0, 1e308 * 10]
    ints = [2 ** 70, -(2 ** 65), True]
    shared = [1, 2]
    pair = [shared, shared]
    shared.append(3)
    loop = [1]
    loop.append(loop)
    here = locals()
    here["extra"] = 1
    cx = 1 + 2j
    r = range(n)
    return len(floats), ints, pair, len(loop), cx, r
"""

NUMPY_PROGRAM = """
import numpy as np

def arrays(n):
    a = np.arange(6, dtype=np.float64)
    m = np.asmatrix([[1, 2], [3, 4]])
    total = np.float64(0.0)
    for i in range(n):
        total = total + a[i]
        a[i] = -a[i]
        if i == 2:
            m[0, 0] = 9
    flag = np.bool_(True)
    count = np.int64(3)
    return float(total), m.tolist(), bool(flag), int(count)
"""

CALLS = ["lists(8)", "rebinding(3)", "objects(4)", "frames(4)", "specials(3)"]


def _fresh(f_locals: dict[str, Any], skip: _SkipCache) -> dict[str, str]:
    """Every local the recorder keeps, encoded from scratch, as canonical JSON."""
    return {
        name: json.dumps(encode(value, _ENCODE_CAPS), sort_keys=True)
        for name, value in f_locals.items()
        if not skip[type(value)]
    }


def _record(program: str, call: str, mode: str) -> tuple[Recorder, list[tuple[int, dict]]]:
    """Run ``call`` under a recorder whose every snapshot is paired with a fresh one."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(program, "<program>", "exec"), namespace)  # noqa: S102 - our own code
    recorder = Recorder(
        mode=mode,
        line_map=statement_line_map(program) if mode == "exact" else None,
        limits=Limits(max_states=10**6),
    )
    pairs: list[tuple[int, dict]] = []
    skip = _SkipCache()
    original_start = recorder.start

    def start() -> None:
        original_start()
        make = recorder._make_snap

        def make_checked(rec: Any) -> Callable[[dict[str, Any]], int]:
            snap = make(rec)

            def checked(f_locals: dict[str, Any]) -> int:
                index = snap(f_locals)
                pairs.append((index, _fresh(f_locals, skip)))
                return index

            return checked

        recorder._make_snap = make_checked

    recorder.start = start  # type: ignore[method-assign]
    recorder.start()
    try:
        eval(compile(call, "<call>", "eval"), namespace)  # noqa: S307 - our own code
    finally:
        recorder.stop()
        sys.settrace(None)
    return recorder, pairs


def _check(program: str, call: str, mode: str) -> int:
    recorder, pairs = _record(program, call, mode)
    record = recorder.result()
    values, snapshots = record["values"], record["snapshots"]
    assert pairs and record["truncated"] is None
    for index, fresh in pairs:
        assert index >= 0
        recorded = {
            name: json.dumps(values[i], sort_keys=True) for name, i in snapshots[index].items()
        }
        assert recorded == fresh, (call, mode)
    return len(pairs)


@pytest.mark.parametrize("mode", ["exact", "reval"])
@pytest.mark.parametrize("call", CALLS)
def test_every_snapshot_equals_a_fresh_encoding(call: str, mode: str) -> None:
    assert _check(PROGRAM, call, mode) > 5


@pytest.mark.parametrize("mode", ["exact", "reval"])
def test_numpy_values_are_reencoded_when_they_change(mode: str) -> None:
    pytest.importorskip("numpy")
    assert _check(NUMPY_PROGRAM, "arrays(4)", mode) > 5


def test_unchanged_lines_share_one_snapshot() -> None:
    program = (
        "def f(n):\n"
        "    total = 0\n"
        "    for i in range(n):\n"
        "        if i < 0:\n"
        "            total += 1\n"
        "    return total\n"
    )
    recorder, pairs = _record(program, "f(3)", "exact")
    indices = [index for index, _ in pairs]
    # The ``if`` line changes nothing: its step reuses the ``for`` line's snapshot.
    assert any(a == b for a, b in pairwise(indices))
    assert len(recorder.snapshots) == len(set(indices))
