"""Jobs, limits and outcomes: the engine's data model."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import asdict, dataclass, field, replace
from enum import Enum
from typing import Any

from execlens.values import decode

__all__ = ["MAX_OUTPUT_BYTES", "ExceptionInfo", "Job", "Limits", "Outcome", "Status"]

# Upper bounds: a limit past these is a typo (or an ``inf`` that would reach the JSON
# protocol and stop the engine), never a real need.
MAX_WALL_TIME = 24 * 3600.0
MAX_MEMORY_MB = 1024 * 1024
MAX_FILE_SIZE_MB = 1024 * 1024
MAX_OPEN_FILES = 1 << 16
MAX_PROCESSES = 1 << 16
# What one result frame (64 MiB, see _protocol.RESULT_FRAME_LIMIT) can always carry:
# captured text may cost up to 6 bytes per character once JSON-escaped, and the value,
# traceback and runner data need room beside it.
MAX_OUTPUT_BYTES = 8 * 1024 * 1024


def _check_number(
    name: str,
    value: Any,
    low: float,
    high: float,
    unit: str,
    *,
    integer: bool = True,
    minimum_ok: bool = False,
) -> None:
    """Raise ``ValueError`` naming the field and the accepted range unless ``value`` fits."""
    integral = hasattr(value, "__index__")  # int and integer-like (numpy.int64)
    if isinstance(value, bool) or not (integral or (not integer and isinstance(value, float))):
        kind = "an integer" if integer else "a number"
        raise ValueError(f"{name} must be {kind}, not {value!r}")
    low_ok = value >= low if minimum_ok else value > low
    # NaN fails every comparison, inf fails the upper bound: both end up here.
    if not (low_ok and value <= high and math.isfinite(value)):
        bound = f">= {_plain(low)}" if minimum_ok else f"> {_plain(low)}"
        raise ValueError(
            f"{name} must be a finite number {bound} and <= {_plain(high)} {unit}, not {value!r}"
        )


def _plain(number: float) -> str:
    return f"{int(number)}" if float(number).is_integer() else f"{number}"


class Status(str, Enum):
    """How a job ended.  Every failure has its own name."""

    OK = "ok"
    EXCEPTION = "exception"  # the program raised (type, message, traceback lines)
    TIMEOUT = "timeout"  # wall deadline passed; the process group was SIGKILLed
    MEMORY_EXCEEDED = "memory_exceeded"  # the address-space limit was hit
    OUTPUT_LIMIT = "output_limit"  # stdout + stderr exceeded the output limit
    CRASHED = "crashed"  # died by a signal, exited early, or broke the result channel
    SANDBOX_ERROR = "sandbox_error"  # the engine itself failed (server died, bad job)


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-job resource limits.

    ``memory_mb`` is the address space a job may add on top of the warm interpreter it
    was forked from.  ``cpu_time`` defaults to ``wall_time`` + 1 s.  ``max_processes``
    bounds processes *and threads* of the sandbox uid (``RLIMIT_NPROC``).
    """

    wall_time: float = 5.0
    cpu_time: float | None = None
    memory_mb: int = 512
    output_bytes: int = 64 * 1024
    file_size_mb: int = 16
    open_files: int = 256
    max_processes: int = 32

    def __post_init__(self) -> None:
        _check_number("wall_time", self.wall_time, 0.0, MAX_WALL_TIME, "seconds", integer=False)
        if self.cpu_time is not None:
            _check_number("cpu_time", self.cpu_time, 0.0, MAX_WALL_TIME, "seconds", integer=False)
        _check_number("memory_mb", self.memory_mb, 16, MAX_MEMORY_MB, "MB", minimum_ok=True)
        _check_number(
            "output_bytes", self.output_bytes, 0, MAX_OUTPUT_BYTES, "bytes", minimum_ok=True
        )
        _check_number("file_size_mb", self.file_size_mb, 0, MAX_FILE_SIZE_MB, "MB", minimum_ok=True)
        _check_number(
            "open_files", self.open_files, 16, MAX_OPEN_FILES, "descriptors", minimum_ok=True
        )
        _check_number(
            "max_processes", self.max_processes, 1, MAX_PROCESSES, "processes", minimum_ok=True
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return asdict(self)

    def with_(self, **changes: Any) -> Limits:
        """A copy with some limits changed."""
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class Job:
    """One program to run, with one way of calling it.

    * ``program`` is module source, executed in a fresh namespace named ``module_name``.
    * ``call`` (optional) is source run in that namespace afterwards: an expression's
      value becomes the job's value (``"f(1, 2)"``); statements just run
      (``"assert f(1) == 2"``).
    * ``entry_point`` with ``args``/``kwargs`` calls a function by name with values
      passed as envelopes (never as code).
    * ``runner`` names an in-sandbox function (``"package.module:function"``) that takes
      over execution, e.g. the tracer; ``runner_options`` is passed to it as JSON.
    * ``tag`` is the caller's own identifier, returned untouched on the outcome.
    * ``seed`` (optional): the child seeds ``random`` (and NumPy's global generator when
      NumPy is loaded) with it right before running the program, so a program's
      randomness is a function of the job.  ``None`` keeps the default: each forked child
      reseeds ``random`` from the OS (Python's at-fork hook).
    * ``origin`` (optional): who wrote the code this job runs.  Jobs of one program with
      equal origins may run one after another in one forked child (``batch_size``,
      ``submit_batch``), each in a fresh namespace, and only while nothing one of them
      changes survives to the next (the child is retired and a fresh one forked when
      anything does).  Jobs of different origins never share a process.  ``None`` (the
      default) is an origin of its own: the job shares its child with no other job.
      Give one origin to jobs whose code all comes from one author -- the inputs of one
      function called with values (``entry_point`` + ``args``), calls built from one
      dataset's inputs -- and never to jobs whose ``call`` holds code of different
      authors (the generations of a sample).  Any hashable value.
    """

    program: str
    call: str | None = None
    entry_point: str | None = None
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    limits: Limits | None = None
    hash_seed: int | None = None
    stdin: str | None = None
    module_name: str = "__main__"
    runner: str | None = None
    runner_options: Mapping[str, Any] | None = None
    tag: Any = None
    seed: int | None = None
    origin: Hashable | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.program, str):
            raise TypeError("Job.program must be a string of Python source")
        if self.call is not None and self.entry_point is not None:
            raise ValueError("give either call or entry_point, not both")
        if (self.args or self.kwargs) and self.entry_point is None:
            raise ValueError("args/kwargs need an entry_point")
        if self.seed is not None and (
            isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0
        ):
            raise ValueError(f"Job.seed must be a non-negative integer or None, not {self.seed!r}")
        try:
            hash(self.origin)
        except TypeError:
            raise TypeError(f"Job.origin must be hashable, not {self.origin!r}") from None


