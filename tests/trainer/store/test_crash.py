"""Crash safety and a full disk, with real processes.

* Writers are killed with SIGKILL at random points (while opening, migrating from
  a v1 file, taking the daily backup, recording, in the middle of a sitting with
  failed submits); afterwards every attempt whose uid a writer printed (it
  prints only after `record_attempt` returned, i.e. after COMMIT) is present,
  `PRAGMA integrity_check` is "ok", and every sitting a killed writer left open
  was closed and rated from its attempts when the store was next opened.
* A full disk is simulated with RLIMIT_FSIZE in a subprocess (SIGXFSZ ignored so
  the write fails instead of killing the process): the failure is a clear
  domain error, the CLI prints one line and exits non-zero, and nothing saved
  before is lost.
"""
from __future__ import annotations

from tests.paths import REPO

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from trainer.store import MIGRATIONS, NewAttempt, list_backups, open_store

ROOT = REPO

WRITER = textwrap.dedent("""
    import os, random, sys
    from datetime import datetime, timedelta, timezone
    from trainer.store import NewAttempt, open_store
    offset = timedelta(days=int(sys.argv[1]))      # a new day each trial: a backup on open
    clock = lambda: datetime.now(timezone.utc) + offset
    rng = random.Random(int(sys.argv[2]))
    drills = ["gqa", "top-p", "mha-padding", "lora"]
    while True:
        with open_store(clock=clock) as store:     # reopen often so kills hit open too
            for _ in range(rng.randint(1, 4)):
                drill = rng.choice(drills)
                sitting = store.open_sitting(drill, "solve", target_seconds=120)
                for _ in range(rng.randint(1, 4)):  # sittings with failed submits, often left open by the kill
                    verdict = rng.choice(["pass", "wrong", "wrong", "internal"])
                    result = store.record_attempt(NewAttempt(drill, "solve", clock(), rng.random() * 200,
                                                             verdict, code="x = 1\\n" * rng.randint(1, 3000),
                                                             target_seconds=120,
                                                             traps=["t"] if verdict == "wrong" else None,
                                                             sitting_id=sitting))
                    print("ACK", result.uid, flush=True)
                store.close_sitting(sitting, "left")
""")


def _env(home: Path) -> dict[str, str]:
    return dict(os.environ, DRILL_HOME=str(home), PYTHONPATH=str(ROOT))


def _build_v1(path: Path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute("INSERT INTO attempts(uid, drill, mode, started_at, seconds, verdict, hints, code) "
                 "VALUES ('from-v1', 'gqa', 'solve', '2025-01-01T10:01:00.000000+00:00', 4, 'pass', 0, '')")
    conn.execute("PRAGMA user_version = 1")
    conn.close()


def _acked(output: bytes) -> set[str]:
    lines = output.decode().split("\n")
    complete = lines[:-1]  # the last piece may be a line cut by the kill
    return {line.split()[1] for line in complete if line.startswith("ACK ") and len(line.split()) == 2}


@pytest.mark.slow
def test_sigkilled_writers_never_lose_an_acknowledged_attempt(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    _build_v1(home / "progress.db")
    rng = random.Random(20250303)
    acked: set[str] = {"from-v1"}
    deadline = time.monotonic() + 7
    trials = 0
    while trials < 24 and time.monotonic() < deadline:
        trials += 1
        writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(trials), str(rng.randrange(10**6))],
                                    env=_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                   for _ in range(rng.choice([1, 1, 2]))]
        first = b""
        if trials % 2 == 0:  # every other trial: kill while recording, not while starting up
            first = writers[0].stdout.readline()
            time.sleep(rng.uniform(0.0, 0.3))
        else:
            time.sleep(rng.uniform(0.05, 1.0))
        for w in writers:
            w.send_signal(signal.SIGKILL)
        for i, w in enumerate(writers):
            out, err = w.communicate(timeout=30)
            assert w.returncode == -signal.SIGKILL, err.decode()[-6000:]
            acked |= _acked((first if i == 0 else b"") + out)
    assert trials >= 4 and len(acked) > 3  # enough kills landed mid-work

    with open_store(home) as store:
        assert store.integrity_check() == "ok"
        present = {a.uid for a in store.attempts()}
        assert acked <= present, f"lost {len(acked - present)} acknowledged attempts"
        assert len(present - acked) <= trials * 2  # at most one unprinted commit per killed writer
        counts = store.counts()
        sittings = store.sittings()
        assert all(s.closed_at is not None for s in sittings)  # the killed writers' sittings were recovered
        assert any(s.outcome == "abandoned" for s in sittings)
        counted = {a.sitting_id for a in store.attempts() if a.verdict != "internal"}
        assert {s.id for s in sittings if s.rating is not None} == counted  # rated iff touched
        assert counts["review_logs"] == len(counted)  # one review per sitting
        assert sum(c.reps for c in store.cards()) == len(counted)
    conn = sqlite3.connect(home / "progress.db")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    for backup in list_backups(home):
        check = sqlite3.connect(f"file:{backup}?mode=ro", uri=True)
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok", backup
        check.close()


