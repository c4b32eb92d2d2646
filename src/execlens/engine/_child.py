"""The forked child: lock itself down, run the program on each input, report as JSON.

Runs right after ``fork()`` in the server.  It never returns: it ends with
``os._exit``.  Results go to the server as frames on ``RESULT_FD``, one per input,
each carrying the job's token so stray writes by the program are recognised.
"""

from __future__ import annotations

import builtins
import io
import marshal
import os
import resource
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any, NoReturn, cast

from execlens.engine._isolation import ServerIsolation, set_parent_death_signal
from execlens.engine._protocol import RESULT_FRAME_LIMIT, encode_frame, write_bytes, write_frame
from execlens.values import Caps, decode, encode

__all__ = ["RESULT_FD", "Prepared", "address_space_now", "prepare_server", "run_child", "warm_up"]


RESULT_FD = 199
PROGRAM_FILENAME = "<program>"
CALL_FILENAME = "<call>"
_ENCODE_CAPS = Caps()


# Bound at import, as module globals: sandboxed code may replace these in builtins
# before our code encodes and reports its result.
any = any  # noqa: PLW0127
bool = bool  # noqa: PLW0127
bytes = bytes  # noqa: PLW0127
compile = compile  # noqa: PLW0127
dict = dict  # noqa: PLW0127
getattr = getattr  # noqa: PLW0127
int = int  # noqa: PLW0127
isinstance = isinstance  # noqa: PLW0127
len = len  # noqa: PLW0127
memoryview = memoryview  # noqa: PLW0127
object = object  # noqa: PLW0127
range = range  # noqa: PLW0127
str = str  # noqa: PLW0127
type = type  # noqa: PLW0127


class _ChildState:
    """Mutable per-child state, reachable from the output capture on overflow.

    An instance, not class attributes: assigning to a class attribute invalidates the
    type's version tag, and every specialised instruction that read it then rewrites
    itself — in a forked child, each such write is a copy-on-write page fault.
    """

    __slots__ = (
        "index",
        "limit",
        "result_fd",
        "seed",
        "started",
        "stderr",
        "stdout",
        "token",
        "used",
    )

    def __init__(self) -> None:
        self.token = ""
        self.result_fd = RESULT_FD
        self.index = 0
        self.used = 0
        self.limit = 0
        self.started = 0.0
        self.seed: int | None = None  # the running input's Job.seed
        self.stdout: _Capture | None = None
        self.stderr: _Capture | None = None


_State = _ChildState()


def _emit(record: dict[str, Any]) -> None:
    record["t"] = _State.token
    frame = encode_frame(record)
    if len(frame) > RESULT_FRAME_LIMIT:
        frame = _within_frame_limit(record, len(frame))
    write_bytes(_State.result_fd, frame)


def _within_frame_limit(record: dict[str, Any], size: int) -> bytes:
    """A frame the server accepts for a result too large for one (the value or runner
    data is what overflows: captured output alone always fits, see Limits.output_bytes)."""
    message = (
        f"the result ({size} bytes encoded) exceeds the {RESULT_FRAME_LIMIT}-byte "
        "result frame; its value and runner data were dropped"
    )
    slim: dict[str, Any] = {
        key: record[key] for key in ("t", "i", "duration", "peak_memory_mb") if key in record
    }
    slim.update(status="sandbox_error", message=message)
    for key in ("stdout", "stderr", "stdout_truncated", "stderr_truncated"):
        if key in record:
            slim[key] = record[key]
    frame = encode_frame(slim)
    if len(frame) > RESULT_FRAME_LIMIT:
        slim.update(stdout="", stderr="", stdout_truncated=True, stderr_truncated=True)
        frame = encode_frame(slim)
    return frame


