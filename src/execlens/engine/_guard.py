"""Retire on change: whether anything one execution left behind could reach the next.

Several executions of one program (one origin: the inputs of one function, the answers
of one GRPO group, all judged against one program) may share a forked child only while
nothing survives between them.  Each execution gets a fresh module namespace; after it,
before the server starts the next one, :meth:`Guard.changed` looks for anything else the
execution changed, and names it.  A named change *retires* the child: it reports that
with its result and exits, and the server forks a fresh child for the remaining inputs.
The last input a child runs is never checked (nothing follows it in that process).

What is checked -- everything later code could observe without being handed it:

1. **Code that could run later.**  Threads (``_thread._count``), child processes (the
   ``os.fork``/``posix_spawn``/``system``/``subprocess.Popen`` audit events), interval
   timers, signal handlers and the signal mask (their setters), trace and profile hooks,
   audit hooks (``sys.addaudithook``), async-generator hooks, and *any code or object
   of the program still alive* once its namespace is cleared and the collector has run
   (:class:`Leftovers`): a function of the program (nested, a lambda, a method) that
   something still holds keeps the namespace alive as its ``__globals__`` -- an import
   hook on ``sys.meta_path``, an ``atexit``, codec or ``copyreg`` registration, a
   ``gc.callbacks`` entry, a finalizer, an excepthook -- and so retires the child.
2. **Names later code looks up.**  Every attribute set or deleted through a module the
   server had loaded, ``sys`` and ``builtins`` included: in a child that may run several
   inputs, each such module's class is swapped for :class:`WatchedModule`, which notes
   the write (one that puts back the same object, as ``warnings.catch_warnings`` and
   ``mock.patch`` do, is no change).  ``sys.modules`` (an entry added or removed:
   importing a module the server had not loaded counts), and ``sys.path``,
   ``meta_path``, ``path_hooks`` and ``path_importer_cache``.
3. **Interpreter and process settings.**  Recursion limit, int max str digits, switch
   interval, dlopen flags, coroutine origin tracking, the collector's state (enabled,
   thresholds, debug flags, frozen objects, callbacks), the ``decimal`` context (flags
   aside, which are cleared instead), the ``warnings``
   filters, the environment (``os.environ`` and the ``os.putenv``/``unsetenv`` events),
   the working directory (the ``os.chdir`` event), the umask, the locale, the ``socket``
   default timeout, resource limits (the ``resource.setrlimit`` event), standard
   output's blocking mode (the result and control pipes cope with either) and the lowest
   free descriptor (a descriptor left open).  The global random generators are reseeded
   between inputs instead (``_seeding``); scheduling priority is not checked (it changes
   when a program runs, never what it computes).

   How: CPython raises audit events for some of these changes; the setters it raises
   none for (``sys.setrecursionlimit``, ``gc.disable``, ``signal.setitimer``,
   ``os.umask``... :data:`SETTERS`) are wrapped when the guard is armed, so that
   calling one notes the change the way an event does.  Comparing every setting after
   every input would cost a system call or more each; a noted call costs nothing until
   it happens.  A few cheap getters back them up (recursion limit, trace and profile
   hooks, collector callbacks, thread count).
4. **Files.**  Any file, directory or socket created, written, renamed, removed or
   re-moded: the ``open``-for-writing, ``os.*`` file and ``socket.bind`` events, and
   ``os.mkfifo``/``mknod`` (wrapped setters).  That covers the scratch directory and
   ``/dev/shm`` as much as anywhere else writable.
5. **Reaching past all of this.**  ``ctypes`` (any of its events) and walking the
   collector's objects (``gc.get_objects``/``get_referrers``/``get_referents``) retire
   the child outright: with them a program can change anything.

Not checked, on purpose: the contents of mutable objects held by modules the server had
loaded (a list appended to, an entry of ``sys.modules`` replaced in place, a class
attribute of a library class set, ``decimal.DefaultContext`` or NumPy's print options
changed in place -- CPython raises no event for those, and comparing
every such object after each input would touch, and so copy, most of the pages the
child shares with the zygote: more than forking afresh costs), and state a program
hides deliberately (writing through a module's ``__dict__``, replacing a library
function's code object).  A program doing that only reaches later executions *of its
own origin* -- code of another origin never runs in its process -- so it can only
change verdicts on its own code, which it decides anyway.  The float repr
style is fixed at build time, so there is nothing to check.
"""

from __future__ import annotations

import _thread
import builtins
import functools
import gc
import os
import sys
import types
import weakref
from collections.abc import Callable
from operator import is_
from typing import Any

__all__ = ["GUARD", "SETTERS", "Guard", "Leftovers", "WatchedModule"]

