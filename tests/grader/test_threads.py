"""Helper threads leave the signals to the main thread (grader.threads): a SIGTERM taken by a helper
thread while the main thread waits inside C is never handled, and the process hangs (a validate pool
worker did, waiting on the pool's queue lock at terminate)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

from grader import threads
from grader.sandbox.reaping import REAPER
from tests.paths import REPO


def _blocked(tid: int) -> set[int]:
    """The signals the thread `tid` (a native id) blocks, from /proc."""
    with open(f"/proc/{os.getpid()}/task/{tid}/status") as f:
        mask = next(int(line.split()[1], 16) for line in f if line.startswith("SigBlk:"))
    return {n for n in range(1, 65) if mask & (1 << (n - 1))}


def test_a_helper_thread_blocks_the_signals_and_the_starter_keeps_its_mask():
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    ready, stop = threading.Event(), threading.Event()

    def body() -> None:
        ready.set()
        stop.wait(10)

    thread = threads.start(body, "test-helper")
    try:
        assert ready.wait(10) and thread.daemon
        assert thread.native_id is not None
        blocked = _blocked(thread.native_id)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM):
            assert sig in blocked, f"{signal.Signals(sig).name} reaches the helper thread"
        assert signal.SIGSEGV not in blocked  # a fault stays with the thread that made it
        assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before
        assert signal.SIGTERM not in _blocked(threading.main_thread().native_id or 0)
    finally:
        stop.set()
        thread.join(10)


def test_the_reaper_thread_blocks_sigterm():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    REAPER.reap(pid)  # starts (or reuses) the reaper thread
    REAPER.drain()
    reaper = next(t for t in threading.enumerate() if t.name == "drill-reaper")
    assert signal.SIGTERM in _blocked(reaper.native_id or 0)


SCRIPT = """
import multiprocessing, os, sys, time
from grader import threads
from grader.sandbox.spawn import Terminated, exit_on_signals
exit_on_signals()
threads.start(lambda: time.sleep(60), "helper")
lock = multiprocessing.Lock()
lock.acquire()
print("waiting", flush=True)
try:
    lock.acquire()  # waits inside C, as a pool worker on the queue lock
except Terminated as exc:
    print("terminated", exc.code, flush=True)
    sys.exit(exc.code)
"""


def test_sigterm_ends_a_process_whose_main_thread_waits_on_a_lock():
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT], stdout=subprocess.PIPE, text=True, cwd=REPO,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "waiting"
        time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert out.strip() == "terminated 143" and proc.returncode == 143
