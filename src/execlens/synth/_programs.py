"""The programs the sandbox runs for synthesis: a function's code behind the import
prefix its code was written against, plus small drivers of our own.

CodeI/O generated and executed every function behind a prefix of common imports
(``math``, ``collections``, ``itertools``, ``numpy as np`` ...), so many functions use
those names without importing them.  We supply the same names; numpy only when the
code mentions it, because importing numpy costs every child tens of milliseconds.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re

__all__ = [
    "GENERATOR_NAMES",
    "IMPORT_PREFIX",
    "NUMPY_PREFIX",
    "PROGRAM_REQUIREMENTS",
    "SYNTH_PRELOAD",
    "codeio_program",
    "collect_program",
    "generator_convention",
    "needs_numpy",
    "probe_program",
    "replay_program",
]

IMPORT_PREFIX = """\
import bisect, collections, copy, datetime, functools, heapq, itertools, json, math
import operator, random, re, string, sys
from bisect import bisect, bisect_left, bisect_right, insort
from collections import Counter, OrderedDict, defaultdict, deque
from copy import deepcopy
from functools import cache, cmp_to_key, lru_cache, partial, reduce
from heapq import heapify, heappop, heappush, heapreplace, merge, nlargest
from itertools import (accumulate, chain, combinations, count, cycle, groupby, islice,
                       pairwise, permutations, product, repeat, zip_longest)
from math import (atan2, ceil, comb, dist, factorial, floor, gcd, hypot, inf, isqrt, lcm,
                  log, log2, log10, pi, prod, sqrt)
from operator import and_, itemgetter, or_, sub, xor
from os.path import commonprefix
from random import Random, randint, randrange, shuffle
from re import search as re_search
from string import ascii_lowercase, ascii_uppercase
from typing import (Any, Callable, Dict, Generator, Iterable, Iterator, List, Optional, Set,
                    Tuple, Union)
"""

NUMPY_PREFIX = "import numpy as np\n"


def _preload() -> tuple[str, ...]:
    from execlens.engine import DEFAULT_PRELOAD

    # numpy in the servers: importing it in every child costs ~10 ms per input (the
    # engine restores sys.modules between inputs), a preloaded copy is shared.
    return (*DEFAULT_PRELOAD, "random", "numpy")


SYNTH_PRELOAD: tuple[str, ...] = _preload()

_NUMPY = re.compile(r"\b(np|numpy)\b")


#: What the program environment needs for CodeI/O's pairs to reproduce: its functions
#: were written for NumPy 1.x, and NumPy 2 prints scalars as ``np.float64(1.0)``, which
#: changes every stored output that holds one (the CLI warns when these are not met).
PROGRAM_REQUIREMENTS: tuple[str, ...] = ("numpy<2",)


def needs_numpy(code: str) -> bool:
    """Whether ``code`` mentions numpy (then the prefix imports it)."""
    return bool(_NUMPY.search(code))


def _prefix(*codes: str) -> str:
    return IMPORT_PREFIX + (NUMPY_PREFIX if any(needs_numpy(c) for c in codes) else "")


@functools.lru_cache(maxsize=1)
def _size_source() -> str:
    from execlens.synth import _size

    return inspect.getsource(_size)


# The drivers run inside the sandbox, after the function's code.  Their names start
# with ``__synth_`` so they cannot collide with a function's own names.
_COLLECT_DRIVER = '''

def __synth_collect__(calls, keep, seed, generator, takes_rng):
    """Call the input generator up to `calls` times; keep up to `keep` new, size-checked,
    JSON-stable pairs; each input is recorded before main_solution sees it.

    Call k seeds `random` (and NumPy) with seed + k and passes a `random.Random(seed + k)`
    when the generator takes one, so input k does not depend on what main_solution drew
    before it.  A generator returns a kwargs dict; a list of dicts is several inputs; a
    tuple is main_solution's arguments by position (see _as_inputs)."""
    import json as _json
    import random as _random
    import sys as _sys
    generate = globals()[generator]
    pairs, seen, counts, made = [], set(), {}, 0

    def bump(reason):
        counts[reason] = counts.get(reason, 0) + 1

    def failed(prefix, exc):
        if isinstance(exc, ModuleNotFoundError) and exc.name:
            bump("missing_module:" + exc.name.split(".")[0])
        else:
            bump(prefix + type(exc).__name__)

    for k in range(calls):
        made += 1
        call_seed = (seed + k) % (2 ** 63)
        _random.seed(call_seed)
        if "numpy" in _sys.modules:
            _sys.modules["numpy"].random.seed(call_seed % (2 ** 32))
        try:
            produced = generate(_random.Random(call_seed)) if takes_rng else generate()
        except Exception as exc:
            failed("generator_exception:", exc)
            continue
        inputs, problem = __synth_as_inputs__(produced, generator)
        if problem:
            bump(problem)
            continue
        for given in inputs:
            try:
                text = _json.dumps(given, sort_keys=True, allow_nan=False)
                recorded = _json.loads(text)
            except Exception:
                bump("input_not_json")
                continue
            if text in seen:
                bump("duplicate_input")
                continue
            seen.add(text)
            if recorded != given:
                bump("input_not_json_stable")
                continue
            if not size_ok(given):
                bump("input_too_large")
                continue
            try:
                result = main_solution(**given)
            except Exception as exc:
                failed("exception:", exc)
                continue
            if result is None:
                bump("output_none")
                continue
            try:
                output = _json.loads(_json.dumps(result, allow_nan=False))
            except Exception:
                bump("output_not_json")
                continue
            if not size_ok(result):
                bump("output_too_large")
                continue
            pairs.append({"input": recorded, "output": output, "call": k})
            if len(pairs) >= keep:
                break
        if len(pairs) >= keep:
            break
    return {"pairs": pairs, "counts": counts, "calls": made}


