"""Tracing programs through the engine: requests, jobs, and the ``Trace`` they yield."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from execlens.engine import DEFAULT_PRELOAD, Engine, Job, Limits, Outcome
from execlens.trace._recorder import statement_line_map
from execlens.trace._trace import MODE_ALIASES, MODES, Trace, canonical_mode

__all__ = [
    "MODES",
    "MODE_ALIASES",
    "TRACE_PRELOAD",
    "TRACE_RUNNER",
    "TraceLimits",
    "TraceRequest",
    "canonical_mode",
    "ground_truth_key",
    "trace_engine",
    "trace_from_outcome",
    "trace_is_deterministic",
    "trace_job",
    "trace_many",
    "trace_program",
]

TRACE_RUNNER = "execlens.trace._runner:run"
# What a tracing fork server should hold before forking: the runner and the modules the
# benchmark programs import most (numpy is measured in perf/tracer.py's notes).
TRACE_PRELOAD: tuple[str, ...] = (*DEFAULT_PRELOAD, "execlens.trace._runner")
DEFAULT_TRACE_LIMITS = Limits(wall_time=30.0, memory_mb=1024, output_bytes=1 << 20)


@dataclass(frozen=True, slots=True)
class TraceLimits:
    """Caps on one recording: line steps, locals snapshots, encoded value bytes."""

    max_steps: int = 200_000
    max_states: int = 50_000
    max_bytes: int = 32 * 1024 * 1024

    def to_dict(self) -> dict[str, int]:
        """The runner's ``limits`` option."""
        return {
            "max_steps": self.max_steps,
            "max_states": self.max_states,
            "max_bytes": self.max_bytes,
        }


@dataclass(frozen=True)
class TraceRequest:
    """One program run to trace.

    Either a call (``call`` source such as ``"f(1, 2)"``, or ``entry_point`` with
    ``args``/``kwargs`` as values), or a unittest method (``test`` source, ``test_class``
    name, optional ``test_method``: the class's first ``test*`` method by default).
    """

    program: str
    call: str | None = None
    entry_point: str | None = None
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    test: str | None = None
    test_class: str | None = None
    test_method: str | None = None
    mode: str = "exact"
    capture: str = "full"
    limits: TraceLimits = field(default_factory=TraceLimits)
    engine_limits: Limits | None = None
    hash_seed: int | None = None
    tag: Any = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", canonical_mode(self.mode))
        if self.mode not in MODES:
            raise ValueError(
                f"unknown trace mode {self.mode!r}: use 'exact' or 'frame-blind' (alias 'reval')"
            )
        if self.capture not in ("full", "lines", "coverage"):
            raise ValueError(f"unknown capture {self.capture!r}: use full, lines or coverage")
        if (self.test is None) != (self.test_class is None):
            raise ValueError("a unittest request needs both test and test_class")
        if self.test is not None and (self.call is not None or self.entry_point is not None):
            raise ValueError("give a call or a test class, not both")


def trace_job(request: TraceRequest) -> Job:
    """The engine job that traces ``request``."""
    options: dict[str, Any] = {
        "mode": request.mode,
        "capture": request.capture,
        "limits": request.limits.to_dict(),
    }
    if request.mode == "exact":
        try:
            options["line_map"] = sorted(statement_line_map(request.program).items())
        except SyntaxError:
            options["line_map"] = []  # the child reports the SyntaxError itself
    if request.test is not None:
        options.update(
            test=request.test, test_class=request.test_class, test_method=request.test_method
        )
    return Job(
        program=request.program,
        call=request.call,
        entry_point=request.entry_point,
        args=tuple(request.args),
        kwargs=dict(request.kwargs),
        limits=request.engine_limits or DEFAULT_TRACE_LIMITS,
        hash_seed=request.hash_seed,
        runner=TRACE_RUNNER,
        runner_options=options,
        tag=request.tag,
    )


def trace_from_outcome(outcome: Outcome, mode: str, tag: Any = None) -> Trace:
    """Wrap an engine outcome of a tracing job as a :class:`Trace`."""
    data = outcome.extra or {}
    exc = outcome.exception
    return Trace(
        mode=canonical_mode(mode),
        status=outcome.status.value,
        output_envelope=outcome.value if outcome.ok else None,
        exception_type=exc.type if exc else None,
        exception_message=exc.message if exc else None,
        stdout=outcome.stdout,
        truncated=data.get("truncated"),
        message=outcome.message,
        data=data,
        tag=tag,
    )


def trace_engine(workers: int | None = None, **kwargs: Any) -> Engine:
    """An engine whose servers preload the tracer (and ``preload`` extras, if given)."""
    extra = tuple(kwargs.pop("preload", ()))
    return Engine(
        workers=workers,
        preload=TRACE_PRELOAD + extra,
        limits=kwargs.pop("limits", DEFAULT_TRACE_LIMITS),
        **kwargs,
    )


def trace_program(
    engine: Engine,
    program: str,
    call: str | None = None,
    *,
    entry_point: str | None = None,
    args: tuple[Any, ...] = (),
    kwargs: Mapping[str, Any] | None = None,
    test: str | None = None,
    test_class: str | None = None,
    test_method: str | None = None,
    mode: str = "exact",
    capture: str = "full",
    limits: TraceLimits | None = None,
    engine_limits: Limits | None = None,
    hash_seed: int | None = None,
) -> Trace:
    """Run ``program`` in the engine and trace its call (or unittest method).

    >>> trace_program(engine, "def f(x):\\n    return x + 1", "f(1)").output
    2
    """
    request = TraceRequest(
        program=program,
        call=call,
        entry_point=entry_point,
        args=args,
        kwargs=kwargs or {},
        test=test,
        test_class=test_class,
        test_method=test_method,
        mode=mode,
        capture=capture,
        limits=limits or TraceLimits(),
        engine_limits=engine_limits,
        hash_seed=hash_seed,
    )
    return trace_from_outcome(engine.run(trace_job(request)), mode)


def ground_truth_key(trace: Trace) -> str:
    """A canonical string of everything a trace answers (for determinism checks)."""
    import json

    return json.dumps(
        [
            trace.status,
            trace.output_envelope,
            trace.exception_type,
            {k: v for k, v in trace.data.items() if k != "events"},
        ],
        sort_keys=True,
        ensure_ascii=False,
    )


def trace_is_deterministic(
    engine: Engine, request: TraceRequest, seeds: tuple[int, int] = (0, 1)
) -> bool:
    """Whether two runs under different hash seeds give identical ground truth.

    A program whose trace depends on the seed (e.g. it iterates over a set of strings)
    must be flagged, not used as ground truth.
    """
    from dataclasses import replace

    first, second = (
        trace_from_outcome(engine.run(trace_job(replace(request, hash_seed=s))), request.mode)
        for s in seeds
    )
    return ground_truth_key(first) == ground_truth_key(second)


def trace_many(
    engine: Engine,
    requests: Iterable[TraceRequest],
    *,
    progress: bool = False,
    batch_size: int | None = None,
) -> Iterator[Trace]:
    """Trace many requests (in input order); each trace carries its request's ``tag``."""
    items = list(requests)
    jobs = [trace_job(r) for r in items]
    for request, outcome in zip(items, engine.map(jobs, progress=progress, batch_size=batch_size)):
        yield trace_from_outcome(outcome, request.mode, request.tag)
