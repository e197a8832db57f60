"""Landlock in a sandbox child: writes only inside its scratch folder, and,
as the kernel's ABI allows, no TCP bind/connect and signals scoped to itself.

grader.sandbox.confine calls `_landlock(scratch, abi)` with the ABI it
measured once in the parent (`landlock_abi`).
"""
from __future__ import annotations

import ctypes
import os
import struct

from grader.sandbox.syscalls import (
    NR_LANDLOCK_ADD_RULE,
    NR_LANDLOCK_CREATE_RULESET,
    NR_LANDLOCK_RESTRICT_SELF,
    ConfineError,
    _syscall,
)

# Landlock access rights
_LL_EXECUTE = 1 << 0
_LL_WRITE_FILE = 1 << 1
_LL_READ_FILE = 1 << 2
_LL_READ_DIR = 1 << 3
_LL_WRITE_ONLY = sum(1 << b for b in (4, 5, 6, 7, 8, 9, 10, 11, 12))  # remove, make_*
_LL_REFER = 1 << 13
_LL_TRUNCATE = 1 << 14
_LL_IOCTL_DEV = 1 << 15
_LL_NET_BIND_TCP, _LL_NET_CONNECT_TCP = 1 << 0, 1 << 1
_LL_SCOPE_ABSTRACT_UNIX, _LL_SCOPE_SIGNAL = 1 << 0, 1 << 1
_LL_MAKE_CHAR, _LL_MAKE_BLOCK = 1 << 6, 1 << 11


def _landlock(scratch: str, abi: int) -> list[str]:
    """Restrict writes to `scratch` (`abi`: this kernel's Landlock ABI). Returns the names of the pieces it covers."""
    if abi < 1:
        raise ConfineError("Landlock is not available in this kernel")
    fs = _LL_EXECUTE | _LL_WRITE_FILE | _LL_WRITE_ONLY
    if abi >= 2:
        fs |= _LL_REFER
    if abi >= 3:
        fs |= _LL_TRUNCATE
    if abi >= 5:
        fs |= _LL_IOCTL_DEV
    net = (_LL_NET_BIND_TCP | _LL_NET_CONNECT_TCP) if abi >= 4 else 0
    scoped = (_LL_SCOPE_ABSTRACT_UNIX | _LL_SCOPE_SIGNAL) if abi >= 6 else 0
    if abi >= 6:
        attr = struct.pack("=QQQ", fs, net, scoped)
    elif abi >= 4:
        attr = struct.pack("=QQ", fs, net)
    else:
        attr = struct.pack("=Q", fs)
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = _syscall(NR_LANDLOCK_CREATE_RULESET, buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    try:
        in_scratch = fs & ~(_LL_EXECUTE | _LL_IOCTL_DEV | _LL_MAKE_CHAR | _LL_MAKE_BLOCK)
        _add_path_rule(ruleset, scratch, in_scratch)
        if os.path.exists("/dev/null"):
            _add_path_rule(ruleset, "/dev/null", fs & (_LL_WRITE_FILE | _LL_TRUNCATE))
        _syscall(NR_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
    covers = ["filesystem"]
    if net:
        covers.append("network")
    if scoped:
        covers.append("signals")
    return covers


def _add_path_rule(ruleset: int, path: str, access: int) -> None:
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        rule = ctypes.create_string_buffer(struct.pack("=Qi", access, fd), 12)
        _syscall(NR_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(1), rule, ctypes.c_uint32(0))
    finally:
        os.close(fd)