def __synth_as_inputs__(produced, generator):
    """The kwargs dicts one generator call produced, or a problem name.

    dict -> one input; a non-empty list of dicts from generate_inputs -> several; a
    tuple -> main_solution's parameters in order (positional-or-keyword ones; it must
    fill the required ones and not exceed them all); anything else -> generator_not_dict."""
    import inspect as _inspect
    if isinstance(produced, dict):
        return [produced], None
    if (generator == "generate_inputs" and isinstance(produced, list) and produced
            and all(isinstance(item, dict) for item in produced)):
        return produced, None
    if isinstance(produced, tuple):
        try:
            params = [p for p in _inspect.signature(main_solution).parameters.values()
                      if p.kind is p.POSITIONAL_OR_KEYWORD]
        except (TypeError, ValueError):
            return [], "generator_tuple_unmappable"
        required = sum(p.default is p.empty for p in params)
        if not required <= len(produced) <= len(params):
            return [], "generator_tuple_arity"
        return [dict(zip((p.name for p in params), produced))], None
    return [], "generator_not_dict"
'''

_PROBE_DRIVER = '''

def __synth_probe__(given):
    """main_solution(**given) (positional when not a dict); the JSON output, whether
    the call changed its input, and the size rule on the output."""
    import json as _json
    before = _json.dumps(given, sort_keys=True, default=repr)
    if isinstance(given, dict):
        result = main_solution(**given)
    else:
        result = main_solution(given)
    after = _json.dumps(given, sort_keys=True, default=repr)
    loose = None
    try:
        output, json_ok = _json.loads(_json.dumps(result, allow_nan=False)), True
    except Exception:
        output, json_ok = repr(result)[:2000], False
        try:  # JSON with Infinity/NaN, as the reference wrote it
            loose = _json.dumps(_json.loads(_json.dumps(result)), sort_keys=True,
                                ensure_ascii=False)
        except Exception:
            pass
    return {"output": output, "json_ok": json_ok, "mutated": before != after,
            "size_ok": json_ok and size_ok(result), "none": result is None,
            "loose_json": loose}
'''


_REPLAY_DRIVER = '''

def __synth_replay__(inputs):
    """main_solution on every input in turn, in this one process (as CodeI/O's reference
    ran a function's pairs): each result as sorted JSON text, or the exception's type."""
    import copy as _copy
    import json as _json
    results = []
    for given in inputs:
        try:
            result = main_solution(**_copy.deepcopy(given))
        except Exception as exc:
            results.append("exception:" + type(exc).__name__)
            continue
        try:  # the text the probe compares: JSON round trip, sorted keys
            results.append(_json.dumps(_json.loads(_json.dumps(result)), sort_keys=True,
                                       ensure_ascii=False))
        except Exception:
            results.append("repr:" + repr(result)[:2000])
    return results
'''


#: The input-generator conventions, in the order they are looked for: CodeI/O's
#: ``input_generator()`` (no argument) and reasoning-gym's ``generate_input(rng)`` /
#: ``generate_inputs(rng)``; a generator taking a positional parameter is passed a
#: seeded ``random.Random``.
GENERATOR_NAMES = ("input_generator", "generate_input", "generate_inputs")


def generator_convention(source: str) -> tuple[str, bool] | None:
    """``(name, takes_rng)`` of the input generator ``source`` defines at top level, or
    ``None`` when it defines none of :data:`GENERATOR_NAMES` (or does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    defined = {
        node.name: node
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    for name in GENERATOR_NAMES:
        node = defined.get(name)
        if isinstance(node, ast.FunctionDef):
            return name, bool(node.args.posonlyargs or node.args.args)
    return None


def collect_program(refcode: str, generator: str) -> str:
    """The generator-driven collection program for one function."""
    return "\n\n".join(
        (_prefix(refcode, generator), refcode, generator, _size_source(), _COLLECT_DRIVER)
    )


def replay_program(refcode: str) -> str:
    """The program that runs inputs through ``main_solution`` one after another in one
    process (``__synth_replay__``), to see whether calls share state."""
    return "\n\n".join((_prefix(refcode), refcode, _REPLAY_DRIVER))


def probe_program(refcode: str) -> str:
    """The program that runs one input through ``main_solution`` (``__synth_probe__``)."""
    return "\n\n".join((_prefix(refcode), refcode, _size_source(), _PROBE_DRIVER))


def codeio_program(refcode: str) -> str:
    """The module a CodeI/O function runs as: the import prefix its code was written
    against (numpy only when it mentions it), then the code.  Verification runs it
    through the judge's shared driver, so checks of many functions share one child."""
    return f"{_prefix(refcode)}\n{refcode}"