FULL_DISK_CHILD = textwrap.dedent("""
    import resource, signal, sys
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)      # a failed write, not a dead process
    limit = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    from datetime import datetime, timezone
    from trainer.store import NewAttempt, open_store, StoreError
    try:
        with open_store() as store:
            for i in range(1000):
                result = store.record_attempt(NewAttempt("gqa", "solve", datetime.now(timezone.utc), 3.0, "pass",
                                                         code="# padding\\n" * 3000))
                print("ACK", result.uid, flush=True)
    except StoreError as exc:
        print("ERROR", type(exc).__name__, exc.message, flush=True)
        sys.exit(3)
""")

CLI = "from trainer.cli.app import app; import trainer.cli.progress; app()"


def _seed(home: Path, n: int = 20) -> set[str]:
    from datetime import datetime, timezone

    with open_store(home) as store:
        return {store.record_attempt(NewAttempt("top-p", "solve", datetime.now(timezone.utc), 5.0, "pass")).uid
                for _ in range(n)}


def test_a_full_disk_is_a_clear_error_and_loses_nothing(tmp_path):
    home = tmp_path / "home"
    before = _seed(home)
    limit = (home / "progress.db").stat().st_size + 150_000
    done = subprocess.run([sys.executable, "-c", FULL_DISK_CHILD, str(limit)], env=_env(home),
                          capture_output=True, timeout=60)
    out = done.stdout.decode()
    assert done.returncode == 3, out + done.stderr.decode()
    error_line = out.strip().splitlines()[-1]
    assert error_line.startswith(("ERROR DiskFullError", "ERROR StoreWriteError")), error_line
    assert "intact" in error_line and "Traceback" not in done.stderr.decode()
    acked = _acked(done.stdout)
    assert acked, "the limit left no room for even one attempt; raise it"
    with open_store(home) as store:
        assert store.integrity_check() == "ok"
        present = {a.uid for a in store.attempts()}
        assert before | acked <= present and len(present) == len(before) + len(acked)
        store.record_attempt(NewAttempt("top-p", "solve", store.attempts()[0].started_at, 1.0, "pass"))  # room again


def test_the_cli_reports_a_full_disk_in_one_line(tmp_path):
    home = tmp_path / "home"
    before = _seed(home, 5)
    big = {"format": 1, "exported_at": "2025-01-01T00:00:00+00:00", "cards": [], "sessions": [],
           "attempts": [{"drill": "gqa", "mode": "solve", "started_at": f"2025-01-01T00:00:{i:02d}+00:00",
                         "seconds": 1, "verdict": "pass", "hints": 0, "code": "y = 2\n" * 20000}
                        for i in range(40)]}
    source = tmp_path / "big.json"
    source.write_text(json.dumps(big))
    limit = (home / "progress.db").stat().st_size + 200_000
    script = (f"import resource, signal; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
              f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit})); {CLI}")
    done = subprocess.run([sys.executable, "-c", script, "import", str(source)], env=_env(home),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.startswith("drill: ") and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr and ("full" in done.stderr or "could not write" in done.stderr)
    with open_store(home) as store:  # the import was one transaction: all or nothing
        assert {a.uid for a in store.attempts()} == before and store.integrity_check() == "ok"