_MISSING = object()
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

#: Audit events that are a change by themselves, and the name the retirement gives.
_EVENTS = {
    "os.fork": "a child process",
    "os.forkpty": "a child process",
    "os.posix_spawn": "a child process",
    "os.spawn": "a child process",
    "os.system": "a child process",
    "subprocess.Popen": "a child process",
    "os.putenv": "the environment",
    "os.unsetenv": "the environment",
    "os.chdir": "the working directory",
    "os.chmod": "a file",
    "os.chown": "a file",
    "os.chflags": "a file",
    "os.link": "a file",
    "os.mkdir": "a file",
    "os.remove": "a file",
    "os.rename": "a file",
    "os.rmdir": "a file",
    "os.symlink": "a file",
    "os.truncate": "a file",
    "os.utime": "a file",
    "os.setxattr": "a file",
    "os.removexattr": "a file",
    "os.unshare": "the process's namespaces",
    "os.setns": "the process's namespaces",
    "resource.setrlimit": "a resource limit",
    "resource.prlimit": "a resource limit",
    "sys.addaudithook": "an audit hook",
    "sys.settrace": "a trace hook",
    "sys.setprofile": "a profile hook",
    "socket.bind": "a socket",
    "gc.get_objects": "the collector's objects",
    "gc.get_referrers": "the collector's objects",
    "gc.get_referents": "the collector's objects",
}

#: Setters of process or interpreter state that CPython raises no audit event for:
#: (module, function, what calling it changes).  Each is wrapped when the guard is
#: armed, in every module that holds it, so that a call notes the change.
SETTERS: tuple[tuple[str, str, str], ...] = (
    ("sys", "setrecursionlimit", "the recursion limit"),
    ("sys", "set_int_max_str_digits", "the int max str digits"),
    ("sys", "setswitchinterval", "the switch interval"),
    ("sys", "setdlopenflags", "the dlopen flags"),
    ("sys", "set_coroutine_origin_tracking_depth", "coroutine origin tracking"),
    ("sys", "set_asyncgen_hooks", "the async-generator hooks"),
    ("_thread", "start_new_thread", "a thread"),
    ("_thread", "start_new", "a thread"),
    ("_thread", "start_joinable_thread", "a thread"),
    ("gc", "enable", "the collector"),
    ("gc", "disable", "the collector"),
    ("gc", "set_threshold", "the collector"),
    ("gc", "set_debug", "the collector"),
    ("gc", "freeze", "the collector"),
    ("gc", "unfreeze", "the collector"),
    ("_signal", "signal", "a signal handler"),
    ("_signal", "setitimer", "a timer"),
    ("_signal", "alarm", "a timer"),
    ("_signal", "pthread_sigmask", "the signal mask"),
    ("_signal", "siginterrupt", "a signal's restart flag"),
    ("_signal", "set_wakeup_fd", "the signal wakeup descriptor"),
    ("posix", "umask", "the umask"),
    ("_decimal", "setcontext", "the decimal context"),
    ("_socket", "setdefaulttimeout", "the socket default timeout"),
    ("_locale", "setlocale", "the locale"),
    ("posix", "mkfifo", "a file"),
    ("posix", "mknod", "a file"),
)
#: The modules that re-export those setters under the same name.
_HOLDERS = {
    "_signal": ("signal",),
    "posix": ("os",),
    "_decimal": ("decimal",),
    "_socket": ("socket",),
}


class _Flag:
    """What the audit hook, the setters and the module watch noted since the last check."""

    __slots__ = ("armed", "dirty", "reason")

    def __init__(self) -> None:
        self.armed = False
        self.reason: str | None = None
        self.dirty: list[tuple[types.ModuleType, str]] = []


_FLAG = _Flag()


def _note(reason: str) -> None:
    flag = _FLAG
    if flag.armed and flag.reason is None:
        flag.reason = reason


def _audit(event: str, args: tuple[Any, ...]) -> None:
    """The audit hook (installed once, in the zygote): note events that change state."""
    flag = _FLAG
    if not flag.armed or flag.reason is not None:
        return
    reason = _EVENTS.get(event)
    if reason is None:
        if event == "open":
            path, mode, flags = args
            if type(path) is int:
                return  # a descriptor already open (``open(1, "w")``): nothing created
            writes = type(mode) is str and any(letter in mode for letter in "wax+")
            if not writes and not (type(flags) is int and flags & _WRITE_FLAGS):
                return
            reason = "a file"
        elif event[:7] == "ctypes.":
            reason = "ctypes"
        else:
            return
    if event in ("sys.settrace", "sys.setprofile") and args and args[0] is None:
        return  # switching a hook off leaves nothing behind
    flag.reason = reason


