"""The few raw Linux calls confinement needs, through ctypes (no new dependency).

`_syscall` and `_prctl` raise OSError with the errno, like the os module;
the numbers are x86_64's, the only architecture the sandbox confines.
"""
from __future__ import annotations

import ctypes
import os

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4  # 0 makes /proc/<pid>/fd unreadable to a parent that is not root
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
NR_SECCOMP = 317
NR_LANDLOCK_CREATE_RULESET, NR_LANDLOCK_ADD_RULE, NR_LANDLOCK_RESTRICT_SELF = 444, 445, 446
NR_CAPSET = 126


class ConfineError(Exception):
    """A confinement piece could not be applied."""


_libc: ctypes.CDLL | None = None


def _lib() -> ctypes.CDLL:
    global _libc  # noqa: PLW0603 - a loaded library handle, not state
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
        _libc.prctl.restype = ctypes.c_int
    return _libc


def _syscall(nr: int, *args: object) -> int:
    ctypes.set_errno(0)
    res = _lib().syscall(ctypes.c_long(nr), *args)
    if res < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return res


def _prctl(option: int, arg2: int = 0) -> int:
    ctypes.set_errno(0)
    res = _lib().prctl(ctypes.c_int(option), ctypes.c_ulong(arg2), ctypes.c_ulong(0), ctypes.c_ulong(0),
                       ctypes.c_ulong(0))
    if res < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return res
