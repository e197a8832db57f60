"""A drill file from DRILL_PATH imported first in a child process the grader can kill.

A reference or oracle outside the built-in drills is code the person chose to
install, like a plugin (README.md, "Your own drills"): it runs with their rights.
Its import must still not hang the grader: in-process, the only deadline is a
timer signal (grader.cases.prepare.deadline), which the file itself can block or
cancel. So the file is first imported in a forked child, its own process group,
whose deadline this process enforces from outside, in the child's CPU time with
a wall-clock cap (grader.cases.bounded); only a file that imports there within
it is imported here. What the file does differently on its second import is not caught.
"""
from __future__ import annotations

from pathlib import Path
from types import CodeType, ModuleType

from grader.cases import bounded


def builtin(path: str) -> bool:
    """Whether `path` is one of the built-in drills' files (shipped with the tool, trusted)."""
    import drills

    root = Path(drills.__file__).resolve().parent
    try:
        return Path(path).resolve().is_relative_to(root)
    except OSError:
        return False


def trial_import(code: CodeType, path: str, cpu_seconds: float, wall_seconds: float) -> str | None:
    """Import `code` once in a killable child (grader.cases.bounded): None when it finished within
    `cpu_seconds` of CPU time and `wall_seconds` on the wall clock, or raised (the import here says
    how, in full); else why not."""
    def run() -> None:
        module = ModuleType("_drill_trial_import")
        module.__file__ = path
        exec(code, module.__dict__)  # noqa: S102 - the drill's own file, in a child stopped at the deadline

    ran = bounded.each([run], bounded.Limit(cpu_seconds, wall_seconds))[0]
    if not ran.stopped:
        return None
    return f"it {ran.why.replace('did not finish', 'did not finish importing')} (imported first in a separate " \
           "process, stopped there; a loop or a wait at module level?)"