class _Capture:
    """A capped text stream standing in for ``sys.stdout``/``sys.stderr``.

    stdout and stderr share one budget.  Past it, the input is reported as
    ``output_limit`` and the child exits at once: the program cannot catch that.
    A plain class rather than an ``io`` subclass: it is created after every fork, and
    the less interpreter state a child touches, the fewer pages it copies.
    """

    encoding = "utf-8"
    errors = "strict"
    closed = False
    newlines = None

    def __init__(self, name: str) -> None:
        self.name = name
        self.parts: list[str] = []
        self.truncated = False

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def seekable(self) -> bool:
        return False

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise io.UnsupportedOperation("captured stream has no file descriptor")

    def flush(self) -> None:
        return None

    def close(self) -> None:
        return None

    @property
    def buffer(self) -> _BytesCapture:
        return _BytesCapture(self)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        _State.used += len(text)
        if _State.used > _State.limit:
            room = len(text) - (_State.used - _State.limit)
            if room > 0:
                self.parts.append(text[:room])
            self.truncated = True
            _overflow()
        self.parts.append(text)
        return len(text)

    def text(self) -> str:
        return "".join(self.parts)


class _BytesCapture:
    """``sys.stdout.buffer`` for programs that write bytes."""

    def __init__(self, capture: _Capture) -> None:
        self._capture = capture

    def write(self, data: bytes) -> int:
        self._capture.write(bytes(data).decode("utf-8", "replace"))
        return len(data)

    def flush(self) -> None:
        return None


def _captured() -> dict[str, Any]:
    out, err = _State.stdout, _State.stderr
    return {
        "stdout": out.text() if out else "",
        "stderr": err.text() if err else "",
        "stdout_truncated": bool(out and out.truncated),
        "stderr_truncated": bool(err and err.truncated),
    }


def _overflow() -> NoReturn:
    record = {
        "i": _State.index,
        "status": "output_limit",
        "duration": time.perf_counter() - _State.started,
        "message": f"stdout+stderr exceeded {_State.limit} characters",
    }
    record.update(_captured())
    try:
        _emit(record)
    finally:
        os._exit(0)


def _exception_info(exc: BaseException, lines: list[str]) -> dict[str, Any]:
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001 - a hostile __str__ must not stop the report
        message = "<unprintable exception>"
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frame, lineno, tb = tb.tb_frame, tb.tb_lineno, tb.tb_next
        filename = frame.f_code.co_filename
        if filename not in (PROGRAM_FILENAME, CALL_FILENAME):
            continue
        source = ""
        if filename == PROGRAM_FILENAME and 0 < lineno <= len(lines):
            source = lines[lineno - 1].strip()
        frames.append(f"{filename}:{lineno} in {frame.f_code.co_name}: {source}".rstrip(": "))
    return {"type": type(exc).__name__, "message": message[:2000], "traceback": frames[-50:]}


def address_space_now() -> int:
    """This process's virtual memory size in bytes (read in the server, before forking)."""
    fd = os.open("/proc/self/statm", os.O_RDONLY)
    try:
        pages = int(os.read(fd, 256).split()[0])
    finally:
        os.close(fd)
    return pages * _PAGE_SIZE


_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def _lock_down(job: Prepared, iso: ServerIsolation, scratch: str) -> None:
    # Everything here runs after fork: keep it to syscalls on values the zygote prepared,
    # since every Python object touched costs a copy-on-write page fault.
    # Its own process group (the server kills the whole group), inside the session the
    # zygote leads: no controlling terminal, and not being a session leader it can never
    # acquire one.  Not a session of its own: with the kernel's scheduler autogroups on,
    # setsid() builds a scheduling group per call (~0.2 ms, about a tenth of a job).
    os.setpgid(0, 0)
    os.chdir(scratch)
    os.umask(0o077)
    setrlimit = resource.setrlimit
    setrlimit(resource.RLIMIT_AS, job.address_space)
    for which, limit in job.rlimits:
        setrlimit(which, limit)
    # A uid of its own and no groups, or (a one-uid user namespace) no capabilities.
    iso.drop_privileges(job.nproc)
    # Cleared by the uid change above, so set after it: die with the server.
    set_parent_death_signal()
    # The seccomp filter is already in place: the zygote installed it once, and every
    # child inherits it (loading it per child would JIT-compile it again each time).


def _load_runner(name: str) -> Callable[..., tuple[Any, dict[str, Any] | None]]:
    module_name, _, attr = name.partition(":")
    module = __import__(module_name, fromlist=[attr])
    return getattr(module, attr)