@dataclass(slots=True)
class ExceptionInfo:
    """An exception raised by the program: type name, message, and its own frames."""

    type: str
    message: str
    traceback: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Outcome:
    """What one job did.  ``value`` is an envelope (see :mod:`execlens.values`)."""

    status: Status
    value: dict[str, Any] | None = None
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    duration: float = 0.0
    peak_memory_mb: float | None = None
    exception: ExceptionInfo | None = None
    signal: int | None = None
    exit_code: int | None = None
    message: str = ""
    extra: dict[str, Any] | None = None
    tag: Any = None

    @property
    def ok(self) -> bool:
        """Whether the job finished normally."""
        return self.status is Status.OK

    def decoded(self) -> Any:
        """The return value decoded into a host-side Python value."""
        return None if self.value is None else decode(self.value)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (``status`` as its string, ``tag`` omitted)."""
        data = {
            "status": self.status.value,
            "value": self.value,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "stdout_truncated": self.stdout_truncated,
            "stderr_truncated": self.stderr_truncated,
            "duration": self.duration,
            "peak_memory_mb": self.peak_memory_mb,
            "exception": asdict(self.exception) if self.exception else None,
            "signal": self.signal,
            "exit_code": self.exit_code,
            "message": self.message,
        }
        if self.extra is not None:
            data["extra"] = self.extra
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], tag: Any = None) -> Outcome:
        """Rebuild from :meth:`to_dict` output (or a server reply)."""
        exc = data.get("exception")
        return cls(
            status=Status(data["status"]),
            value=data.get("value"),
            stdout=data.get("stdout", ""),
            stderr=data.get("stderr", ""),
            stdout_truncated=bool(data.get("stdout_truncated", False)),
            stderr_truncated=bool(data.get("stderr_truncated", False)),
            duration=float(data.get("duration", 0.0)),
            peak_memory_mb=data.get("peak_memory_mb"),
            exception=ExceptionInfo(**exc) if exc else None,
            signal=data.get("signal"),
            exit_code=data.get("exit_code"),
            message=data.get("message", ""),
            extra=data.get("extra"),
            tag=tag,
        )