def _noting(setter: Callable[..., Any], reason: str) -> Callable[..., Any]:
    """``setter``, noting ``reason`` whenever it is called (``setlocale`` only when it sets)."""
    query_only = setter.__name__ == "setlocale"

    @functools.wraps(setter)
    def noted(*args: Any, **kwargs: Any) -> Any:
        if not query_only or (len(args) > 1 and args[1] is not None) or kwargs.get("locale"):
            _note(reason)
        return setter(*args, **kwargs)

    return noted


def _wrap_setters() -> None:
    """Wrap every setter of :data:`SETTERS` that this interpreter has and has loaded."""
    for module_name, name, reason in SETTERS:
        module = sys.modules.get(module_name)
        setter = getattr(module, name, None) if module is not None else None
        if setter is None or getattr(setter, "__wrapped__", None) is not None:
            continue
        noted = _noting(setter, reason)
        for holder_name in (module_name, *_HOLDERS.get(module_name, ())):
            holder = sys.modules.get(holder_name)
            if holder is not None and getattr(holder, name, None) is setter:
                setattr(holder, name, noted)
    monitoring = getattr(sys, "monitoring", None)  # 3.12+: tools are process state
    if monitoring is not None:
        for name in ("use_tool_id", "free_tool_id", "register_callback", "set_events"):
            setter = getattr(monitoring, name, None)
            if setter is not None and getattr(setter, "__wrapped__", None) is None:
                setattr(monitoring, name, _noting(setter, "sys.monitoring"))


class WatchedModule(types.ModuleType):
    """The class of every module the server had loaded, in a child that may run several
    inputs: a plain module that notes each attribute set or deleted through it."""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        _FLAG.dirty.append((self, name))
        types.ModuleType.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        _FLAG.dirty.append((self, name))
        types.ModuleType.__delattr__(self, name)


class Leftovers:
    """What might outlive one execution: its namespace, cleared here, and weak references
    to what the program defined in it (functions, classes, their instances) and to its
    module.

    After the clear, anything still holding the namespace dict is code of the program
    (every function it defined, nested ones and lambdas included, holds it as
    ``__globals__``; so does a frame or generator of it), and anything still holding one
    of those objects kept it past the execution: an ``atexit`` or ``copyreg`` entry, a
    hook, a handler.  Cycles among the program's own objects (a class and its methods,
    an exception and its traceback) are no such thing: the collector frees them first.
    """

    __slots__ = ("namespace", "refs")

    def __init__(self, module: types.ModuleType) -> None:
        namespace = module.__dict__
        name = module.__name__
        refs = []
        for value in namespace.values():
            owner = value if isinstance(value, (types.FunctionType, type)) else type(value)
            if getattr(owner, "__module__", None) != name:
                continue
            try:
                refs.append(weakref.ref(value))
            except TypeError:  # slotted instances without __weakref__
                continue
        refs.append(weakref.ref(module))
        self.refs = refs
        namespace.clear()
        self.namespace = namespace

    def alive(self) -> bool:
        """Whether any of it is still referenced from outside."""
        namespace = self.namespace
        # Three references are ours: this object's slot, the local name, the argument.
        return sys.getrefcount(namespace) > 3 or any(ref() is not None for ref in self.refs)


def _same(current: Any, saved: tuple[Any, ...]) -> bool:
    """Whether the sequence ``current`` holds exactly the objects of ``saved``."""
    return len(current) == len(saved) and all(map(is_, current, saved))


