"""What REval's evaluator does with model text, done inside the engine's sandboxed child.

These functions run in the child (imported from a job's ``call``); they execute model
text, so they must never run in the host.  Each mirrors one step of REval's
``evaluation.py``:

* :func:`state_answer` -- ``State._postprocess``: turn ``value; type`` into a value and a
  type (``eval`` of the value, ``pydoc.locate`` of the type, the ad-hoc cases for ``str``,
  ``datetime``, ``numpy.ndarray`` and ``None``);
* :func:`humaneval_check` -- ``Output._humaneval_task_impl``: ``exec`` the completed
  snippet with the function in scope;
* :func:`classeval_check` -- ``Output._classeval_task_impl``: the snippet as a method of
  the test class (already rewritten by REval's ``create_from_answer``), ``setUp`` then
  the method;
* :func:`classeval_record` -- not REval: the original test body with recorders around
  the masked expressions, for the strict ground truth.

Only the standard library is imported up front; numpy, pandas and dateutil load when a
text mentions them, as forks stay cheap that way.
"""

from __future__ import annotations

import builtins
import json
from typing import Any

__all__ = ["classeval_check", "classeval_record", "humaneval_check", "state_answer"]

_TEST_MODULE_NAME = "__execlens_test__"


def _evaluator_globals(text: str) -> dict[str, Any]:
    """The names REval's evaluation.py module has bound where it ``eval``s/``exec``s."""
    import argparse
    import datetime
    import glob
    import inspect
    import os
    import re
    import sys
    from pydoc import locate

    names: dict[str, Any] = {
        "__builtins__": builtins,
        "__name__": "evaluation",
        "argparse": argparse,
        "glob": glob,
        "inspect": inspect,
        "os": os,
        "re": re,
        "json": json,
        "sys": sys,
        "datetime": datetime.datetime,
        "locate": locate,
    }
    if "np" in text or "numpy" in text:
        import numpy

        names["np"] = numpy
    if "pd" in text or "pandas" in text:
        try:
            import pandas

            names["pd"] = pandas
        except ImportError:  # pragma: no cover - pandas comes with the datasets dependency
            pass
    return names


def _type_identity(value: Any) -> tuple[str, str, bool]:
    """(module, qualified name, is a class) of what ``pydoc.locate`` returned."""
    if isinstance(value, type):
        return value.__module__, value.__qualname__, True
    if value is None:
        return "", "", False
    return (
        getattr(value, "__module__", "") or type(value).__module__,
        getattr(value, "__name__", type(value).__name__),
        False,
    )


def _result(value: Any, located: Any) -> tuple[str, Any, str, str, bool, bool]:
    module, name, is_class = _type_identity(located)
    matches = located is not None and type(value) == located  # noqa: E721 - REval's test
    return "ok", value, module, name, matches, is_class


def state_answer(value_text: str, type_text: str) -> tuple[Any, ...]:
    """REval's reading of a ``value; type`` state answer.

    ``type_text`` is already normalised (lower-cased, ``<class '…'>`` unwrapped, generics
    dropped, aliases applied).  Returns ``("ok", value, type_module, type_name,
    value_has_that_type, type_is_a_class)``, or ``("error", reason)`` where REval returns
    ``'ERROR'``.
    """
    from pydoc import locate

    names = _evaluator_globals(value_text)
    if type_text == "str":
        try:
            return _result(eval(value_text, names), str)  # noqa: S307 - sandboxed child
        except Exception:  # noqa: BLE001 - REval keeps the raw text
            return _result(value_text, str)
    if type_text in ("datetime.datetime", "datetime"):
        try:
            from dateutil.parser import parse

            return _result(parse(value_text), locate(type_text))
        except Exception as exc:  # noqa: BLE001
            return ("error", f"datetime: {type(exc).__name__}: {exc}"[:300])
    if type_text in ("numpy.ndarray", "np.ndarray"):
        try:
            import numpy

            names["np"] = numpy
            return _result(numpy.array(eval(value_text, names)), locate(type_text))  # noqa: S307
        except Exception as exc:  # noqa: BLE001
            return ("error", f"ndarray: {type(exc).__name__}: {exc}"[:300])
    if value_text == "None" or type_text == "NoneType":  # the type is lower-case: never true
        return _result(None, type(None))
    try:
        located = locate(type_text)
        if located is None:
            return ("error", f"pydoc.locate({type_text!r}) found nothing")
        if not isinstance(located, type):
            return ("error", f"{type_text!r} is not a class")
        if located.__module__ == "builtins":
            value = eval(value_text, names)  # noqa: S307 - sandboxed child
        else:
            try:
                value = located(eval(value_text, names))  # noqa: S307
            except Exception:  # noqa: BLE001 - REval then passes the raw text
                value = located(value_text)
        return _result(value, located)
    except Exception as exc:  # noqa: BLE001
        return ("error", f"{type(exc).__name__}: {exc}"[:300])


