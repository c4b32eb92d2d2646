"""Hand-checked traces of the constructs REval's reference tracer gets wrong, in both modes.

Each expectation below was worked out by hand from CPython 3.11's line events and the
reference tracer's rules (ANCHORS.md §3): ``reval`` must reproduce its behaviour,
``exact`` must give the per-frame answer.  Lines are 1-indexed, as in REval's questions.
"""

from __future__ import annotations

import sys

import pytest

from execlens.engine import Engine
from execlens.trace import Trace, TraceLimits, trace_program
from execlens.values import NIL

pytestmark = pytest.mark.skipif(
    sys.version_info[:2] != (3, 11), reason="expectations are CPython 3.11's line events"
)

RECURSION = "def fact(n):\n    return 1 if n <= 1 else n * fact(n - 1)\n"

ONE_LINE_LOOP = "def f(xs):\n    total = 0\n    for x in xs: total += x\n    return total\n"

COMPREHENSION = "def g(xs):\n    ys = [x * 2 for x in xs]\n    return ys\n"

LAMBDA = "def h(xs):\n    key = lambda v: -v\n    ys = sorted(xs, key=key)\n    return ys\n"

EXCEPTION = (
    "def k(x):\n"
    "    try:\n"
    "        y = 10 // x\n"
    "    except ZeroDivisionError:\n"
    "        y = -1\n"
    "    return y\n"
)

RETURN_OWN_LINE = (
    "def inc(v):\n    w = v + 1\n    return w\ndef outer(a):\n    b = a * 2\n    return inc(b)\n"
)

CLASS = (
    "class Counter:\n"
    "    def __init__(self):\n"
    "        self.n = 0\n"
    "    def inc(self):\n"
    "        self.n += 1\n"
    "        return self.n\n"
)
CLASS_TEST = (
    "import unittest\n"
    "class CounterTest(unittest.TestCase):\n"
    "    def setUp(self):\n"
    "        self.c = Counter()\n"
    "    def test_inc(self):\n"
    "        self.assertEqual(self.c.inc(), 1)\n"
)

MULTI_LINE = "def p(a):\n    b = max(a,\n            3)\n    return b\n"


def _trace(engine: Engine, program: str, call: str, mode: str) -> Trace:
    trace = trace_program(engine, program, call, mode=mode)
    assert trace.recorded, trace.message
    return trace


def test_recursion_through_one_line(tracing_engine: Engine) -> None:
    reval = _trace(tracing_engine, RECURSION, "fact(3)", "reval")
    exact = _trace(tracing_engine, RECURSION, "fact(3)", "exact")
    assert reval.output == exact.output == 6
    # reval: three frames' events on line 2 merge into one state, last writer wins.
    assert reval.lines == [1]
    assert reval.states("n", 2) == [1]
    # exact: one step per frame, and the state after line 2 is each frame's own.
    assert exact.lines == [1, 1, 1]
    assert [exact.frames[s.frame].depth for s in exact.steps] == [0, 1, 2]
    assert exact.states("n", 2) == [3, 2, 1]
    assert reval.next_lines(2) == exact.next_lines(2) == {-1}


def test_one_line_loop(tracing_engine: Engine) -> None:
    reval = _trace(tracing_engine, ONE_LINE_LOOP, "f([1, 2])", "reval")
    exact = _trace(tracing_engine, ONE_LINE_LOOP, "f([1, 2])", "exact")
    assert reval.lines == [1, 2, 3]
    assert reval.next_lines(3) == {4}
    assert reval.states("total", 3) == [3]
    # exact: the header pass before the loop, then one pass per jump back.
    assert exact.lines == [1, 2, 2, 2, 3]
    assert exact.next_lines(3) == {3, 4}
    assert exact.states("total", 3) == [1, 3]


def test_comprehension(tracing_engine: Engine) -> None:
    reval = _trace(tracing_engine, COMPREHENSION, "g([1, 2])", "reval")
    exact = _trace(tracing_engine, COMPREHENSION, "g([1, 2])", "exact")
    # reval: the list comprehension's frame overwrites g's state on line 2.
    assert reval.lines == [1, 2]
    assert reval.locals_at(0) == {"x": {"__type__": "int", "__value__": 2}}
    assert reval.return_value(0) == {
        "__type__": "list",
        "__value__": [{"__type__": "int", "__value__": 2}, {"__type__": "int", "__value__": 4}],
    }
    # exact: the comprehension belongs to g's step.
    assert exact.lines == [1, 2]
    assert set(exact.locals_at(0) or {}) == {"xs"}
    for trace in (reval, exact):
        assert trace.covered(2)
        assert trace.next_lines(2) == {3}
        assert trace.states("ys", 2) == [[2, 4]]
        assert trace.states("x", 2) == [NIL]


def test_lambda(tracing_engine: Engine) -> None:
    reval = _trace(tracing_engine, LAMBDA, "h([1, 2])", "reval")
    exact = _trace(tracing_engine, LAMBDA, "h([1, 2])", "exact")
    assert reval.output == exact.output == [2, 1]
    # reval: the lambda's calls (line 2) interleave with h's states.
    # (``lines`` is 0-indexed: lines 2, 3, the lambda on 2, then 4.)
    assert reval.lines == [1, 2, 1, 3]
    assert reval.next_lines(2) == {3, 4}
    assert reval.next_lines(3) == {2}
    # exact: the lambda runs inside h's step on line 3.
    assert exact.lines == [1, 2, 3]
    assert exact.next_lines(2) == {3}
    assert exact.next_lines(3) == {4}


