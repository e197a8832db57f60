"""The sandbox child's scratch folder: made, measured, removed, and swept when stale.

- `make()` names the folder after the grader process that owns it
  (`drill-sandbox-<pid>.<start ticks>-...`), so a later grader can tell a
  folder whose owner is gone (killed with SIGKILL, a power cut) from one in
  use, and `sweep_stale()` removes the former at start. A folder named by an
  older version (no owner in its name) is stale once it is a few seconds old
  and no process works inside it.
- `remove()` never recurses and never raises: a 1500-deep tree, a folder a
  child made unreadable, a name that vanished meanwhile are all fine. It
  flattens the tree (every folder is renamed up into the root before it is
  emptied), so it needs neither deep paths nor one open descriptor per level.
- `over_budget()` counts what the child holds on disk: the tree, plus files it
  deleted but still holds open or mapped (an unlinked file keeps its space
  until its last descriptor or mapping goes).
"""
from __future__ import annotations

import os
import re
import secrets
import stat
import tempfile
import time

PREFIX = "drill-sandbox-"
_OWNED = re.compile(re.escape(PREFIX) + r"(\d+)\.(\d+)-")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _start_ticks(pid: int) -> int | None:
    """When the process started (clock ticks since boot), None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read(4096)
        return int(raw[raw.rfind(b")") + 2:].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def make(prefix: str = PREFIX) -> str:
    """A fresh private folder in the temporary folder, named after this process."""
    me = os.getpid()
    return tempfile.mkdtemp(prefix=f"{prefix}{me}.{_start_ticks(me) or 0}-")


def _owner_alive(name: str, path: str, mtime: float) -> bool:
    match = _OWNED.match(name)
    if match is None:  # named by an older version: in use while a process works inside it
        return time.time() - mtime < _YOUNG or _someone_inside(path)
    pid, ticks = int(match.group(1)), int(match.group(2))
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: leave it
    started = _start_ticks(pid)
    return started is None or ticks == 0 or started == ticks  # a reused pid is a different process


_YOUNG = 2.0  # seconds: an unnamed folder this new may not have its child inside yet


def _someone_inside(path: str) -> bool:
    """Whether a process's working folder is `path` or below (a sandbox child's always is)."""
    real = os.path.realpath(path)
    try:
        pids = [n for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return True  # cannot tell: leave it
    for pid in pids:
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd == real or cwd.startswith(real + "/"):
            return True
    return False


def sweep_stale(folder: str | None = None) -> int:
    """Remove `drill-sandbox-*` folders (ours: real folders owned by this user)
    whose grader process is gone. Returns how many were removed. Never raises."""
    folder = folder or tempfile.gettempdir()
    removed = 0
    try:
        names = [n for n in os.listdir(folder) if n.startswith(PREFIX)]
    except OSError:
        return 0
    uid = os.getuid()
    for name in names:
        path = os.path.join(folder, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid or _owner_alive(name, path, st.st_mtime):
            continue
        remove(path)
        removed += not os.path.lexists(path)
    return removed


def remove(root: str) -> None:
    """Delete the folder `root` and everything in it, iteratively. Never raises;
    a symbolic link is removed, never followed."""
    try:
        top = os.open(root, _DIR_FLAGS)
    except OSError:
        try:
            if not os.path.isdir(root) or os.path.islink(root):
                os.unlink(root)
        except OSError:
            pass
        return
    token = secrets.token_hex(6)  # the moved folders' names; a child cannot guess them
    moved = 0
    try:
        todo: list[str | None] = [None]  # None: the root itself; names: folders moved up into it
        budget = 10_000_000  # a bound on the work, whatever the tree holds
        while todo and budget > 0:
            name = todo.pop()
            try:
                fd = top if name is None else _open_dir(name, top)
            except OSError:
                _unlink(name, top)
                continue
            try:
                with os.scandir(fd) as it:
                    entries = list(it)
                for entry in entries:
                    budget -= 1
                    try:
                        is_dir = entry.is_dir(follow_symlinks=False)
                    except OSError:
                        is_dir = False
                    if not is_dir:
                        _unlink(entry.name, fd)
                    elif name is None:
                        todo.append(entry.name)
                    else:
                        moved += 1
                        new = f".drill-rm-{token}-{moved}"
                        try:
                            os.rename(entry.name, new, src_dir_fd=fd, dst_dir_fd=top)
                            todo.append(new)
                        except OSError:
                            pass
            except OSError:
                pass
            finally:
                if fd != top:
                    os.close(fd)
            if name is not None:
                _rmdir(name, top)
    finally:
        os.close(top)
    _rmdir(root, None)


def _open_dir(name: str, parent: int) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except PermissionError:  # a folder made unreadable (only possible unconfined)
        os.chmod(name, 0o700, dir_fd=parent)
        return os.open(name, _DIR_FLAGS, dir_fd=parent)


def _unlink(name: str | None, parent: int) -> None:
    if name is None:
        return
    try:
        os.unlink(name, dir_fd=parent)
    except IsADirectoryError:
        _rmdir(name, parent)
    except OSError:
        pass


def _rmdir(name: str, parent: int | None) -> None:
    try:
        os.rmdir(name, dir_fd=parent)
    except OSError:
        pass


# ------------------------------------------------------------- the budget


def over_budget(root: str, pid: int, max_bytes: int, max_entries: int, file_bytes: int,
                with_maps: bool = True) -> bool:
    """Whether the child `pid` holds more than max_bytes on disk (its scratch tree
    plus deleted files it still holds open or mapped) or more than max_entries
    entries in the tree. `file_bytes` is what one deleted mapped file may hold
    at most (RLIMIT_FSIZE), counted when its size cannot be read."""
    used = held_deleted(pid, file_bytes, with_maps)
    if used > max_bytes:
        return True
    return _tree_over(root, max_bytes - used, max_entries)


def held_deleted(pid: int, file_bytes: int, with_maps: bool = True) -> int:
    """Bytes in regular files that `pid` deleted but still holds: open
    descriptors (/proc/<pid>/fd) and, with_maps, mappings (/proc/<pid>/maps)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    base = f"/proc/{pid}/fd"
    try:
        names = os.listdir(base)
    except PermissionError:  # the child made itself non-dumpable: what it holds is hidden (the watchdog stops it)
        raise
    except OSError:
        names = []
    for name in names:
        path = f"{base}/{name}"
        try:
            if not os.readlink(path).endswith(" (deleted)"):
                continue
            st = os.stat(path)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            total += st.st_blocks * 512
    if with_maps:
        total += _mapped_deleted(pid, seen, file_bytes)
    return total