def humaneval_check(snippet: str, entry_point: str, namespace: dict[str, Any]) -> None:
    """``exec`` the completed snippet as REval does: the function in the local scope.

    REval runs ``exec(ans)`` inside a method whose locals hold the function; the
    snippet's globals are the evaluator module's.  Raises whatever the snippet raises.
    """
    local_names = {entry_point: namespace[entry_point]}
    code = compile(snippet, "<string>", "exec")
    exec(code, _evaluator_globals(snippet), local_names)  # noqa: S102 - sandboxed child


def _exec_test(namespace: dict[str, Any], test_source: str) -> None:
    saved = namespace.get("__name__")
    namespace["__name__"] = _TEST_MODULE_NAME  # so `unittest.main()` under __main__ stays off
    try:
        exec(compile(test_source, "<test>", "exec"), namespace)  # noqa: S102
    finally:
        namespace["__name__"] = saved
    # REval compiled problems and tests into its dynamics module, whose own imports the
    # answers could see; add the ones a test method might plausibly use.
    import ast
    import inspect
    import itertools
    import sys
    import tempfile
    from copy import deepcopy

    for name, value in (
        ("ast", ast),
        ("inspect", inspect),
        ("itertools", itertools),
        ("sys", sys),
        ("tempfile", tempfile),
        ("deepcopy", deepcopy),
    ):
        namespace.setdefault(name, value)


def classeval_check(
    namespace: dict[str, Any], test_source: str, test_class: str, method_source: str
) -> None:
    """Run a completed ClassEval snippet the way REval's output task does.

    ``method_source`` is REval's ``create_from_answer`` rewrite (``def
    dreval_output_pred(self): ...``).  The test module runs in the program's namespace;
    the method is attached to ``test_class``; an instance is made, ``setUp`` runs, then
    the method.  Raises whatever fails.
    """
    _exec_test(namespace, test_source)
    case_class = namespace[test_class]
    exec(compile(method_source, "<internals>", "exec"), namespace)  # noqa: S102
    method = namespace["dreval_output_pred"]
    case_class.dreval_output_pred = method  # as REval attaches it
    case = case_class()
    if hasattr(case, "setUp"):
        case.setUp()
    case.dreval_output_pred()


def classeval_record(
    namespace: dict[str, Any], test_source: str, test_class: str, method_source: str
) -> str:
    """Run an instrumented test body; JSON ``{"records": [[key, envelope]...], "error"}``.

    Values are encoded the moment they are recorded (a later statement may mutate them).
    """
    from execlens.values import encode

    records: list[list[Any]] = []

    def record(key: str, value: Any) -> Any:
        records.append([key, encode(value)])
        return value

    error = None
    try:
        _exec_test(namespace, test_source)
        case_class = namespace[test_class]
        namespace["__execlens_record__"] = record
        exec(compile(method_source, "<test-body>", "exec"), namespace)  # noqa: S102
        case = case_class()
        case.setUp()
        namespace["__execlens_method__"](case)
    except BaseException as exc:  # noqa: BLE001 - keep what was recorded before the failure
        error = f"{type(exc).__name__}: {exc}"[:500]
    return json.dumps({"records": records, "error": error})