class Guard:
    """The state each execution must leave as it found it (see the module docstring).

    :meth:`install` runs once in the zygote before its warm-up, :meth:`arm` after it, just
    before the first fork;
    :meth:`start_child` once in each child that may run several inputs, after its
    lock-down; :meth:`changed` after every input another input of that child follows.
    """

    def __init__(self) -> None:
        self.installed = False
        self.armed = False

    # ----------------------------------------------------------------- zygote
    def install(self) -> None:
        """Wrap the setters and install the audit hook (in the zygote, before its warm-up:
        the warm-up then runs them once, and children inherit them specialised)."""
        if not self.installed:
            _wrap_setters()
            sys.addaudithook(_audit)
            self.installed = True

    def arm(self) -> None:
        """Take what every child compares with (in the zygote, after its warm-up)."""
        self.install()
        sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__
        decimal = sys.modules.get("decimal")
        self.decimal = decimal
        if decimal is not None:
            context = decimal.getcontext()  # made here, so every child inherits it
            context.clear_flags()
            self.decimal_state = (context, repr(context))
        self.warnings = sys.modules.get("warnings")
        self.filters = tuple(self.warnings.filters) if self.warnings is not None else ()
        self.environ = dict(os.environ._data)  # type: ignore[attr-defined]
        self.settings = self._settings()
        self.saved: dict[int, dict[str, Any]] = {}
        watched = []
        for module in list(sys.modules.values()):
            if type(module) is types.ModuleType:
                self.saved[id(module)] = dict(module.__dict__)
                watched.append(module)
        self.watched = tuple(watched)
        self.armed = True

    @staticmethod
    def _settings() -> tuple[Any, ...]:
        """The settings a getter reads cheaply (they back up the wrapped setters)."""
        return (
            sys.getrecursionlimit(),
            len(gc.callbacks),
            sys.gettrace() is None,
            sys.getprofile() is None,
        )

    # ------------------------------------------------------------------ child
    def start_child(self, scratch: str) -> None:
        """In a new child that may run several inputs, after its lock-down: start
        watching, and take what depends on the child (or on the zygote's latest state)."""
        _FLAG.reason = None
        _FLAG.dirty.clear()
        _FLAG.armed = self.armed
        if not self.armed:
            return
        # Here, not in the zygote: a module of a subclass loses CPython's specialised
        # attribute loads, which only children that run several inputs should pay for.
        for module in self.watched:
            module.__class__ = WatchedModule
        # Taken here, not at arming: the zygote may import between forks (a codec for a
        # program's coding declaration, while compiling it).
        self.sizes = (len(sys.modules), len(builtins.__dict__), len(sys.__dict__))
        self.lists = (
            (sys.path, tuple(sys.path)),
            (sys.meta_path, tuple(sys.meta_path)),
            (sys.path_hooks, tuple(sys.path_hooks)),
        )
        self.importer_cache = len(sys.path_importer_cache)
        self.stdout_blocking = os.get_blocking(1)
        probe = os.dup(0)
        os.close(probe)
        self.lowest_fd = probe  # the first descriptor number the program would get

    def changed(self, leftovers: Leftovers) -> str | None:
        """What the execution that just ended left changed (``None``: nothing).

        ``leftovers``: its namespace, already cleared, and what it defined.  Called with
        every standard stream already put back.
        """
        if not self.armed:
            return None
        if leftovers.alive():
            # Classes and exceptions sit in reference cycles: collect, youngest first
            # (what this input made is young; a full collection only if that is not
            # enough).
            for generation in (0, 2):
                gc.collect(generation)
                if not leftovers.alive():
                    break
            else:
                return "an object of the program outlived its execution"
        reason = _FLAG.reason
        if reason is None:
            reason = self._names() or self._process()
        if reason is None and self.decimal is not None:
            reason = self._decimal()
        return reason

    def _names(self) -> str | None:
        if _thread._count():
            return "a thread"
        if self._settings() != self.settings:
            return "an interpreter setting (recursion limit, hooks, collector callbacks)"
        # Sizes, not contents: reading every entry would touch (and so copy) every page
        # of the zygote holding one.  Entries replaced in place are the module watch's.
        sizes = (len(sys.modules), len(builtins.__dict__), len(sys.__dict__))
        if sizes != self.sizes:
            return "sys.modules, builtins or sys (a name added or removed)"
        for current, before in self.lists:
            if not _same(current, before):
                return "sys.path, sys.meta_path or sys.path_hooks"
        if len(sys.path_importer_cache) != self.importer_cache:
            return "sys.path_importer_cache"
        dirty = _FLAG.dirty
        if dirty:
            for module, name in dirty:
                saved = self.saved.get(id(module))
                if saved is None or saved.get(name, _MISSING) is not module.__dict__.get(
                    name, _MISSING
                ):
                    return f"a module attribute ({getattr(module, '__name__', '?')}.{name})"
            dirty.clear()
        warnings = self.warnings
        if warnings is not None and not _same(warnings.filters, self.filters):
            return "the warnings filters"
        return None

    def _process(self) -> str | None:
        if os.environ._data != self.environ:  # type: ignore[attr-defined]
            return "the environment"
        try:
            if os.get_blocking(1) != self.stdout_blocking:
                return "the standard output's blocking mode"
        except OSError:
            return "the standard output"
        try:
            os.get_blocking(self.lowest_fd)
        except OSError:
            return None  # still free
        return "an open file descriptor"

    def _decimal(self) -> str | None:
        context, text = self.decimal_state
        decimal = self.decimal
        assert decimal is not None
        current = decimal.getcontext()
        current.clear_flags()  # a record of what happened, not a setting: cleared
        if current is not context or repr(current) != text:
            return "the decimal context"
        return None


#: The one guard of this process (armed in the zygote; children inherit it).
GUARD = Guard()
