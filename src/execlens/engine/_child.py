"""The forked child: lock itself down, run the inputs the server starts, report each.

Runs right after ``fork()`` in the zygote and never returns (it ends with
``os._exit``).  The server starts each input on the child's control pipe and reads one
result frame for it (see :mod:`execlens.engine._report` for the protocol and what code
in the child can forge).  Each input runs in a fresh module, registered as
``sys.modules[module_name]`` while it runs (``__main__`` by default, so functions the
program defines pickle for ``multiprocessing``); between two inputs of one child the
state guard (:mod:`execlens.engine._guard`) decides whether the child may go on.
"""

from __future__ import annotations

import builtins
import fcntl
import io
import marshal
import os
import resource
import socket
import sys
import time
import types
from collections.abc import Callable
from typing import Any, NoReturn

from execlens.engine._capture import Capture, captured
from execlens.engine._guard import GUARD, Leftovers
from execlens.engine._isolation import ServerIsolation, set_parent_death_signal
from execlens.engine._prepared import CALL_FILENAME, PROGRAM_FILENAME, Prepared
from execlens.engine._report import CONTROL_FD, RESULT_FD, STATE, emit, read_go
from execlens.engine._seeding import SeedNumpyOnImport, reseed, seed_generators
from execlens.values import Caps, decode, encode

__all__ = ["address_space_now", "prepare_server", "run_child", "warm_up"]

_ENCODE_CAPS = Caps()
_MISSING = object()

# Bound at import, as module globals: sandboxed code may replace these in builtins
# before our code encodes and reports its result.
dict = dict  # noqa: PLW0127
getattr = getattr  # noqa: PLW0127
int = int  # noqa: PLW0127
isinstance = isinstance  # noqa: PLW0127
len = len  # noqa: PLW0127
str = str  # noqa: PLW0127
type = type  # noqa: PLW0127


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
            source = lines[lineno - 1].strip()[:1000]
        name = frame.f_code.co_name[:200]
        frames.append(f"{filename}:{lineno} in {name}: {source}".rstrip(": "))
    return {
        "type": type(exc).__name__[:200],
        "message": message[:2000],
        "traceback": frames[-50:],
    }


def address_space_now() -> int:
    """This process's virtual memory size in bytes (read in the server, before forking)."""
    fd = os.open("/proc/self/statm", os.O_RDONLY)
    try:
        pages = int(os.read(fd, 256).split()[0])
    finally:
        os.close(fd)
    return pages * _PAGE_SIZE


_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
# The C function itself, bound before the state guard wraps it (a wrapper would run
# Python code, and so fault pages, in every child).
_umask = os.umask


def _lock_down(job: Prepared, iso: ServerIsolation, scratch: str) -> None:
    # Everything here runs after fork: keep it to syscalls on values the zygote prepared,
    # since every Python object touched costs a copy-on-write page fault.
    # Its own process group (the server kills the whole group), inside the session the
    # zygote leads: no controlling terminal, and not being a session leader it can never
    # acquire one.  Not a session of its own: with the kernel's scheduler autogroups on,
    # setsid() builds a scheduling group per call (~0.2 ms, about a tenth of a job).
    os.setpgid(0, 0)
    os.chdir(scratch)
    _umask(0o077)
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


class _Request:
    """What every input of one child shares, read once from the prepared job."""

    __slots__ = ("has_stdin", "job", "lines", "module_name", "runner", "runner_options")

    def __init__(self, job: Prepared) -> None:
        request = job.request
        self.job = job
        self.lines: list[str] = request["program"].splitlines()
        self.module_name: str = request.get("module_name", "__main__")
        self.runner = _load_runner(request["runner"]) if request.get("runner") else _default_runner
        self.runner_options = request.get("runner_options") or {}
        self.has_stdin = request.get("stdin") is not None
        if job.program_code is None and job.compile_error is None:
            job.compile_program()


def _open_streams(request: _Request) -> None:
    """Fresh captures for the input about to run, and its stdin from the start."""
    STATE.used = 0
    STATE.stdout = sys.stdout = Capture("<stdout>")
    STATE.stderr = sys.stderr = Capture("<stderr>")
    if request.has_stdin:
        os.lseek(0, 0, os.SEEK_SET)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
    else:
        sys.stdin = sys.__stdin__  # the server's, on /dev/null and never read


