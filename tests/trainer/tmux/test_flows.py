"""The daily flows in a real terminal, as a person sees them (issue 12).

Three tmux servers run at once, so the whole script takes about as long as its
slowest flow:
- `drill mock` at 100x40 with 15 seconds on the clock: a line is typed, the clock
  runs out, the last buffer is graded and the summary shows the verdict, the code
  and the score's formula;
- `drill solve` at 100x40 with commands at every position (the `pass` line, the
  first line, a blank line in the middle, the end): no command ever shows in the
  code, the cursor stays on the command's line; Esc cancels a looping grade and
  the drill stays open; a pass offers the next drill and Enter opens it;
- `drill warmup` at 60x20: a quick-fire answer, a long line that wraps under its
  line number, the bar whole, Ctrl-C and `s` to skip, and the summary.
"""
from __future__ import annotations

from tests.paths import REPO

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.trainer.tmux.test_tmux import Tmux

ROOT = REPO

pytestmark = [pytest.mark.slow,  # drives tmux
              pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]

LONG = "total = (x * m).sum(dim=1)  # the sum over the real tokens only, one row per sample"
# a line of the code pane that holds a `:`-command: "12 :submit", " 3     :hint"
COMMAND_IN_CODE = re.compile(r"^\s*\d+\s+:[a-z]+\s*$", re.MULTILINE)


def command(home: Path, args: str) -> str:
    env = {"DRILL_HOME": str(home), "EDITOR": "true", "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return (f"cd {shlex.quote(str(ROOT))} && env -u COLUMNS -u LINES {exports} {shlex.quote(sys.executable)} "
            f"-m trainer {args}; "
            f"echo DRILL-EXITED-$?; sleep 60")


def start(home: Path, args: str, cols: int, rows: int) -> Tmux:
    home.mkdir(parents=True, exist_ok=True)
    tmux = Tmux(f"drill-flow-{uuid.uuid4().hex[:8]}")
    tmux("new-session", "-d", "-s", "drill", "-x", str(cols), "-y", str(rows), command(home, args))
    return tmux


def keys(tmux: Tmux, *names: str) -> None:
    tmux("send-keys", "-t", "drill", *names)


def typed(tmux: Tmux, text: str) -> None:
    tmux("send-keys", "-t", "drill", "-l", text)


def cursor(tmux: Tmux) -> tuple[int, int]:
    x, y = tmux("display", "-p", "-t", "drill", "#{cursor_x},#{cursor_y}").strip().split(",")
    return int(x), int(y)


def row(screen: str, y: int) -> str:
    return screen.split("\n")[y]


def numbered(screen: str, n: int) -> int:
    """The screen row that shows code line n (its number in the margin)."""
    rows = screen.split("\n")
    return next(i for i, line in enumerate(rows) if re.match(rf"^\s*{n}(\s|$)", line))


def cursor_line(tmux: Tmux, screen: str) -> int:
    """The code line the cursor is on, by the number in the margin of its row."""
    return int(row(screen, cursor(tmux)[1]).split()[0])


