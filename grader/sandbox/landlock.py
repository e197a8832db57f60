"""Landlock in a sandbox child: writes only inside its scratch folder, no reading
of the drills' content or of other processes' /proc entries, and, as the
kernel's ABI allows, no TCP bind/connect and signals scoped to itself.

grader.sandbox.confine calls `_landlock(scratch, abi, reads)` with the ABI it
measured once in the parent (`landlock_abi`) and the read rules `read_rules`
worked out there (also once per set of hidden paths).

Landlock only grants, so "everything but these folders" is written as grants:
each folder on the way down to a hidden path (its ancestors) may be listed, and
every entry of those ancestors that is not on the way to a hidden path may be
read whole. Under /proc only the child's own entry (/proc/self) and the entries
that are not a process may be read: /proc/<pid>/cmdline of the grader (which
names a `--variant`) and /proc/<pid>/mem of any other process are refused, and
a process started later is refused too. The names inside a hidden folder can
still be listed (an ancestor's listing right reaches down); their bytes cannot
be read.
"""
from __future__ import annotations

import ctypes
import os
import stat
import struct
from dataclasses import dataclass

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


_LL_READ = _LL_READ_FILE | _LL_READ_DIR
_PROC = "/proc"


@dataclass(frozen=True)
class ReadRules:
    """Where a child may read: `listed` folders may be listed (ancestors of what is hidden), `whole`
    paths read whole (files and folders beside that way). /proc is handled in the child itself."""

    listed: tuple[str, ...]
    whole: tuple[str, ...]


def read_rules(hidden: tuple[str, ...]) -> ReadRules:
    """Parent: the grants that leave `hidden` (folders or files) and other processes' /proc entries
    unreadable and everything else readable, as of now. A symlink beside the way is granted only
    when what it points to is neither hidden nor on the way to something hidden."""
    denied = {os.path.realpath(p) for p in hidden if p and os.path.lexists(p)}
    denied.add(_PROC)  # its entries are granted in the child (`_proc_rules`)
    ancestors: set[str] = {"/"}
    for path in denied:
        parent = os.path.dirname(path)
        while parent not in ancestors:
            ancestors.add(parent)
            parent = os.path.dirname(parent)
    whole: list[str] = []
    for folder in sorted(ancestors):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            path = os.path.join(folder, name)
            if path in ancestors or path in denied:
                continue
            if os.path.islink(path):
                target = os.path.realpath(path)
                if target in ancestors or any(target == d or target.startswith(d.rstrip("/") + "/") for d in denied):
                    continue
            whole.append(path)
    return ReadRules(tuple(sorted(ancestors)), tuple(whole))


def _proc_rules(ruleset: int) -> None:
    """Child: /proc may be listed; its own entry and every entry that is not a process may be read."""
    if not os.path.isdir(_PROC):
        return
    _add_path_rule(ruleset, _PROC, _LL_READ_DIR)
    for name in os.listdir(_PROC):
        if not name.isdigit():
            _add_read_rule(ruleset, os.path.join(_PROC, name))
    _add_read_rule(ruleset, f"{_PROC}/{os.getpid()}")


def _add_read_rule(ruleset: int, path: str) -> None:
    """Grant reading `path` whole (a folder: listing and reading beneath it); skipped when it is gone."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        access = _LL_READ if stat.S_ISDIR(os.fstat(fd).st_mode) else _LL_READ_FILE
        rule = ctypes.create_string_buffer(struct.pack("=Qi", access, fd), 12)
        _syscall(NR_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(1), rule, ctypes.c_uint32(0))
    except OSError:
        pass  # a special file Landlock takes no rule for: unreadable, as hidden things are
    finally:
        os.close(fd)


def _landlock(scratch: str, abi: int, reads: ReadRules | None = None) -> list[str]:
    """Restrict writes to `scratch` and, with `reads`, reading to what they grant (`abi`: this kernel's
    Landlock ABI). Returns the names of the pieces it covers."""
    if abi < 1:
        raise ConfineError("Landlock is not available in this kernel")
    fs = _LL_EXECUTE | _LL_WRITE_FILE | _LL_WRITE_ONLY | (_LL_READ if reads is not None else 0)
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
            _add_path_rule(ruleset, "/dev/null", fs & (_LL_WRITE_FILE | _LL_TRUNCATE | _LL_READ_FILE))
        if reads is not None:
            for folder in reads.listed:
                _add_path_rule(ruleset, folder, _LL_READ_DIR)
            for path in reads.whole:
                _add_read_rule(ruleset, path)
            _proc_rules(ruleset)
        _syscall(NR_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
    covers = ["filesystem"]
    if reads is not None:
        covers.append("drill-files")
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