def _execute(request: _Request, index: int, namespace: dict[str, Any]) -> dict[str, Any]:
    """Run the program and input ``index``'s call in ``namespace``: the result fields."""
    job = request.job
    spec = job.request["calls"][index]
    record: dict[str, Any] = {}
    STATE.started = time.perf_counter()
    try:
        if job.compile_error is not None:
            raise job.compile_error
        compiled_call = job.call(index)
        call_code, is_expression = compiled_call if compiled_call else (None, False)
        entry_point = spec.get("entry_point")
        program_code = job.program_code

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

        value, extra = request.runner(run_program, run_call, namespace, request.runner_options)
        record["duration"] = time.perf_counter() - STATE.started
        record["status"] = "ok"
        record["value"] = encode(value, _ENCODE_CAPS)
        value = None
        if extra is not None:
            record["extra"] = extra
    except MemoryError as exc:
        record["duration"] = time.perf_counter() - STATE.started
        record["status"] = "memory_exceeded"
        record["message"] = "the memory limit was reached"
        record["exception"] = _exception_info(exc, request.lines)
    except BaseException as exc:  # noqa: BLE001 - every program failure is reported
        record["duration"] = time.perf_counter() - STATE.started
        record["status"] = "exception"
        record["exception"] = _exception_info(exc, request.lines)
        record["message"] = f"{record['exception']['type']}: {record['exception']['message']}"
        extra = getattr(exc, "__execlens_extra__", None)
        if isinstance(extra, dict):
            record["extra"] = extra
    return record