def _default_runner(
    run_program: Callable[[], None],
    run_call: Callable[[], Any],
    namespace: dict[str, Any],
    options: dict[str, Any],
) -> tuple[Any, dict[str, Any] | None]:
    run_program()
    return run_call(), None


def _compile(source: str, filename: str, mode: str) -> Any:
    """``compile`` without its SyntaxWarnings (``None(...)``, ``x is 1``): they would be
    written to the fork server's stderr, which is the host's terminal."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        return compile(source, filename, mode)


def _compile_call(source: str) -> tuple[Any, bool]:
    try:
        return _compile(source, CALL_FILENAME, "eval"), True
    except SyntaxError:
        return _compile(source, CALL_FILENAME, "exec"), False


def _restore(current: dict[str, Any], saved: dict[str, Any], drop_new: bool) -> None:
    """Put back every entry of ``saved`` by identity (never ``==``: values may be hostile)."""
    changed = len(current) != len(saved) or any(
        current.get(key, _MISSING) is not value for key, value in saved.items()
    )
    if not changed:
        return
    if drop_new:
        for key in [k for k in current if k not in saved]:
            del current[key]
    current.update(saved)


_MISSING = object()


_COMPILE_IN_ZYGOTE_LIMIT = 256 * 1024  # larger sources are compiled by the child itself


class Prepared:
    """A job decoded and compiled by the zygote before it forks the child.

    Compiling before the fork means the child inherits the code objects instead of
    running the compiler itself, which would write to many pages it shares with the
    zygote (each a copy-on-write fault).  Very large sources are left to the child, so
    the zygote never spends long on one job.
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
        "start",
        "token",
    )

    def __init__(self, payload: bytes) -> None:
        self.retarget(payload[:20])
        # marshal, not JSON: the server built these bytes from the host's JSON request,
        # and marshal decodes in C.
        self.request: dict[str, Any] = marshal.loads(payload[20:])
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

    def retarget(self, header: bytes) -> None:
        """Point this job at one child: ``header`` is its token (16 bytes) + start input (4).

        The zygote calls it again to reuse the job for the next child of the same request.
        """
        self.token: str = header[:16].decode("ascii")
        self.start: int = int.from_bytes(header[16:20], "big")

    def set_address_space(self, vm_size: int) -> None:
        """Cap the child's address space at the zygote's current size plus its memory limit."""
        limit = vm_size + self.memory_bytes
        self.address_space = (limit, limit)

    def compile_program(self) -> None:
        """Compile the program (in the child, for sources too large for the zygote)."""
        try:
            self.program_code = _compile(self.request["program"], PROGRAM_FILENAME, "exec")
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


def _try_compile_call(source: str | None) -> tuple[Any, bool] | BaseException | None:
    try:
        return _compile_call(source) if source is not None else None
    except BaseException as exc:  # noqa: BLE001
        return exc


