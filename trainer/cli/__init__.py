"""The `drill` command line. Each command group lives in its own module and
registers its commands on the shared typer app when imported.

Start-up matters (`drill list` should cost at most twice the bare import of
typer, prompt_toolkit and yaml), so `main` imports only the module that owns
the command on the command line; help, completion and anything it does not
recognise import them all.

Errors: a domain error (a grader.errors.DrillError: store, plan, team, spec,
unknown drill, unreadable file, usage) raised by any command becomes its
`drill: ...` lines and exit status at the one error edge, trainer.cli.errors, which
DrillGroup.invoke applies to every command (so typer's CliRunner sees the same as
`drill`); `main` adds what only a real process has: closed or broken standard
streams, a torch that cannot load, a full disk.
"""
from __future__ import annotations

import errno
import os
import sys

from grader import roomy
from trainer.cli import streams
from trainer.cli.app import COMMANDS, app

MODULES = ("catalogue", "practice", "debug", "grading", "reporting", "team", "progress", "doctor", "optimize")


STATUS = ""  # no command: the status, which the app's callback shows (trainer.cli.status)


def _register(command: str | None = None) -> None:
    # Importing a module registers its commands on `app`.
    if command == STATUS:
        names: tuple[str, ...] = ()
    else:
        names = MODULES if command not in COMMANDS else (COMMANDS[command],)
    for name in names:
        __import__(f"trainer.cli.{name}")


def _command_from(argv: list[str]) -> str | None:
    """The command named on the command line, when nothing asks for the whole app."""
    if any(k.endswith("_COMPLETE") for k in os.environ):  # shell completion
        return None
    if not argv:
        return STATUS
    for arg in argv:
        if arg in ("--help", "-h", "--install-completion", "--show-completion"):
            return None
        if not arg.startswith("-"):
            return arg
    return None


def _say(message: str) -> None:
    try:
        sys.stderr.write(f"drill: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass  # stderr is gone too: the exit status is all that is left


def _silence_stdout() -> None:
    """After stdout failed (a closed pipe, a full disk), let the interpreter exit without
    a second error while flushing it."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    except OSError:
        pass


def _flush_stdout() -> int | None:
    """Flush stdout now; the exit status when that fails (None when it worked)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return 1  # the reader went away (`drill list | head -1`): quietly, with click's status for it
    except OSError as exc:
        _silence_stdout()
        _say(f"cannot write to standard output: {exc.strerror or exc}")
        return 1
    return None


# Commands that end without the interpreter's teardown once torch is loaded: tearing torch's module
# graph down takes ~0.75 s of `drill validate` here (bench/validate_time.py) and ~0.7 s of a cold
# `drill check` (bench/latency.py), a fifth of its time. Only runs that write no store: their files
# are written and closed before they return, their atexit hooks still run. `check --record` writes
# the store, so it ends the usual way.
QUICK_EXIT = frozenset({"validate", "check"})


def _ends_quickly(command: str | None, argv: list[str]) -> bool:
    return command in QUICK_EXIT and not (command == "check" and "--record" in argv) and "torch" in sys.modules


def _quick_exit(code: object) -> None:
    """End now with SystemExit's status for `code`: the atexit hooks (sandbox children, scratch
    folders, multiprocessing's finalizers) and the streams' flush, then os._exit."""
    import atexit

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        _say(str(code))
        status = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


def main() -> None:
    closed = streams.reopen_closed()
    if "stdout" in closed:
        _say("standard output is closed or not writable (was the command run with >&- ?); "
             "give it somewhere to write, such as > FILE or > /dev/null")
        raise SystemExit(2)
    if streams.needs_torch(sys.argv):
        problem = streams.address_space_problem()
        if problem:
            _say(problem)
            raise SystemExit(2)
    command = _command_from(sys.argv[1:])
    _register(command)
    try:
        roomy.call(app)  # room on the frame stack for torch's deep dispatch (grader.roomy)
    except SystemExit as done:
        failed = _flush_stdout()
        if failed is not None and not done.code:
            raise SystemExit(failed) from None
        if _ends_quickly(command, sys.argv[1:]):
            _quick_exit(done.code)
        raise
    except BrokenPipeError:
        _silence_stdout()
        raise SystemExit(1) from None
    except (ImportError, OSError, MemoryError) as exc:
        problem = streams.torch_load_problem(exc)
        if problem:
            _say(problem)
            raise SystemExit(2) from None
        if isinstance(exc, MemoryError):
            _say("ran out of memory; close other programs or raise the memory limit, then try again")
            raise SystemExit(1) from None
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EIO, errno.EBADF, errno.EDQUOT):
            where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
            _say(f"cannot write: {exc.strerror or exc}{where}")
            _silence_stdout()
            raise SystemExit(1) from None
        raise
