"""Helper threads that leave the signals to the main thread.

A signal sent to the process (kill, Ctrl-C, a pool's terminate) goes to any one of its threads that
does not block it. Python runs its handlers in the main thread only, so a SIGTERM taken by a helper
thread while the main thread waits inside C (a multiprocessing lock, a pipe) is never acted on: the
process hangs. `start` starts a daemon thread with those signals blocked, so they reach the main thread.
"""
from __future__ import annotations

import signal
import threading
from typing import Callable

from grader import roomy

# the asynchronous signals a handler in this project or the libraries may act on (grader.sandbox.spawn,
# grader.cases.prepare's alarm, the REPL's SIGWINCH and SIGTSTP); faults (SIGSEGV, ...) stay with the thread
SIGNALS = frozenset(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGALRM", "SIGUSR1",
                                                        "SIGUSR2", "SIGCHLD", "SIGWINCH", "SIGTSTP", "SIGCONT")
                    if hasattr(signal, name))


def start(target: Callable[[], object], name: str) -> threading.Thread:
    """A started daemon thread running `target`, with SIGNALS blocked from its first instruction
    (a new thread inherits the mask of the one that starts it: blocked here, restored after)."""
    thread = threading.Thread(target=roomy.call, args=(target,), name=name, daemon=True)  # grader.roomy
    if not hasattr(signal, "pthread_sigmask"):  # not POSIX: nothing to block
        thread.start()
        return thread
    held = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    return thread
