"""One sitting in a real terminal: `drill solve` in tmux, two failing submits and then
a pass. The failures move nothing; the pass moves the card once, rated Hard; `drill
export` shows three attempts in one sitting and a card reviewed once."""
from __future__ import annotations

from tests.paths import REPO

import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.trainer.tmux.screen import TmuxSession

ROOT = REPO
SOLUTIONS = ROOT / "drills" / "02-attention" / "solutions" / "mha-padding"

pytestmark = [pytest.mark.slow,  # drives tmux
              pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]


class Tmux(TmuxSession):
    def __init__(self) -> None:
        super().__init__(f"sched-{uuid.uuid4().hex[:8]}", "sched-sitting")


def _count(db: Path, table: str) -> int:
    if not db.exists():
        return 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0
    finally:
        conn.close()


def _wait_count(db: Path, table: str, n: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while _count(db, table) < n:
        if time.monotonic() > deadline:
            raise AssertionError(f"{table} never reached {n} rows (has {_count(db, table)})")
        time.sleep(0.2)


def test_fail_fail_pass_is_one_review_rated_hard(tmp_path, _drill_home):
    queue = tmp_path / "queue"
    queue.write_text("\n".join(str(SOLUTIONS / f) for f in ("bad_scale_d.py", "bad_scale_d_einsum.py",
                                                            "ok_einsum.py")) + "\n")
    editor = tmp_path / "editor.sh"  # each :edit loads the next file of the queue
    editor.write_text(f'#!/bin/sh\ncp "$(head -n 1 {queue})" "$1" && sed -i 1d {queue}\n')
    editor.chmod(0o755)
    env = {"DRILL_HOME": str(_drill_home), "EDITOR": str(editor), "TERM": "xterm-256color"}
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    command = (f"cd {shlex.quote(str(ROOT))} && env {exports} {shlex.quote(sys.executable)} -m trainer solve "
               f"mha-padding; echo DRILL-EXITED-$?; sleep 30")
    db = _drill_home / "progress.db"
    tmux = Tmux()
    tmux("new-session", "-d", "-s", tmux.target, "-x", "110", "-y", "45", command)
    try:
        tmux.wait_for("^S submit", 30)
        for n in (1, 2):
            tmux.type_line(":edit")
            tmux.wait_for("loaded from the editor", 20)
            tmux.type_line(":submit")
            _wait_count(db, "attempts", n, 90)
            tmux.wait_for("cases passed", 20)
            assert _count(db, "review_logs") == 0 and _count(db, "cards") == 0  # failures move nothing yet
        tmux.type_line(":edit")
        tmux.wait_for("loaded from the editor", 20)
        tmux.type_line(":submit")
        tmux.wait_for("device: pass · scale: pass · gradient: pass · solved in ", 90)  # PASS: every case and check
        tmux.type_line(":quit")
        screen = tmux.wait_for("DRILL-EXITED-0", 20)
        assert "mha-padding: passed in" in screen and "after 3 submits." in screen
    finally:
        tmux("kill-server")
    out = subprocess.run([sys.executable, "-m", "trainer", "export", "-"], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "DRILL_HOME": str(_drill_home)}, timeout=60)
    data = json.loads(out.stdout)
    attempts = data["attempts"]
    assert [a["verdict"] == "pass" for a in attempts] == [False, False, True]
    assert len({a["sitting"] for a in attempts}) == 1 and attempts[0]["sitting"]
    assert [a["rating"] for a in attempts] == [None, None, 2]  # one review: Hard, on the pass
    [card] = data["cards"]
    assert card["drill"] == "mha-padding" and card["reps"] == 1