def test_exception_caught_and_uncaught(tracing_engine: Engine) -> None:
    for mode in ("reval", "exact"):
        trace = _trace(tracing_engine, EXCEPTION, "k(0)", mode)
        assert trace.output == -1
        assert not trace.covered(1) and trace.covered(3) and trace.covered(5)
        assert trace.next_lines(3) == {4}
        raised = [trace.exception_at(s) for s in trace.occurrences(3)]
        assert raised == [
            {"__type__": "type", "__kind__": "opaque", "__value__": "ZeroDivisionError"}
        ]
        assert trace.states("y", 5) == [-1]
        failed = _trace(tracing_engine, "def m(x):\n    return 1 // x\n", "m(0)", mode)
        assert failed.status == "exception"
        assert failed.exception_type == "ZeroDivisionError"
        assert failed.covered(2) and failed.output is None


def test_return_on_its_own_line(tracing_engine: Engine) -> None:
    reval = _trace(tracing_engine, RETURN_OWN_LINE, "outer(1)", "reval")
    exact = _trace(tracing_engine, RETURN_OWN_LINE, "outer(1)", "exact")
    assert reval.output == exact.output == 3
    # reval: outer's return event (line 6) follows inc's last state (line 3): a new
    # state with empty locals carries it.
    assert reval.lines == [4, 5, 1, 2, 5]
    assert reval.locals_at(4) == {}
    assert reval.return_value(4) == {"__type__": "int", "__value__": 3}
    assert reval.next_lines(3) == {6}
    assert reval.states("w", 3) == [NIL]
    assert reval.next_lines(6) == {2, -1}
    # exact: inc's return line ends inc's frame, w is inc's own.
    assert exact.lines == [4, 5, 1, 2]
    assert exact.next_lines(3) == {-1}
    assert exact.states("w", 3) == [3]
    assert exact.next_lines(6) == {-1}
    assert exact.states("b", 6) == [2]


def test_classeval_setup(tracing_engine: Engine) -> None:
    reval = trace_program(
        tracing_engine, CLASS, test=CLASS_TEST, test_class="CounterTest", mode="reval"
    )
    exact = trace_program(
        tracing_engine, CLASS, test=CLASS_TEST, test_class="CounterTest", mode="exact"
    )
    assert reval.ok and exact.ok
    # REval runs setUp before installing its tracer: __init__ never shows.
    assert not reval.covered(3)
    assert exact.covered(3)
    assert exact.states("self.n", 3) == [0]
    for trace in (reval, exact):
        assert trace.covered(5) and trace.covered(6)
        assert trace.next_lines(5) == {6}
        assert trace.states("self.n", 5) == [1]
    # The test code itself (setUp, test_inc) is never recorded.
    assert {f.function for f in exact.frames} == {"__init__", "inc"}


def test_multi_line_statement(tracing_engine: Engine) -> None:
    reval = _trace(tracing_engine, MULTI_LINE, "p(1)", "reval")
    exact = _trace(tracing_engine, MULTI_LINE, "p(1)", "exact")
    # reval keeps CPython's continuation-line events (2, 3, 2); exact folds them.
    assert reval.lines == [1, 2, 1, 3]
    assert reval.next_lines(2) == {3, 4}
    assert exact.lines == [1, 3]
    assert exact.next_lines(2) == {4}
    assert exact.covered(3)


def test_generator_frames(tracing_engine: Engine) -> None:
    program = (
        "def gen(n):\n"
        "    for i in range(n):\n"
        "        yield i\n"
        "def total():\n"
        "    return sum(gen(2))\n"
    )
    exact = _trace(tracing_engine, program, "total()", "exact")
    assert exact.output == 1
    # A yield does not end the generator's frame: its next line is its own loop.
    assert exact.next_lines(3) == {2}
    assert exact.next_lines(2) == {3, -1}
    reval = _trace(tracing_engine, program, "total()", "reval")
    assert reval.next_lines(3) == {2}
    assert reval.next_lines(5) == {2, -1}


def test_caps_truncate_but_keep_what_was_recorded(tracing_engine: Engine) -> None:
    program = "def spin(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s\n"
    for mode in ("reval", "exact"):
        trace = trace_program(
            tracing_engine, program, "spin(10000)", mode=mode, limits=TraceLimits(max_steps=50)
        )
        assert trace.ok and trace.output == sum(range(10000))
        assert trace.truncated == "steps"
        assert 0 < len(trace.steps) <= 50
        assert trace.covered(4)
        states_capped = trace_program(
            tracing_engine, program, "spin(100)", mode=mode, limits=TraceLimits(max_states=10)
        )
        assert states_capped.truncated == "states"
        assert len(states_capped.steps) > 10  # lines still recorded past the state cap


FINALIZERS = (
    "events = []\n"
    "def gen():\n"
    "    try:\n"
    "        yield 1\n"
    "        yield 2\n"
    "    finally:\n"
    "        events.append('generator closed')\n"
    "class Noisy:\n"
    "    def __del__(self):\n"
    "        events.append('object freed')\n"
    "def use():\n"
    "    g = gen()\n"
    "    n = Noisy()\n"
    "    next(g)\n"
    "    return len(events)\n"
    "def main():\n"
    "    before = use()\n"
    "    return before, list(events)\n"
)


def test_a_frame_s_objects_are_released_when_it_ends(tracing_engine: Engine) -> None:
    # Untraced, ``g`` and ``n`` die with ``use``'s frame: the generator's ``finally``
    # and ``__del__`` run before ``main`` reads ``events``.  The recorder must not keep
    # them alive past the frame.
    for mode in ("reval", "exact"):
        trace = _trace(tracing_engine, FINALIZERS, "main()", mode)
        assert trace.output == (0, ["generator closed", "object freed"]), mode
