"""The edges of the process: closed standard streams, and an address space too small for torch.

`drill list >&-` starts Python with no stdout: ``sys.stdout`` is None and the
next file the tool opens takes descriptor 1, so a print could land in the
progress database. `reopen_closed` gives every closed descriptor 0-2 to
/dev/null before anything else opens a file, and reports which were closed;
the CLI then stops with one line naming the cause when stdout is among them.

torch needs a few GB of address space just to load (its libraries, OpenBLAS
buffers). Under a lower ``ulimit -v`` the import dies with a bare
"failed to map segment" or an uncatchable ``std::bad_alloc``; `address_space_problem`
says so before a grading command gets that far.
"""
from __future__ import annotations

import io
import os
import sys

MIN_TORCH_ADDRESS_SPACE = 4 * 1024**3  # bytes: torch and its BLAS load within this on CPU
GRADING_COMMANDS = {"check", "validate", "solve", "warmup", "mock", "watch", ("team", "run")}


def _unusable(fd: int) -> bool:
    """True when ``fd`` is closed, or opened only for the wrong direction (stdout `1</dev/null`)."""
    try:
        os.fstat(fd)
    except OSError:
        return True
    try:
        import fcntl

        access = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE
    except (ImportError, OSError):  # pragma: no cover - not POSIX
        return False
    return access == (os.O_WRONLY if fd == 0 else os.O_RDONLY)


def reopen_closed() -> set[str]:
    """Point each closed (or wrong-way) standard descriptor at /dev/null and give Python a
    stream on it; returns the names of those that were unusable ("stdin", "stdout", "stderr")."""
    closed = set()
    for fd, name, mode in ((0, "stdin", os.O_RDONLY), (1, "stdout", os.O_WRONLY), (2, "stderr", os.O_WRONLY)):
        if not _unusable(fd):
            continue
        closed.add(name)
        null = os.open(os.devnull, mode)
        if null != fd:
            os.dup2(null, fd)  # replaces a wrong-way descriptor too
            os.close(null)
        raw = io.FileIO(fd, "r" if fd == 0 else "w", closefd=False)
        stream = io.TextIOWrapper(io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw),
                                  encoding="utf-8", errors="replace", line_buffering=fd != 0)
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    return closed


def _command(argv: list[str]) -> str | tuple[str, str] | None:
    words = [a for a in argv[1:] if not a.startswith("-")]
    if not words:
        return None
    if words[0] == "team" and len(words) > 1:
        return ("team", words[1])
    return words[0]


def needs_torch(argv: list[str]) -> bool:
    """True when the command line names a command that grades (and so loads torch)."""
    return _command(argv) in GRADING_COMMANDS


def address_space_problem() -> str | None:
    """Why torch cannot load under this process's address-space limit, or None."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft >= MIN_TORCH_ADDRESS_SPACE:
        return None
    return (f"the address-space limit (ulimit -v) is {soft // 1024**2} MB, too low to load torch for grading; "
            f"it needs at least {MIN_TORCH_ADDRESS_SPACE // 1024**3} GB: raise it (`ulimit -v unlimited`) "
            f"and run the command again")


def torch_load_problem(exc: BaseException) -> str | None:
    """A one-line reason when ``exc`` is torch (or its libraries) failing to load, else None."""
    text = str(exc)
    name = getattr(exc, "name", None) or ""
    if not (name.startswith("torch") or "torch" in text or "libtorch" in text or "OpenBLAS" in text):
        return None
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    hint = ""
    if address_space_problem() is None:
        try:
            import resource

            soft = resource.getrlimit(resource.RLIMIT_AS)[0]
            if soft != resource.RLIM_INFINITY:
                hint = f" (the address-space limit, ulimit -v, is {soft // 1024**2} MB; try raising it)"
        except ImportError:  # pragma: no cover
            pass
    return f"cannot load torch, which grading needs: {first[:200]}{hint}"