_DELETED_LINE = re.compile(rb"^[^\n]* \(deleted\)$", re.MULTILINE)


def _deleted_maps(pid: int) -> dict[tuple[int, int], bytes]:
    """(device, inode) -> address range of every deleted file `pid` maps."""
    try:
        with open(f"/proc/{pid}/maps", "rb") as fh:
            # the watchdog reads this every poll: pick the few deleted lines out in C, not line by line
            lines = _DELETED_LINE.findall(fh.read(8 << 20))
    except OSError:
        return {}
    out: dict[tuple[int, int], bytes] = {}
    for line in lines:
        parts = line.split(None, 5)
        if len(parts) < 6 or parts[4] == b"0":
            continue
        try:
            dev_major, dev_minor = (int(p, 16) for p in parts[3].split(b":"))
            out.setdefault((os.makedev(dev_major, dev_minor), int(parts[4])), parts[0])
        except ValueError:
            continue
    return out


def _mapped_deleted(pid: int, seen: set[tuple[int, int]], file_bytes: int) -> int:
    found = {key: span for key, span in _deleted_maps(pid).items() if key not in seen}
    if found:  # mappings the child inherited (a library replaced on disk, the parent's own memfd) are not its own
        for key in _deleted_maps(os.getpid()):
            found.pop(key, None)
    total = 0
    for key, span in found.items():
        seen.add(key)
        try:  # the file's real size (readable with CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE)
            st = os.stat(f"/proc/{pid}/map_files/{span.decode()}")
            total += st.st_blocks * 512 if stat.S_ISREG(st.st_mode) else 0
        except OSError:
            total += file_bytes  # unknown: as much as one file may hold
    return total


def _tree_over(root: str, max_bytes: int, max_entries: int) -> bool:
    """Whether the folder holds more than max_bytes on disk or max_entries entries
    (stops counting as soon as it knows)."""
    if max_bytes < 0:
        return True
    used, entries, todo = 0, 0, [root]
    while todo:
        try:
            with os.scandir(todo.pop()) as it:
                for entry in it:
                    entries += 1
                    if entries > max_entries:
                        return True
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    used += st.st_blocks * 512
                    if used > max_bytes:
                        return True
                    if entry.is_dir(follow_symlinks=False):
                        todo.append(entry.path)
        except OSError:
            continue
    return False
