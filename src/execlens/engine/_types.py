"""Jobs, limits and outcomes: the engine's data model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from enum import Enum
from typing import Any

from execlens.values._decode import decode

__all__ = ["ExceptionInfo", "Job", "Limits", "Outcome", "Status"]


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
        if self.wall_time <= 0:
            raise ValueError("wall_time must be positive")
        if self.memory_mb < 16:
            raise ValueError("memory_mb must be at least 16")
        if self.output_bytes < 0:
            raise ValueError("output_bytes must be >= 0")

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

    def __post_init__(self) -> None:
        if not isinstance(self.program, str):
            raise TypeError("Job.program must be a string of Python source")
        if self.call is not None and self.entry_point is not None:
            raise ValueError("give either call or entry_point, not both")
        if (self.args or self.kwargs) and self.entry_point is None:
            raise ValueError("args/kwargs need an entry_point")


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