def _run_inputs(job: Prepared) -> None:
    request = job.request
    start = job.start
    program_source: str = request["program"]
    lines = program_source.splitlines()
    module_name = request.get("module_name", "__main__")
    runner = _load_runner(request["runner"]) if request.get("runner") else _default_runner
    runner_options = request.get("runner_options") or {}
    if job.program_code is None and job.compile_error is None:
        job.compile_program()
    program_code, compile_error = job.program_code, job.compile_error
    saved_recursion = _Snapshot.get()[2]
    has_stdin = request.get("stdin") is not None
    calls = request["calls"]
    # Each child runs at most ``per_child`` inputs; the server forks another for the rest.
    stop = min(len(calls), start + int(request.get("per_child") or len(calls)))
    for index in range(start, stop):
        spec = calls[index]
        _State.index = index
        _State.used = 0
        _State.stdout = sys.stdout = _Capture("<stdout>")
        _State.stderr = sys.stderr = _Capture("<stderr>")
        if has_stdin:
            os.lseek(0, 0, os.SEEK_SET)
            sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
        else:
            sys.stdin = sys.__stdin__  # the server's, on /dev/null and never read
        namespace: dict[str, Any] = {"__name__": module_name, "__builtins__": builtins}
        record: dict[str, Any] = {"i": index}
        _State.seed = spec.get("seed")
        if _State.seed is not None:
            _seed_generators(_State.seed)
        _State.started = time.perf_counter()
        try:
            if compile_error is not None:
                raise compile_error
            compiled_call = job.call(index)
            call_code, is_expression = compiled_call if compiled_call else (None, False)
            entry_point = spec.get("entry_point")

            def run_program() -> None:
                exec(program_code, namespace)  # noqa: S102 - sandboxed by design

            def run_call() -> Any:
                if entry_point is not None:
                    args = [decode(a) for a in spec.get("args", [])]
                    kwargs = {k: decode(v) for k, v in (spec.get("kwargs") or {}).items()}
                    return namespace[entry_point](*args, **kwargs)
                if call_code is None:
                    return None
                if is_expression:
                    return eval(call_code, namespace)  # noqa: S307 - sandboxed by design
                exec(call_code, namespace)  # noqa: S102
                return None

            value, extra = runner(run_program, run_call, namespace, runner_options)
            record["duration"] = time.perf_counter() - _State.started
            record["status"] = "ok"
            record["value"] = encode(value, _ENCODE_CAPS)
            if extra is not None:
                record["extra"] = extra
        except MemoryError as exc:
            record["duration"] = time.perf_counter() - _State.started
            record["status"] = "memory_exceeded"
            record["message"] = "the memory limit was reached"
            record["exception"] = _exception_info(exc, lines)
        except BaseException as exc:  # noqa: BLE001 - every program failure is reported
            record["duration"] = time.perf_counter() - _State.started
            record["status"] = "exception"
            record["exception"] = _exception_info(exc, lines)
            record["message"] = f"{record['exception']['type']}: {record['exception']['message']}"
            extra = getattr(exc, "__execlens_extra__", None)
            if isinstance(extra, dict):
                record["extra"] = extra
        record.update(_captured())
        record["peak_memory_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        _State.stdout = _State.stderr = None
        try:
            _emit(record)
        except (TypeError, ValueError) as exc:  # e.g. a runner returned non-JSON extra
            _emit(
                {"i": index, "status": "sandbox_error", "message": f"unserialisable result: {exc}"}
            )
        if index + 1 == stop:
            break  # the server kills us now; nothing to tidy for
        # The next input of the batch starts from the interpreter the server forked.
        _restore_interpreter()
        sys.setrecursionlimit(saved_recursion)


def _seed_generators(seed: int) -> None:
    """Seed ``random`` and, when loaded, NumPy's global generator with ``seed``.

    Python's at-fork hook reseeds ``random`` from the OS in every child, so without this
    a program's randomness (and so its output) differs from run to run; a job's seed makes
    it a function of the job.  A program that imports NumPy later has it seeded by
    :class:`_SeedNumpyOnImport` the moment the import finishes."""
    import random

    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        _seed_numpy(numpy, seed)


def _seed_numpy(numpy: Any, seed: int) -> None:
    try:
        numpy.random.seed(seed % (2**32))
    except Exception:  # noqa: BLE001 - a broken NumPy is the program's problem
        pass


class _SeedNumpyOnImport:
    """A ``sys.meta_path`` finder that seeds NumPy's global generator from the running
    input's seed as soon as a program's first ``import numpy`` has run.

    NumPy is not preloaded by default (it maps much memory, which slows every fork), so
    a program importing it gets a generator NumPy seeded from the OS: ``np.random.rand()``
    would differ from run to run although the job has a seed.  Installed once in the
    server before the zygote forks; for any other name it returns at once.
    """

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        """The spec the other finders give ``numpy``, its loader seeding after it runs."""
        if name != "numpy" or _State.seed is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = cast(Any, _SeedingLoader(spec.loader))
                return spec
        return None


class _SeedingLoader:
    """NumPy's own loader, then the seed (and the module left pointing at that loader)."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: Any) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        if _State.seed is not None:
            _seed_numpy(module, _State.seed)


def _restore_interpreter() -> None:
    """Undo what the program did to the shared interpreter: builtins, modules, streams."""
    saved_builtins, saved_modules, _ = _Snapshot.get()
    _restore(builtins.__dict__, saved_builtins, drop_new=True)
    _restore(sys.modules, saved_modules, drop_new=False)
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__


class _Snapshot:
    """The interpreter state each input starts from, taken once in the server."""

    value: tuple[dict[str, Any], dict[str, Any], int] | None = None

    @classmethod
    def get(cls) -> tuple[dict[str, Any], dict[str, Any], int]:
        if cls.value is None:
            cls.value = (dict(builtins.__dict__), dict(sys.modules), sys.getrecursionlimit())
        return cls.value


_WARM_UP_PROGRAM = (
    "import collections\n"
    "class Box:\n"
    "    def __init__(self, v):\n"
    "        self.v = v\n"
    "def f(x, y=2):\n"
    "    print('value', x)\n"
    "    if x == 'boom':\n"
    "        raise ValueError(x)\n"
    "    return [x, (y, 1.5), {'k': {x}}, Box(x), None, True, b'b']\n"
)
_WARM_UP_CALLS = [
    {"call": "f(1)"},
    {"call": "f('s', y=3)"},
    {"call": "assert f(2)"},
    {"call": "f('boom')"},
    {"call": "f("},
    {"entry_point": "f", "args": [{"__type__": "int", "__value__": 4}], "kwargs": {}},
]


def warm_up(iterations: int = 3) -> None:
    """Run the child's whole code path a few times in the zygote, before any fork.

    CPython 3.11 specialises bytecode and fills type caches as code runs, and the
    dynamic linker binds symbols on first call: done in every child, each of those
    writes is a copy-on-write page fault.  Done once here, children inherit the result.
    """
    sink = os.open(os.devnull, os.O_WRONLY)
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    request = {
        "program": _WARM_UP_PROGRAM,
        "module_name": "__main__",
        "runner": None,
        "runner_options": None,
        "stdin": None,
        "calls": _WARM_UP_CALLS,
        "limits": {
            "output_bytes": 1 << 20,
            "memory_mb": 512,
            "cpu_seconds": 5,
            "file_size_mb": 16,
            "open_files": 256,
            "max_processes": 32,
        },
    }
    payload = b"0" * 16 + bytes(4) + marshal.dumps(request)
    try:
        _State.result_fd = sink
        _State.limit = 1 << 20
        for _ in range(iterations):
            _run_inputs(Prepared(payload))
            _restore_interpreter()
    finally:
        _State.result_fd = RESULT_FD
        _State.token = ""
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.close(sink)


def prepare_server(scratch: str) -> None:
    """Server-side, before the first fork: do once what every child would redo."""
    os.environ["HOME"] = scratch
    os.environ["TMPDIR"] = scratch
    sys.meta_path.insert(0, _SeedNumpyOnImport())
    _Snapshot.get()


def run_child(
    job: Prepared, result_fd: int, output_fd: int, iso: ServerIsolation, scratch: str
) -> NoReturn:
    """Entry point right after ``fork()``: lock down, run the job's inputs, exit."""
    request = job.request
    try:
        _State.token = job.token
        _State.limit = job.output_limit
        os.dup2(result_fd, RESULT_FD)
        os.dup2(output_fd, 1)
        os.dup2(output_fd, 2)
        if request.get("stdin") is not None:
            os.dup2(_memfd_with(request["stdin"]), 0)
        # A Landlock domain of its own, while the ruleset's descriptor is still open.
        iso.confine_child()
        # Close everything else: the zygote's command pipes, the shared pipes' spares.
        os.closerange(3, RESULT_FD)
        os.closerange(RESULT_FD + 1, 1 << 16)
        _lock_down(job, iso, scratch)
    except BaseException as exc:  # noqa: BLE001
        try:
            write_frame(
                RESULT_FD,
                {
                    "t": _State.token,
                    "i": job.start,
                    "status": "sandbox_error",
                    "message": f"sandbox setup failed: {exc!r}",
                },
            )
        finally:
            os._exit(70)
    try:
        _run_inputs(job)
    except BaseException:  # noqa: BLE001 - whatever happens, never return into the server
        os._exit(71)
    os._exit(0)


def _memfd_with(text: str) -> int:
    fd = os.memfd_create("stdin")
    view = memoryview(text.encode("utf-8"))
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
