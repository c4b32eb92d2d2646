"""Inputs of one origin share a child only while nothing survives between them (issue 23).

Each case is a program whose first input leaves one kind of process state behind and
whose every input reports what it sees of that state and its pid.  Run as a batch of
one origin, the second input must see exactly what it sees alone, in a fresh child (the
first one retired); a program that changes nothing keeps its child.  One server, so
that no idle worker takes part of a batch away (that too would change the pid).
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator

import pytest

from execlens.engine import Engine, Job, Limits, Status

LIMITS = Limits(wall_time=5.0)

# Reads the umask (putting it back).
UMASK = "(lambda os: (lambda u: (os.umask(u), u)[1])(os.umask(0o22)))(__import__('os'))"
# (name, what the first input does, what every input reports)
CASES = [
    ("module attribute", "import json; json.leak = 1", "getattr(__import__('json'), 'leak', 0)"),
    (
        "module attribute deleted",
        "import json; del json.dumps",
        "hasattr(__import__('json'), 'dumps')",
    ),
    (
        "sys.modules entry",
        "import sys, types; sys.modules['leak'] = types.ModuleType('leak')",
        "'leak' in __import__('sys').modules",
    ),
    ("a module imported", "import colorsys", "'colorsys' in __import__('sys').modules"),
    ("builtins", "import builtins; builtins.leak = 1", "hasattr(__import__('builtins'), 'leak')"),
    ("sys attribute", "import sys; sys.leak = 1", "hasattr(__import__('sys'), 'leak')"),
    ("excepthook", "import sys; sys.excepthook = print", "__import__('sys').excepthook is print"),
    (
        "thread",
        "import _thread, time; _thread.start_new_thread(time.sleep, (30,))",
        "__import__('_thread')._count()",
    ),
    (
        "timer",
        "import signal; signal.setitimer(signal.ITIMER_REAL, 100)",
        "__import__('signal').getitimer(__import__('signal').ITIMER_REAL)[0] > 0",
    ),
    (
        "alarm",
        "import signal; signal.signal(signal.SIGALRM, signal.SIG_IGN); signal.alarm(100)",
        "__import__('signal').alarm(0) > 0",
    ),
    (
        "signal handler",
        "import signal; signal.signal(signal.SIGUSR1, signal.SIG_IGN)",
        "str(__import__('signal').getsignal(__import__('signal').SIGUSR1))",
    ),
    (
        "signal mask",
        "import signal; signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2})",
        "sorted(map(int, __import__('signal').pthread_sigmask(0, [])))",
    ),
    (
        "trace hook",
        "import sys; sys.settrace(lambda *a: None)",
        "__import__('sys').gettrace() is not None",
    ),
    (
        "profile hook",
        "import sys; sys.setprofile(lambda *a: None)",
        "__import__('sys').getprofile() is not None",
    ),
    ("audit hook", "import sys; sys.addaudithook(lambda event, args: None)", "0"),
    (
        "import hook",
        "import sys\nclass Finder:\n    def find_spec(self, *a): return None\n"
        "sys.meta_path.insert(0, Finder())",
        "len(__import__('sys').meta_path)",
    ),
    (
        "path hook",
        "import sys; sys.path_hooks.append(lambda path: None)",
        "len(__import__('sys').path_hooks)",
    ),
    ("sys.path", "import sys; sys.path.append('/nowhere')", "'/nowhere' in __import__('sys').path"),
    (
        "recursion limit",
        "import sys; sys.setrecursionlimit(4321)",
        "__import__('sys').getrecursionlimit()",
    ),
    (
        "int max str digits",
        "import sys; sys.set_int_max_str_digits(640)",
        "__import__('sys').get_int_max_str_digits()",
    ),
    ("collector", "import gc; gc.disable()", "__import__('gc').isenabled()"),
    (
        "collector callback",
        "import gc; gc.callbacks.append(print)",
        "len(__import__('gc').callbacks)",
    ),
    ("environment", "import os; os.environ['LEAK'] = '1'", "__import__('os').environ.get('LEAK')"),
    ("putenv", "import os; os.putenv('LEAK2', '1')", "0"),
    ("working directory", "import os; os.mkdir('d'); os.chdir('d')", "__import__('os').getcwd()"),
    ("umask", "import os; os.umask(0)", UMASK),
    (
        "decimal context",
        "import decimal; decimal.getcontext().prec = 5",
        "__import__('decimal').getcontext().prec",
    ),
    (
        "decimal traps",
        "import decimal; decimal.getcontext().traps[decimal.Inexact] = True",
        "__import__('decimal').getcontext().traps[__import__('decimal').Inexact]",
    ),
    (
        "warnings filter",
        "import warnings; warnings.simplefilter('error')",
        "len(__import__('warnings').filters)",
    ),
    (
        "scratch file",
        "open('leak.txt', 'w').write('x')",
        "__import__('os').path.exists('leak.txt')",
    ),
    ("open descriptor", "import os; os.open('/dev/null', os.O_RDONLY)", "0"),
    ("child process", "import os\nif os.fork() == 0:\n    os._exit(0)", "0"),
    (
        "socket timeout",
        "import socket; socket.setdefaulttimeout(7)",
        "__import__('socket').getdefaulttimeout()",
    ),
    (
        "surviving object",
        "import copyreg\nclass Box: pass\ncopyreg.dispatch_table[Box] = lambda box: (Box, ())",
        "len(__import__('copyreg').dispatch_table)",
    ),
    ("blocking stdout", "import os; os.set_blocking(1, False)", "__import__('os').get_blocking(1)"),
]


def _program(change: str, observe: str) -> str:
    body = "\n".join("        " + line for line in change.splitlines())
    return (
        "import os as _system\n"
        f"def f(x):\n    if x == 0:\n{body}\n    return [{observe}, _system.getpid()]\n"
    )


@pytest.fixture(scope="module")
def single() -> Iterator[Engine]:
    """One server for the module's tests."""
    with Engine(workers=1, limits=LIMITS) as engine:
        yield engine


