"""A request as the zygote prepares it before forking: decoded, compiled, limits ready."""

from __future__ import annotations

import marshal
import resource
import warnings
from typing import Any

__all__ = ["CALL_FILENAME", "PROGRAM_FILENAME", "Prepared", "compile_quietly"]

PROGRAM_FILENAME = "<program>"
CALL_FILENAME = "<call>"
_COMPILE_IN_ZYGOTE_LIMIT = 256 * 1024  # larger sources are compiled by the child itself

# Bound at import: sandboxed code may replace these in builtins before a child uses them.
compile = compile  # noqa: PLW0127
int = int  # noqa: PLW0127
isinstance = isinstance  # noqa: PLW0127
len = len  # noqa: PLW0127


def compile_quietly(source: str, filename: str, mode: str) -> Any:
    """``compile`` without its SyntaxWarnings (``None(...)``, ``x is 1``): they would be
    written to the fork server's stderr, which is the host's terminal."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        return compile(source, filename, mode)


def _compile_call(source: str) -> tuple[Any, bool]:
    try:
        return compile_quietly(source, CALL_FILENAME, "eval"), True
    except SyntaxError:
        return compile_quietly(source, CALL_FILENAME, "exec"), False


def _try_compile_call(source: str | None) -> tuple[Any, bool] | BaseException | None:
    try:
        return _compile_call(source) if source is not None else None
    except BaseException as exc:  # noqa: BLE001
        return exc


class Prepared:
    """A job decoded and compiled by the zygote before it forks the child.

    Compiling before the fork means the child inherits the code objects instead of
    running the compiler itself, which would write to many pages it shares with the
    zygote (each a copy-on-write fault).  Very large sources are left to the child, so
    the zygote never spends long on one job.  Every child of one request reuses it: the
    server tells each child which inputs to run (``_report.read_go``).
    """

    __slots__ = (
        "address_space",
        "calls",
        "compile_error",
        "memory_bytes",
        "nproc",
        "output_limit",
        "program_code",
        "request",
        "rlimits",
    )

    def __init__(self, payload: bytes) -> None:
        # marshal, not JSON: the server built these bytes from the host's JSON request,
        # and marshal decodes in C.
        self.request: dict[str, Any] = marshal.loads(payload)
        self.program_code: Any = None
        self.compile_error: BaseException | None = None
        self.calls: list[tuple[Any, bool] | BaseException | None] = []
        # The limits, as the tuples setrlimit takes: built here once per request, so
        # each child reads a few adjacent objects instead of converting the JSON values.
        limits = self.request["limits"]
        self.output_limit = int(limits["output_bytes"])
        self.memory_bytes = int(limits["memory_mb"]) * 1024 * 1024
        self.address_space = (0, 0)  # set by the zygote: set_address_space()
        cpu = int(limits["cpu_seconds"]) + 1
        file_size = int(limits["file_size_mb"]) * 1024 * 1024
        nofile = int(limits["open_files"])
        self.rlimits = (
            (resource.RLIMIT_CPU, (cpu, cpu + 1)),
            (resource.RLIMIT_FSIZE, (file_size, file_size)),
            (resource.RLIMIT_CORE, (0, 0)),
            (resource.RLIMIT_NOFILE, (nofile, nofile)),
        )
        nproc = int(limits["max_processes"])
        self.nproc = (nproc, nproc)
        source: str = self.request["program"]
        if len(source) <= _COMPILE_IN_ZYGOTE_LIMIT:
            self.compile_program()
            self.calls = [_try_compile_call(spec.get("call")) for spec in self.request["calls"]]

    def set_address_space(self, vm_size: int) -> None:
        """Cap the child's address space at the zygote's current size plus its memory limit."""
        limit = vm_size + self.memory_bytes
        self.address_space = (limit, limit)

    def compile_program(self) -> None:
        """Compile the program (in the child, for sources too large for the zygote)."""
        try:
            self.program_code = compile_quietly(self.request["program"], PROGRAM_FILENAME, "exec")
        except BaseException as exc:  # noqa: BLE001 - SyntaxError, ValueError (NUL)...
            self.compile_error = exc

    def call(self, index: int) -> tuple[Any, bool] | None:
        """The compiled call of input ``index`` (code, is_expression); raises its error."""
        compiled = (
            self.calls[index]
            if index < len(self.calls)
            else _try_compile_call(self.request["calls"][index].get("call"))
        )
        if isinstance(compiled, BaseException):
            raise compiled
        return compiled
