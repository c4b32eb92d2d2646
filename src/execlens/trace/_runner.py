"""The engine runner that traces a job inside the sandboxed child.

``Job(runner="execlens.trace._runner:run", runner_options={...})``.  Options:

* ``mode``: ``"exact"`` (default) or ``"frame-blind"`` (alias ``"reval"``); ``capture``:
  ``"full"``, ``"lines"`` or ``"coverage"``;
* ``limits``: ``{"max_steps", "max_states", "max_bytes"}``;
* ``line_map``: ``[[continuation_line, statement_line], ...]`` (exact mode, 1-indexed);
* ``test``, ``test_class``, ``test_method``: drive a unittest class (ClassEval): the test
  source is compiled as ``"<test>"`` (never traced) in the program's namespace, the
  class is instantiated for the method, ``setUp`` runs (traced in exact mode only, as
  REval runs it before installing its tracer), then the method runs traced.

The module body always runs untraced; then the call (or test method) runs traced.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from execlens.trace._recorder import Limits, Recorder

__all__ = ["run"]

TEST_FILENAME = "<test>"


def run(
    run_program: Callable[[], None],
    run_call: Callable[[], Any],
    namespace: dict[str, Any],
    options: dict[str, Any],
) -> tuple[Any, dict[str, Any] | None]:
    """Run the program untraced, then its call (or test method) under the recorder."""
    mode = options.get("mode", "exact")
    limits = Limits(**(options.get("limits") or {}))
    line_map = {int(a): int(b) for a, b in options.get("line_map") or ()}
    recorder = Recorder(
        mode=mode,
        capture=options.get("capture", "full"),
        limits=limits,
        line_map=line_map,
        backend=options.get("backend", "auto"),
    )
    run_program()
    try:
        if options.get("test") is not None:
            _run_test(recorder, namespace, options, mode)
            value = None  # a unittest case returns nothing: its outcome is the trace
        else:
            recorder.start()
            try:
                value = run_call()
            finally:
                recorder.stop()
    except BaseException as exc:
        recorder.stop()
        try:
            exc.__execlens_extra__ = recorder.result()  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001, S110 - some exception types refuse attributes
            pass
        raise
    return value, recorder.result()


def _run_test(
    recorder: Recorder, namespace: dict[str, Any], options: dict[str, Any], mode: str
) -> None:
    code = compile(options["test"], TEST_FILENAME, "exec")
    module_name = namespace.get("__name__")
    # The test module must not see itself as __main__ (``unittest.main()`` would exit).
    namespace["__name__"] = "__execlens_test__"
    try:
        exec(code, namespace)  # noqa: S102 - sandboxed by design
    finally:
        namespace["__name__"] = module_name
    case_class = namespace.get(options["test_class"])
    if not isinstance(case_class, type):
        raise LookupError(f"test class {options['test_class']!r} is not defined by the test code")
    method = options.get("test_method") or _first_test_method(case_class)
    case = case_class(method)
    if mode == "exact":
        recorder.start()
        try:
            case.setUp()
            getattr(case, method)()
        finally:
            recorder.stop()
    else:
        case.setUp()
        recorder.start()
        try:
            getattr(case, method)()
        finally:
            recorder.stop()


def _first_test_method(case_class: type) -> str:
    for name, value in vars(case_class).items():
        if name.startswith("test") and callable(value):
            return name
    raise LookupError(f"{case_class.__name__} has no test method")