@pytest.mark.parametrize(("change", "observe"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_what_an_input_leaves_behind_retires_the_child(
    single: Engine, change: str, observe: str
) -> None:
    program = _program(change, observe)
    alone = single.run(Job(program, call="f(1)"))
    futures = single.submit_batch([Job(program, call=f"f({x})", origin="one") for x in (0, 1)])
    first, second = (future.result() for future in futures)
    assert alone.status is Status.OK, alone.message
    assert first.status is Status.OK and second.status is Status.OK, (first, second)
    assert second.decoded()[0] == alone.decoded()[0]  # what it sees is what it sees alone
    assert second.decoded()[1] != first.decoded()[1], "the changed child ran the next input"


def test_inputs_that_change_nothing_share_their_child(single: Engine) -> None:
    program = (
        "import os, json, math, decimal, collections\n"
        "class Point:\n"
        "    def __init__(self, x):\n"
        "        self.x = x\n"
        "def f(x):\n"
        "    total = decimal.Decimal(1) / decimal.Decimal(7)\n"  # sets flags: cleared, no change
        "    data = json.loads(json.dumps({'x': x}))\n"
        "    counts = collections.Counter(str(x) * 3)\n"
        "    if x == 2:\n"
        "        raise ValueError('an exception is no change either')\n"
        "    seventh = math.floor(float(total) * 7)\n"
        "    return [Point(x).x, data['x'], counts[str(x)], seventh, os.getpid()]\n"
    )
    jobs = [Job(program, call=f"f({x})", origin="one") for x in range(4)]
    futures = single.submit_batch(jobs)
    outcomes = [future.result() for future in futures]
    assert outcomes[2].status is Status.EXCEPTION
    values = [o.decoded() for o in outcomes if o.ok]
    assert [v[:4] for v in values] == [[0, 0, 3, 1], [1, 1, 3, 1], [3, 3, 3, 1]]
    assert len({v[4] for v in values}) == 1, "a child that nothing changed was retired"


def test_the_program_is_the_real_main_module(single: Engine) -> None:
    # What a program defines can be found by name: pickle (and so multiprocessing and
    # ProcessPoolExecutor, which pickle the functions they run) needs it.
    program = (
        "import pickle, sys\n"
        "class Box:\n"
        "    def __init__(self, v):\n"
        "        self.v = v\n"
        "def double(x):\n"
        "    return 2 * x\n"
        "def f(x):\n"
        "    again = pickle.loads(pickle.dumps(double))\n"
        "    box = pickle.loads(pickle.dumps(Box(x)))\n"
        "    return [again(x), box.v, __name__, sys.modules['__main__'].f is f]\n"
    )
    outcome = single.run(Job(program, call="f(21)"))
    assert outcome.status is Status.OK, outcome.message
    assert outcome.decoded() == [42, 21, "__main__", True]
    # And a value the program returns pickles in the host's terms: it is an envelope.
    assert pickle.loads(pickle.dumps(outcome.value)) == outcome.value