def test_the_daily_flows(tmp_path):
    mock = start(tmp_path / "mock", "mock --minutes 0.25 --count 1 --seed 11", 100, 40)
    solve = start(tmp_path / "solve", "solve masked-mean", 100, 40)
    warm = start(tmp_path / "warm", "warmup --count 1", 60, 20)
    try:
        # ---- the mock: its rules first, the clock started by Enter; type one line at once, then let it run out
        screen = mock.wait_for("Enter: start the 0.25-minute clock", 40)
        assert "The clock does not stop" in screen and "mock 1/1" not in screen
        keys(mock, "Enter")
        screen = mock.wait_for("mock 1/1", 40)
        assert "left of" not in screen and "drill target" in screen  # one countdown, the target beside it
        typed(mock, "return None  # out of time")

        # ---- solve, with commands at every position
        screen = solve.wait_for("^S submit", 40)
        x0, y0 = cursor(solve)
        assert row(screen, y0).strip() == "8     pass" and x0 == 7  # opens on the first body line, at `pass`
        typed(solve, ":hint")  # on the `pass` line
        keys(solve, "Enter")
        screen = solve.wait_for("hint 1/", 20)
        at = numbered(screen, 8)
        assert row(screen, at).strip() == "8     pass" and cursor(solve) == (7, at)  # the skeleton, as it was
        typed(solve, "while True: pass")  # `pass` gives way; a grade that would run to its time limit
        keys(solve, "C-s")
        solve.wait_for("grading… Esc cancels", 20)
        keys(solve, "Escape")
        screen = solve.wait_for("grade cancelled; nothing recorded", 5)  # at once, the drill still open
        assert "while True: pass" in screen and "^S submit" in screen
        keys(solve, "C-u", "Tab")  # the line emptied, indented again
        typed(solve, "m = mask.to(x.dtype).unsqueeze(-1)")
        keys(solve, "Enter")
        typed(solve, "return (x * m).sum(1) / m.sum(1).clamp(min=1)")
        keys(solve, "Enter")
        typed(solve, ":try")  # at the end, on an indented new line
        keys(solve, "Enter")
        screen = solve.wait_for("TRY on the example inputs", 40)
        assert not COMMAND_IN_CODE.search(screen)
        assert cursor_line(solve, screen) == 10 and row(screen, numbered(screen, 10)).strip() == "10"
        # the cursor on the emptied line 10, not at the end of line 9
        for _ in range(12):
            keys(solve, "Up")
        keys(solve, "Home", "Enter", "Up")  # a new first line
        typed(solve, ":shapes")  # on the first line
        keys(solve, "Enter")
        screen = solve.wait_for("mask         (B, T)", 20)
        assert cursor_line(solve, screen) == 1 and row(screen, numbered(screen, 1)).strip() == "1"  # line 1, empty
        keys(solve, "Down", "Down", "Down")  # line 4: the blank line in the middle
        typed(solve, ":help")
        keys(solve, "Enter")
        screen = solve.wait_for("Commands", 20)
        assert not COMMAND_IN_CODE.search(screen) and cursor_line(solve, screen) == 4
        keys(solve, "C-s")
        screen = solve.wait_for("device: pass · scale: pass · gradient: pass · solved in ", 120)  # PASS: every case and check
        assert re.search(r"PASS  (\d+)/\1 cases", screen), screen
        assert not COMMAND_IN_CODE.search(screen)
        assert "Enter: the next drill, " in screen and "Enter next: " in screen
        nxt = re.search(r"Enter: the next drill, ([\w-]+) \((?:due|new)\)", screen).group(1)
        keys(solve, "Enter")  # a pass leads somewhere
        screen = solve.wait_for(f" {nxt}  ", 30)
        screen = solve.wait_for("^S submit", 10)  # the next drill, open in the editor
        keys(solve, "C-q")
        screen = solve.wait_for("DRILL-EXITED-0", 20)
        assert "masked-mean: passed in" in screen
        assert not (tmp_path / "solve" / "drafts" / "masked-mean.py").exists()

        # ---- the warm-up at 60x20: a quick-fire answer, a long line, a skip
        screen = warm.wait_for("quick-fire", 30)
        typed(warm, "no idea")
        keys(warm, "Enter")
        warm.wait_for("Enter: next item", 10)
        keys(warm, "Enter")
        screen = warm.wait_for("^S submit", 30)
        assert "warm-up 1/1" in screen and "…" not in screen.split("\n")[-2]  # drills counted alone; the bar whole
        typed(warm, LONG)
        screen = warm.wait_for("one row per sample", 10)
        lines = screen.split("\n")
        at = next(i for i, line in enumerate(lines) if "total = (x * m)" in line)
        assert re.match(r"^\s*\d+ ", lines[at]) and not re.match(r"^\s*\d+ ", lines[at + 1])  # wrapped, numbered once
        assert "one row per sample" in lines[at + 1] or "one row per sample" in lines[at + 2]
        assert all(len(line) <= 60 for line in lines)
        warm_screen = screen
        keys(warm, "C-c")
        screen = warm.wait_for("s skip it", 10)
        assert "e end the warm-up" in screen
        typed(warm, "s")
        screen = warm.wait_for("DRILL-EXITED-0", 20)
        assert "skipped" in screen and "quick-fire: 0/1 right" in screen
        warm_summary = screen

        # ---- the mock's end
        screen = mock.wait_for("DRILL-EXITED-0", 60)
        assert "Mock interview: 0/1 passed, score 0/100" in screen and "time ran out" in screen
        assert "Score: each drill is worth an equal share of 100" in screen
        assert "code submitted:" in screen and "|     return None  # out of time" in screen
        mock_summary = screen
    finally:
        for tmux in (mock, solve, warm):
            tmux("kill-server")
    attempts = _attempts(tmp_path / "warm")
    assert attempts == []  # a skipped, never submitted drill records nothing
    [attempt] = _attempts(tmp_path / "mock")
    assert attempt["mode"] == "mock" and "out of time" in attempt["code"]
    excerpts = os.environ.get("DRILL_TMUX_EXCERPTS")
    if excerpts:  # the closing note's capture-pane excerpts
        Path(excerpts).write_text(f"--- warm-up summary\n{warm_summary}\n--- mock summary\n{mock_summary}\n"
                                  f"--- 60x20 with a long line\n{warm_screen}\n", encoding="utf-8")


def _attempts(home: Path) -> list[dict]:
    out = subprocess.run([sys.executable, "-m", "trainer", "export", "-"], capture_output=True, text=True, check=True,
                         cwd=ROOT, env={**os.environ, "DRILL_HOME": str(home), "PYTHONPATH": str(ROOT)}, timeout=60)
    return json.loads(out.stdout)["attempts"]
