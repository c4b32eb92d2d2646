"""System V IPC objects a job left behind, found and removed between jobs.

Each fork server has an IPC namespace of its own, so no other server (or engine, or host
process) shares its shared-memory segments, semaphore sets or message queues.  The jobs
of one server do share it, and such objects outlive the process that made them (a
segment holds its memory until removed): before each child the server asks the kernel
how many exist (three ``*ctl(..._INFO)`` calls, a microsecond each) and, only when some
do, walks the namespace and removes every one.  Only ever called in the server's private
IPC namespace: in the host's it would remove the host's objects.
"""

from __future__ import annotations

import ctypes

from execlens.engine._mounts import libc

__all__ = ["leftovers", "remove_all"]

_IPC_RMID = 0
_MSG_STAT, _MSG_INFO = 11, 12
_SHM_STAT, _SHM_INFO = 13, 14
_SEM_STAT, _SEM_INFO = 18, 19
_SEMUSZ = 7  # struct seminfo's field holding, for SEM_INFO, the number of sets

# One buffer, larger than any of shm_info, seminfo, msginfo and the *id_ds structs.
_BUFFER = ctypes.create_string_buffer(512)
_INTS = ctypes.cast(_BUFFER, ctypes.POINTER(ctypes.c_int))


def _counts() -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    """(highest index, objects in use) for shared memory, semaphores, message queues."""
    shm_max = libc.shmctl(0, _SHM_INFO, _BUFFER)
    shm_used = _INTS[0]  # shm_info.used_ids
    sem_max = libc.semctl(0, 0, _SEM_INFO, _BUFFER)
    sem_used = _INTS[_SEMUSZ]
    msg_max = libc.msgctl(0, _MSG_INFO, _BUFFER)
    msg_used = _INTS[0]  # msginfo.msgpool
    return (shm_max, shm_used), (sem_max, sem_used), (msg_max, msg_used)


def leftovers() -> bool:
    """Whether any segment, semaphore set or message queue exists in this namespace."""
    return any(used > 0 for _, used in _counts())


def remove_all() -> int:
    """Remove every object of this IPC namespace; returns how many were removed."""
    (shm_max, _), (sem_max, _), (msg_max, _) = _counts()
    removed = 0
    for index in range(max(shm_max, 0) + 1):
        ident = libc.shmctl(index, _SHM_STAT, _BUFFER)
        if ident >= 0 and libc.shmctl(ident, _IPC_RMID, None) == 0:
            removed += 1
    for index in range(max(sem_max, 0) + 1):
        ident = libc.semctl(index, 0, _SEM_STAT, _BUFFER)
        if ident >= 0 and libc.semctl(ident, 0, _IPC_RMID, None) == 0:
            removed += 1
    for index in range(max(msg_max, 0) + 1):
        ident = libc.msgctl(index, _MSG_STAT, _BUFFER)
        if ident >= 0 and libc.msgctl(ident, _IPC_RMID, None) == 0:
            removed += 1
    return removed