def _run_input(request: _Request, index: int, last: bool) -> tuple[dict[str, Any], Any]:
    """Run input ``index`` in a fresh module; its result record, and (unless ``last``)
    what might outlive it (``_guard.Leftovers``: its namespace already cleared)."""
    STATE.index = index
    _open_streams(request)
    module_name = request.module_name
    # A real module, so what the program defines can be found by name (pickle).
    module = types.ModuleType(module_name)
    namespace = module.__dict__
    namespace["__builtins__"] = builtins
    modules = sys.modules
    previous = modules.get(module_name, _MISSING)
    modules[module_name] = module
    STATE.seed = request.job.request["calls"][index].get("seed")
    if STATE.seed is not None:
        seed_generators(STATE.seed)
    record = _execute(request, index, namespace)
    record.update(captured())
    record["peak_memory_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    STATE.stdout = STATE.stderr = None
    if last:
        return record, None
    # Put back what this input had to change, then let go of everything it defined.
    sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__
    if isinstance(previous, types.ModuleType):
        modules[module_name] = previous
    else:
        modules.pop(module_name, None)
    return record, Leftovers(module)


def _run_inputs(job: Prepared, scratch: str | None = None) -> None:
    """Run this child's inputs in order until its stop, the state guard retires it, or
    the server stops starting them.  ``scratch``: the child's scratch directory (the
    guard watches it; ``None`` in the zygote's warm-up, where no guard runs).

    The first start message comes before the first input; every later one is read
    once that input has run, when its result is ready to go (see ``_report``)."""
    request = _Request(job)
    go = read_go()
    if go is None:
        return
    index, STATE.nonce, last, stop = go
    if scratch is not None and index + 1 < stop:
        # Another input may follow in this process: from here on, what each one
        # changes is watched.  (A child of one input never pays for it.)
        GUARD.start_child(scratch)
    first = True
    while True:
        planned_last = index + 1 >= stop
        record, leftovers = _run_input(request, index, planned_last)
        retire = None if leftovers is None else GUARD.changed(leftovers)
        del leftovers
        if not first:
            go = read_go()  # this input's start: sent once the previous result was taken
            if go is None or go[0] != index:
                return  # the server stopped this child (a trimmed request)
            _, STATE.nonce, last, _ = go
        first = False
        if retire is not None:
            record["retire"] = retire
        try:
            emit(record)
        except (TypeError, ValueError) as exc:  # e.g. a runner returned non-JSON extra
            emit(
                {
                    "status": "sandbox_error",
                    "message": f"unserialisable result: {exc}",
                    "retire": "an unserialisable result",
                }
            )
            return
        if retire is not None or last or planned_last:
            return
        index += 1
        if job.request["calls"][index].get("seed") is None:
            reseed()  # the generators' state is never handed from one input to the next


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
    from execlens.engine._report import go_message

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
    payload = marshal.dumps(request)
    _warm_fd_passing()
    saved_main = sys.modules.get("__main__")
    control_r, control_w = os.pipe()
    saved_control = os.dup(CONTROL_FD) if _is_open(CONTROL_FD) else None
    try:
        STATE.result_fd = sink
        STATE.limit = 1 << 20
        os.dup2(control_r, CONTROL_FD)
        for _ in range(iterations):
            count = len(_WARM_UP_CALLS)
            for index in range(count):
                os.write(control_w, go_message(index, bytes(8), index + 1 == count, count))
            _run_inputs(Prepared(payload))
    finally:
        STATE.result_fd = RESULT_FD
        STATE.nonce = ""
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
        for fd in (sink, control_r, control_w):
            os.close(fd)
        if saved_control is not None:
            os.dup2(saved_control, CONTROL_FD)
            os.close(saved_control)
        else:
            os.close(CONTROL_FD)


def _warm_fd_passing() -> None:
    """Pass three descriptors over a socket once: every child takes its pipes so."""
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    with left, right:
        sent = [os.open(os.devnull, os.O_RDONLY) for _ in range(3)]
        socket.send_fds(left, [b"F"], sent)
        _, received, _, _ = socket.recv_fds(right, 1, 3)
        for fd in sent + received:
            os.close(fd)


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def prepare_server(scratch: str) -> None:
    """Server-side, before the first fork: do once what every child would redo."""
    os.environ["HOME"] = scratch
    os.environ["TMPDIR"] = scratch
    sys.meta_path.insert(0, SeedNumpyOnImport())


def run_child(
    job: Prepared, fds: tuple[int, int, int], iso: ServerIsolation, scratch: str
) -> NoReturn:
    """Entry point right after ``fork()``: take this child's own pipes (``fds``: results,
    raw output, control), lock down, run the inputs the server starts, exit."""
    request = job.request
    result_w, output_w, control_r = fds
    try:
        STATE.limit = job.output_limit
        os.dup2(result_w, RESULT_FD)
        os.dup2(control_r, CONTROL_FD)
        os.dup2(output_w, 1)
        os.dup2(output_w, 2)
        if request.get("stdin") is not None:
            os.dup2(_memfd_with(request["stdin"]), 0)
        # A Landlock domain of its own, while the ruleset's descriptor is still open.
        iso.confine_child()
        # Close everything else: the zygote's command pipes, the pipes' spare ends.
        os.closerange(3, CONTROL_FD)
        os.closerange(RESULT_FD + 1, 1 << 16)
        _lock_down(job, iso, scratch)
    except BaseException as exc:  # noqa: BLE001
        _setup_failed(exc)
    try:
        _run_inputs(job, scratch)
    except BaseException:  # noqa: BLE001 - whatever happens, never return into the server
        os._exit(71)
    os._exit(0)


def _setup_failed(exc: BaseException) -> NoReturn:
    """Report a failed lock-down as the result of the first input, then exit."""
    try:
        go = read_go()
        if go is not None:
            STATE.index, STATE.nonce, _, _ = go
            emit(
                {
                    "status": "sandbox_error",
                    "message": f"sandbox setup failed: {exc!r}"[:2000],
                    "retire": "the sandbox setup failed",
                }
            )
    finally:
        os._exit(70)


def _memfd_with(text: str) -> int:
    """A sealed memfd holding ``text``: every input of the child reads the same stdin
    (a program cannot write into it for the next one)."""
    fd = os.memfd_create("stdin", os.MFD_ALLOW_SEALING)
    view = memoryview(text.encode("utf-8"))
    while view:
        view = view[os.write(fd, view) :]
    seals = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
