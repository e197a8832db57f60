"""The grader worker: its JSON-lines protocol, restart after death, and the
`internal` verdict when nothing can answer."""
from __future__ import annotations

from tests.paths import REPO, TESTS

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.errors import UnknownDrill
from grader.worker import WorkerClient

ROOT = REPO
TOY = TESTS / "fixtures" / "drills"
CORRECT = (TESTS / "hostile" / "correct.py").read_text()
LOOP = (TESTS / "hostile" / "loop_function.py").read_text()

pytestmark = pytest.mark.slow  # a real worker process, killed and restarted


@pytest.fixture(scope="module")
def client():
    env = dict(os.environ, DRILL_PATH=str(TOY))
    worker = WorkerClient(env=env)
    yield worker
    worker.close()


def test_client_module_does_not_import_torch():
    code = "import sys, grader.worker; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=60)


def test_hello_names_what_is_enforced(client):
    hello = client.wait_ready()
    assert hello["ready"] and hello["pid"] == client.pid
    assert set(hello["enforced"]) | set(hello["not_enforced"]) >= {"filesystem", "processes", "network"}


def test_round_trip_every_op(client):
    assert client.ping()["ok"]
    prep = client.prepare("sandbox-toy", 5)
    assert prep == {"id": prep["id"], "ok": True, "seed": 5, "calls": 3}
    report = client.grade("sandbox-toy", CORRECT, "mine.py", seed=5)
    assert report.verdict == "pass" and report.passed == report.total
    assert [str(c.kind) for c in report.cases] == ["case"] * 3 + ["gradient"] * 3  # each call, then its gradient
    assert {"drill", "verdict", "passed", "total", "seconds", "cases", "trap", "seed"} <= set(report.to_dict())
    assert {"output", "alone"} <= set(report.to_dict(wire=True))
    wrong = client.grade("sandbox-toy", "def add_one(x):\n    print('hi')\n    return x + 2\n", seed=5)
    assert wrong.verdict == "wrong"
    assert wrong.trap is not None and wrong.trap.id == "add-two" and "Off by one" in wrong.trap.why
    assert wrong.output.startswith("hi")
    trace = client.trace("sandbox-toy", CORRECT)
    assert isinstance(trace, dict) and trace  # grader.trace's dict, or {"error": ...} without that module
    probe = client.request({"op": "probe"})
    assert probe["ok"] and {f["name"] for f in probe["features"]} >= {"filesystem", "processes"}


def test_cases_op_names_the_cases_a_seed_grades_on(client):
    first = client.case_hash("sandbox-toy", 5)
    assert isinstance(first, str) and len(first) == 16 and int(first, 16) >= 0
    assert client.case_hash("sandbox-toy", 5) == first and client.case_hash("sandbox-toy", 6) != first
    assert client.request({"op": "cases", "drill": "sandbox-toy", "seed": 5})["cases"] == first
    assert client.case_hash("no-such-drill", 5) is None


def test_errors_answer_and_never_kill_the_worker(client):
    pid = client.pid
    assert client.request({"op": "no-such-op"})["ok"] is False
    assert client.request({"op": "grade", "drill": "sandbox-toy", "source": 3})["ok"] is False
    with pytest.raises(UnknownDrill):
        client.grade("no-such-drill", CORRECT)
    timeout = client.grade("sandbox-toy", LOOP, seed=5)
    assert timeout.verdict == "timeout"
    assert client.ping()["ok"] and client.pid == pid


def test_raw_protocol_lines(client):
    client.wait_ready()
    proc = client._proc  # the raw pipes, as another program would use them
    proc.stdin.write(b"this is not json\n")
    proc.stdin.write(json.dumps({"id": 77, "op": "ping"}).encode() + b"\n")
    proc.stdin.flush()
    first = json.loads(proc.stdout.readline())
    second = json.loads(proc.stdout.readline())
    assert first["ok"] is False and first["id"] is None and "not JSON" in first["error"]
    assert second == {"id": 77, "ok": True, "pid": client.pid, "protocol": 1}


def test_worker_is_restarted_after_being_killed(client):
    first = client.pid
    client.wait_ready()
    os.kill(first, signal.SIGKILL)
    report = client.grade("sandbox-toy", CORRECT, seed=5)
    assert report.verdict == "pass"
    assert client.pid != first and client.restarts >= 1


def test_internal_verdict_when_the_worker_never_starts():
    client = WorkerClient(command=[sys.executable, "-c", "import sys; print('boom', file=sys.stderr); sys.exit(3)"])
    t0 = time.monotonic()
    report = client.grade("sandbox-toy", CORRECT, seed=5, timeout=30)
    client.close()
    assert report.verdict == "internal"
    assert "could not answer" in report.message and "boom" in report.message
    assert report.cases == [] and report.passed == 0
    assert time.monotonic() - t0 < 30


FLAKY = """
import json, sys
print(json.dumps({"id": 0, "ok": True, "ready": True, "pid": 1}), flush=True)
sys.stdin.readline()
sys.exit(1)  # dies on every request
"""


def test_internal_verdict_when_every_worker_dies_on_the_request():
    client = WorkerClient(command=[sys.executable, "-c", FLAKY])
    report = client.grade("sandbox-toy", CORRECT, seed=5, timeout=30)
    client.close()
    assert report.verdict == "internal"
    assert client.restarts == 1  # retried once, then gave up


def test_close_during_a_request_answers_at_once():
    import threading

    client = WorkerClient(env=dict(os.environ, DRILL_PATH=str(TOY)))
    client.wait_ready()
    got: dict = {}
    thread = threading.Thread(target=lambda: got.update(report=client.grade("sandbox-toy", LOOP, seed=5)))
    thread.start()
    time.sleep(0.5)
    t0 = time.monotonic()
    client.close()
    thread.join(timeout=10)
    assert not thread.is_alive() and time.monotonic() - t0 < 10
    assert got["report"].verdict == "internal"
    assert client.request({"op": "ping"})["ok"] is False


def test_sandbox_child_dies_with_a_killed_worker():
    import threading

    client = WorkerClient(env=dict(os.environ, DRILL_PATH=str(TOY)))
    client.wait_ready()
    thread = threading.Thread(target=lambda: client.grade("sandbox-toy", LOOP, seed=5))
    thread.start()
    worker = client.pid
    deadline = time.monotonic() + 20
    children: list[int] = []
    while not children and time.monotonic() < deadline:  # the sandbox child running the loop
        children = [int(p) for p in os.listdir("/proc") if p.isdigit() and _ppid(int(p)) == worker]
        time.sleep(0.05)
    assert children
    os.kill(worker, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in children), "a sandbox child outlived its worker"
    client.close()
    thread.join(timeout=30)


def _ppid(pid: int) -> int:
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return -1
    return int(raw[raw.rfind(b")") + 2:].split()[1])


def _alive(pid: int) -> bool:
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return raw[raw.rfind(b")") + 2:].split()[0] != b"Z"
