"""A drill file from DRILL_PATH imported first in a child process the grader can kill.

A reference or oracle outside the built-in drills is code the person chose to
install, like a plugin (README.md, "Your own drills"): it runs with their rights.
Its import must still not hang the grader: in-process, the only deadline is
SIGALRM (grader.cases.prepare.deadline), which the file itself can block or
cancel. So the file is first imported in a forked child, its own process group,
whose deadline this process enforces from outside (it waits on a pipe, then
kills the group); only a file that imports there within the deadline is imported
here. What the file does differently on its second import is not caught.
"""
from __future__ import annotations

import os
import select
import signal
import sys
import time
from pathlib import Path
from types import CodeType, ModuleType


def builtin(path: str) -> bool:
    """Whether `path` is one of the built-in drills' files (shipped with the tool, trusted)."""
    import drills

    root = Path(drills.__file__).resolve().parent
    try:
        return Path(path).resolve().is_relative_to(root)
    except OSError:
        return False


def trial_import(code: CodeType, path: str, seconds: float) -> str | None:
    """Import `code` once in a killable child: None when it finished within `seconds`, else why not."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: import, say how it went, leave without running any exit handler
        os.close(read_fd)
        _child(code, path, write_fd)
    os.close(write_fd)
    try:
        return _wait(pid, read_fd, seconds)
    finally:
        os.close(read_fd)


def _child(code: CodeType, path: str, write_fd: int) -> None:
    status = 1
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.setitimer(signal.ITIMER_REAL, 0)
        if "torch" in sys.modules:  # a forked child hangs on its first parallel op otherwise (docs/ARCHITECTURE.md)
            sys.modules["torch"].set_num_threads(1)
        module = ModuleType("_drill_trial_import")
        module.__file__ = path
        exec(code, module.__dict__)  # noqa: S102 - the drill's own file, in a child this process kills at the deadline
        os.write(write_fd, b"ok")
        status = 0
    except BaseException as exc:  # noqa: BLE001 - whatever it raises, the parent's import says it again
        try:
            os.write(write_fd, f"raised {type(exc).__name__}".encode()[:200])
        except BaseException:  # noqa: BLE001, S110 - the parent reads an empty pipe as "ended"
            pass
    finally:
        os._exit(status)


def _wait(pid: int, read_fd: int, seconds: float) -> str | None:
    end = time.monotonic() + seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            _kill(pid)
            return f"it did not finish importing within {seconds:g} s (imported first in a separate process, " \
                   "stopped there; a loop or a wait at module level?)"
        ready, _, _ = select.select([read_fd], [], [], left)
        if not ready:
            continue
        # "ok", "raised ...", or the pipe closed: the child is done (the import here says how, in full);
        # anything it left behind in its group goes with it
        os.read(read_fd, 256)
        _kill(pid)
        return None


def _kill(pid: int) -> None:
    for target in (-pid, pid):
        try:
            os.kill(target, signal.SIGKILL)
        except OSError:
            pass
    _reap(pid)


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
