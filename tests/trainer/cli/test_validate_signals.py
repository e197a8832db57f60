"""`drill validate --jobs 2` stopped half-way (SIGTERM, SIGHUP, Ctrl-C to its process group): it ends
at once with 128 + the signal, no traceback from a worker, no process and no sandbox folder left.
Before, SIGTERM killed the parent outright and its workers printed BrokenPipeError tracebacks, and Ctrl-C
made a worker print its own `Process ForkPoolWorker` line; a worker with a Python SIGTERM handler, its main
thread waiting on the pool's queue lock, could miss terminate's SIGTERM and hang the parent (seen once at
the end of a run)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.paths import REPO

pytestmark = pytest.mark.slow


def _group_left(pgid: int) -> list[str]:
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(pid)
    return out


# quick drills to prove (no variants, so a folder without their sample solutions is still valid)
_QUICK = ("01-broadcasting/broadcast-rule", "01-broadcasting/outer-typo", "04-gather-scatter/one-hot-counts",
          "06-einsum-and-rest/conv-output-size", "06-einsum-and-rest/einsum-read")


def _quick_drills(tmp_path: Path) -> Path:
    """A folder of five real drills, their specs, references, oracles and debug rounds."""
    import shutil

    folder = tmp_path / "quick"
    folder.mkdir()
    for drill in _QUICK:
        for part in REPO.joinpath("drills").glob(drill + ".*"):
            shutil.copy(part, folder / part.name)
    return folder


def _validate_at_work(tmp_path: Path, **env: str) -> subprocess.Popen[str]:
    """`drill validate --jobs 2` over a folder of drills, in a session of its own, once a worker has
    answered (its `validate 1/N id` line): the other worker is at work."""
    proc = subprocess.Popen([sys.executable, "-m", "trainer", "validate", "--jobs", "2", str(_quick_drills(tmp_path))],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env={**os.environ, "DRILL_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO), **env},
                            start_new_session=True)
    assert proc.stderr is not None
    first = proc.stderr.readline()
    if not first.startswith("validate 1/"):
        os.killpg(proc.pid, signal.SIGKILL)  # its workers too
        proc.wait()
        raise AssertionError(first)
    return proc


@pytest.mark.parametrize("sig, to_group", [(signal.SIGTERM, False), (signal.SIGHUP, False), (signal.SIGINT, True)])
def test_validate_stopped_half_way_ends_cleanly(tmp_path: Path, sig: int, to_group: bool):
    temp = tmp_path / "tmp"
    temp.mkdir()
    proc = _validate_at_work(tmp_path, TMPDIR=str(temp))
    try:
        time.sleep(0.3)
        if to_group:
            os.killpg(proc.pid, sig)  # as Ctrl-C in a terminal: the whole group
        else:
            os.kill(proc.pid, sig)
        t0 = time.monotonic()
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 128 + sig, err
    assert "Traceback" not in err and "Process Fork" not in err, err
    assert took < 15
    deadline = time.monotonic() + 5
    while _group_left(proc.pid) and time.monotonic() < deadline:  # children killed with their worker: reaped by init
        time.sleep(0.05)
    assert _group_left(proc.pid) == []
    assert [p.name for p in temp.iterdir() if p.name.startswith("drill-sandbox")] == []


def test_validate_ends_with_its_status_and_every_line_of_its_output(tmp_path: Path):
    """validate leaves without the interpreter's teardown of torch (trainer.cli.QUICK_EXIT): the exit
    status and everything written to a pipe must still be there, a failing drill's problems included."""
    import shutil

    folder = tmp_path / "drills"
    (folder / "solutions").mkdir(parents=True)
    src = REPO / "drills" / "03-ragged"
    for name in ("masked-mean.yaml", "masked-mean.py", "masked-mean.rounds.yaml"):
        shutil.copy(src / name, folder / name)
    shutil.copytree(src / "solutions" / "masked-mean", folder / "solutions" / "masked-mean")
    env = {**os.environ, "DRILL_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)}
    run = [sys.executable, "-m", "trainer", "validate", "--quiet", "--jobs", "1", str(folder)]
    good = subprocess.run(run, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert good.returncode == 0, good.stderr
    assert good.stdout.endswith(" each proved)\n") and "masked_mean(): device case: yes" in good.stdout

    (folder / "solutions" / "masked-mean" / "ok_wrong.py").write_text(
        "def masked_mean(x, mask):\n    return x.mean(1)\n")
    bad = subprocess.run(run, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "ok_wrong.py:1: (solution): an ok_ file must pass" in bad.stderr
    assert bad.stderr.rstrip().splitlines()[-1].startswith("validate: 1 problem(s) in 1 file(s)")


def test_a_worker_killed_on_its_own_is_said_not_waited_for(tmp_path: Path):
    """A worker killed alone (the kernel's OOM killer, say) takes its drill's answer with it: the pool
    would wait for that answer forever. validate says so and exits 1 instead."""
    proc = _validate_at_work(tmp_path)
    try:
        with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as f:
            workers = [int(pid) for pid in f.read().split()]
        assert workers
        os.kill(workers[0], signal.SIGKILL)
        # the other worker still proves its drills first: a bound for a hang, not a timing (on a slow machine
        # under a full suite's load that took up to 30 s; waiting forever is what this test is about)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 1, err
    assert "a worker process was killed while proving " in err and "Traceback" not in err, err


@pytest.mark.parametrize("exitcode, said", [(-9, "was killed while proving broadcast-rule (signal 9: out of memory"),
                                            (1, "ended (exit status 1) while proving broadcast-rule")])
def test_a_worker_that_ended_is_told_as_it_ended(exitcode: int, said: str):
    """Killed by a signal, or ended by an error of its own (an exit status): each said as it is."""
    from types import SimpleNamespace

    from grader.authoring.proving import _ended
    from grader.catalogue import load_catalogue

    spec = load_catalogue().get("broadcast-rule")
    text = str(_ended(SimpleNamespace(exitcode=exitcode), spec))
    assert said in text and f"drill validate --jobs 1 {spec.path}" in text
    assert ("killed" in text) == (exitcode < 0)
