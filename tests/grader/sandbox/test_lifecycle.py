"""The sandbox's life around a run: scratch folders removed whatever they hold,
stale ones swept, signals to the grader clean up like Ctrl-C, and a grader
stopped (Ctrl-Z) while its child answers does not time a correct solution out.

The subprocess tests grade a hostile fixture with tests/fixtures/grade_one.py
in a private TMPDIR, so every scratch folder they make is theirs to look for."""
from __future__ import annotations

from tests.paths import TESTS

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.sandbox import scratch
from grader.sandbox import Limits, confine

HERE = TESTS
ROOT = HERE.parent
GRADE_ONE = HERE / "fixtures" / "grade_one.py"

pytestmark = [pytest.mark.slow,  # runs the sandbox
              pytest.mark.skipif(not confine.supported_arch(), reason="the sandbox is Linux x86_64 only")]


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_remove_never_recurses_and_never_raises(tmp_path: Path):
    root = tmp_path / "tree"
    root.mkdir()
    here = os.open(root, os.O_RDONLY)
    try:
        for _ in range(1200):  # deeper than shutil.rmtree's recursion can go
            os.mkdir("d", dir_fd=here)
            down = os.open("d", os.O_RDONLY, dir_fd=here)
            os.close(here)
            here = down
            with open(os.open("f", os.O_WRONLY | os.O_CREAT, dir_fd=here), "w") as fh:
                fh.write("x")
        os.symlink(str(tmp_path / "outside"), "link", dir_fd=here)
    finally:
        os.close(here)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "keep").write_text("kept")
    scratch.remove(str(root))
    assert not root.exists()
    assert (tmp_path / "outside" / "keep").read_text() == "kept"  # the link was removed, not followed
    scratch.remove(str(root))  # already gone: still no exception
    scratch.remove(str(tmp_path / "outside" / "keep"))  # a file, not a folder: removed, no exception


def test_stale_folders_are_swept_and_live_ones_kept(tmp_path: Path):
    dead = tmp_path / f"drill-sandbox-{_dead_pid()}.123-abc"
    legacy = tmp_path / "drill-sandbox-k2j3h4"  # named by an older version: nobody works inside it
    busy = tmp_path / "drill-sandbox-q8w7e6"  # named by an older version, a process inside it
    me = os.getpid()
    live = tmp_path / f"drill-sandbox-{me}.{scratch._start_ticks(me)}-xyz"
    reused = tmp_path / f"drill-sandbox-{me}.1-old"  # our pid, but another process's start time
    for folder in (dead, legacy, busy, live, reused):
        (folder / "sub").mkdir(parents=True)
        (folder / "sub" / "file").write_text("x")
        os.utime(folder, (time.time() - 60, time.time() - 60))
    inside = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], cwd=busy / "sub",
                              stdin=subprocess.PIPE)
    target = tmp_path / "target"
    target.mkdir()
    (target / "keep").write_text("kept")
    (tmp_path / "drill-sandbox-link").symlink_to(target)
    try:
        assert scratch.sweep_stale(str(tmp_path)) == 3
    finally:
        inside.communicate(b"")
    assert not dead.exists() and not legacy.exists() and not reused.exists()
    assert (live / "sub" / "file").exists() and (busy / "sub" / "file").exists()
    assert (target / "keep").read_text() == "kept" and (tmp_path / "drill-sandbox-link").is_symlink()


def test_a_deep_scratch_tree_is_removed_after_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from grader.engine import Grader
    from grader.catalogue import load_catalogue

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    limits = Limits(case_timeout=20.0, total_timeout=40.0, memory_bytes=2**30, rss_poll=0.05)
    grader = Grader(load_catalogue([HERE / "fixtures" / "drills"]), limits=limits)
    path = HERE / "hostile" / "deep_tree.py"
    report = grader.grade("sandbox-toy", path.read_text(), str(path), seed=7, limits=limits)
    assert report.verdict == "pass", [c.message for c in report.cases]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("drill-sandbox-")]


def _start(name: str, tmp_path: Path, case_timeout: float, total_timeout: float) -> subprocess.Popen:
    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    return subprocess.Popen([sys.executable, str(GRADE_ONE), name, str(case_timeout), str(total_timeout)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_child(proc: subprocess.Popen, tmp_path: Path, timeout: float = 120.0) -> list[int]:
    """Wait until the grader has forked its sandbox child; return the grader's children."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        if any(p.name.startswith("drill-sandbox-") for p in tmp_path.iterdir()):
            kids = _children(proc.pid)
            if kids:
                return kids
        time.sleep(0.02)
    pytest.fail("the grader never started its child")


def _children(pid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                raw = Path(f"/proc/{name}/stat").read_bytes()
            except OSError:
                continue
            if int(raw[raw.rfind(b")") + 2:].split()[1]) == pid:
                out.append(int(name))
    return out


def _gone(pid: int, wait: float = 30.0) -> bool:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        if Path(f"/proc/{pid}/stat").read_bytes().split(b") ")[1][:1] == b"Z":
            return True  # a zombie: dead, waiting for whoever inherited it
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_terminating_signals_clean_up_like_ctrl_c(tmp_path: Path, sig: int):
    proc = _start("loop_function", tmp_path, 60.0, 120.0)
    kids = _wait_for_child(proc, tmp_path)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err
    assert "Traceback" not in err, err
    assert all(_gone(k) for k in kids), "a sandbox child outlived its grader"
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("drill-sandbox-")]


@pytest.mark.parametrize("name,verdict", [("slow_correct", "pass"), ("loop_function", "timeout")])
def test_a_stopped_grader_does_not_time_out_a_child_that_answered(tmp_path: Path, name: str, verdict: str):
    # the grader is stopped (as by Ctrl-Z) for longer than every deadline while its child runs on
    proc = _start(name, tmp_path, 1.0, 2.0)
    _wait_for_child(proc, tmp_path)
    proc.send_signal(signal.SIGSTOP)
    time.sleep(3.0)
    proc.send_signal(signal.SIGCONT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    report = json.loads(out.strip().splitlines()[-1])
    assert report["verdict"] == verdict, report


def test_a_grader_stopped_while_it_reads_a_frame_gives_the_time_back(monkeypatch: pytest.MonkeyPatch):
    """A stop can land between reading what the child sent and looking at the clock (the
    test above stops the grader just as its child starts, when its first frames arrive):
    that time is the grader's, not the child's, and must not time the child out."""
    from grader.engine import Grader
    from grader.sandbox import supervise
    from grader.catalogue import load_catalogue

    real_read = supervise._Pipes.read
    stalls = []

    def stopped_once(self, key):  # the process "stops" for 2.5 s right after its first read
        ok = real_read(self, key)
        if not stalls:
            time.sleep(2.5)
            stalls.append(2.5)
        return ok

    monkeypatch.setattr(supervise._Pipes, "read", stopped_once)
    limits = Limits(case_timeout=1.0, total_timeout=2.0, memory_bytes=2**30)
    grader = Grader(load_catalogue([HERE / "fixtures" / "drills"]), limits=limits)
    path = HERE / "hostile" / "correct.py"
    report = grader.grade("sandbox-toy", path.read_text(), str(path), seed=7, limits=limits)
    assert stalls and report.verdict == "pass", [c.message for c in report.cases]
