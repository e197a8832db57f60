"""The REPL in a real terminal: tmux runs `drill solve`, a solution comes in through
:edit (EDITOR is a command that writes the file), :submit shows the pass verdict,
:quit leaves, and `drill export` shows the attempt."""
from __future__ import annotations

from tests.paths import REPO

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.trainer.tmux.screen import TmuxSession

ROOT = REPO
SOLUTION = ROOT / "drills" / "02-attention" / "solutions" / "mha-padding" / "ok_einsum.py"

pytestmark = [pytest.mark.slow,  # drives tmux
              pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]


class Tmux(TmuxSession):
    def __init__(self, socket: str):
        super().__init__(socket, "drill")


def solve_command(home: Path, editor: str = "true") -> str:
    env = {"DRILL_HOME": str(home), "EDITOR": editor, "TERM": "xterm-256color"}
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return (f"cd {shlex.quote(str(ROOT))} && env {exports} {shlex.quote(sys.executable)} -m trainer solve "
            f"mha-padding; echo DRILL-EXITED-$?; sleep 30")


def test_solve_edit_submit_quit_export(tmp_path, _drill_home):
    tmux = Tmux(f"drill-test-{uuid.uuid4().hex[:8]}")
    command = solve_command(_drill_home, f"cp {shlex.quote(str(SOLUTION))}")
    tmux("new-session", "-d", "-s", "drill", "-x", "110", "-y", "45", command)
    try:
        screen = tmux.wait_for("^S submit", 30)
        assert "Multi-head attention with a key padding mask" in screen
        assert "def multi_head_attention(Q, K, V, pad_mask, H: int):" in screen
        tmux.type_line(":edit")
        screen = tmux.wait_for("loaded from the editor", 20)
        assert 'torch.einsum("bhts,bshd->bthd", w, v).reshape(B, T, d)' in screen
        tmux.type_line(":submit")
        screen = tmux.wait_for("device: pass · scale: pass · gradient: pass · solved in ", 90)  # PASS: every case and check
        assert re.search(r"PASS  (\d+)/\1 cases", screen), screen
        assert "Reference solution:" in screen and "Back for review" in screen
        tmux.type_line(":quit")
        screen = tmux.wait_for("DRILL-EXITED-0", 20)
        assert "mha-padding: passed in" in screen
    finally:
        tmux("kill-server")
    out = subprocess.run([sys.executable, "-m", "trainer", "export", "-"], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "DRILL_HOME": str(_drill_home)}, timeout=60)
    data = json.loads(out.stdout)
    [attempt] = data["attempts"]
    assert attempt["drill"] == "mha-padding" and attempt["mode"] == "solve" and attempt["verdict"] == "pass"
    assert "torch.einsum" in attempt["code"]


def test_a_closed_terminal_keeps_the_buffer_as_a_draft(_drill_home):
    tmux = Tmux(f"drill-test-{uuid.uuid4().hex[:8]}")
    tmux("new-session", "-d", "-s", "drill", "-x", "100", "-y", "40", solve_command(_drill_home))
    draft = _drill_home / "drafts" / "mha-padding.py"
    try:
        tmux.wait_for("^S submit", 30)
        tmux("send-keys", "-t", "drill", "-l", "scores = q @ k.transpose(-2, -1)")
        tmux.wait_for("scores = q @ k.transpose(-2, -1)", 10)
    finally:
        tmux("kill-server")  # the terminal goes away: SIGHUP
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not (draft.exists() and "scores = q @ k" in draft.read_text()):
        time.sleep(0.1)
    assert "scores = q @ k.transpose(-2, -1)" in draft.read_text()
