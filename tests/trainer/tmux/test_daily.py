"""The daily commands in a real terminal (tmux): a warm-up whose "back for review" and
"due tomorrow" say what the scheduler stored; the warm-up when nothing is left
today (it says so and offers more); `list`, `show` and `--help` at 60x20, folded
at spaces."""
from __future__ import annotations

from tests.paths import REPO

import shlex
import shutil
import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.trainer.tmux.screen import TmuxSession

from trainer.store import NewAttempt, open_store

ROOT = REPO
REFERENCE = ROOT / "drills" / "01-broadcasting" / "outer-typo.py"

pytestmark = [pytest.mark.slow,  # drives tmux
              pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]


class Tmux(TmuxSession):
    def __init__(self, width: int, height: int, command: str):
        super().__init__(f"cli-test-{uuid.uuid4().hex[:8]}", "cli")
        self.start(width, height, command)


def drill(home: Path, args: str, editor: str = "true") -> str:
    env = {"DRILL_HOME": str(home), "EDITOR": editor, "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return (f"cd {shlex.quote(str(ROOT))} && env -u COLUMNS -u LINES {exports} {shlex.quote(sys.executable)} "
            f"-m trainer {args}; echo DRILL-EXITED-$?; sleep 30")


def test_warmup_back_for_review_and_due_tomorrow_agree_with_the_store(_drill_home):
    now = datetime.now(timezone.utc)
    with open_store(_drill_home) as store:
        store.record_attempt(NewAttempt("outer-typo", "solve", now - timedelta(minutes=5), 30, "wrong"))  # due again
    tmux = Tmux(100, 40, drill(_drill_home, "warmup -n 1", f"cp {shlex.quote(str(REFERENCE))}"))
    try:
        screen = tmux.wait_for(" 1/1 outer-typo", 30)  # the question itself, not the header's "quick-fire"
        assert "Warm-up: 1 drill(s) (1 due, 0 new), 1 quick-fire question(s) in between." in screen
        tmux.type_line("four")
        tmux.wait_for("Enter: next item", 10)
        tmux.type_line("")
        tmux.wait_for("^S submit", 30)
        tmux.type_line(":edit")
        tmux.wait_for("loaded from the editor", 20)
        tmux.type_line(":submit")
        screen = tmux.wait_for("PASS", 90)
        back = next(line for line in screen.splitlines() if "Back for review" in line).strip()
        tmux("send-keys", "-t", "cli", "C-n")
        screen = tmux.wait_for("DRILL-EXITED-0", 30)
        assert "Due tomorrow: 1 (outer-typo)" in screen
    finally:
        tmux.close()
    with open_store(_drill_home) as store:
        due = store.card("outer-typo").due.astimezone()
    assert due.date() == (datetime.now().astimezone() + timedelta(days=1)).date()
    assert back == f"Back for review tomorrow at {due:%H:%M}."


def test_warmup_says_when_nothing_is_left_and_offers_more(_drill_home):
    now = datetime.now(timezone.utc)
    with open_store(_drill_home) as store:
        store.set_setting("daily_new_limit", 1)
        store.record_attempt(NewAttempt("broadcast-rule", "solve", now - timedelta(minutes=3), 100, "pass",
                                        target_seconds=240))
    tmux = Tmux(60, 20, drill(_drill_home, "warmup"))
    try:
        screen = " ".join(tmux.wait_for("[y/N]", 30).split())  # folded at 60 columns
        assert "Nothing is due now, and today's new drills are used up (1 met today; " \
            "daily_new_limit is 1). Next review: broadcast-rule" in screen
        assert "Study more: 3 new drill(s) beyond today's limit?" in screen
        tmux.type_line("n")
        screen = " ".join(tmux.wait_for("DRILL-EXITED-0", 20).split())
        assert "Nothing more today. `drill warmup --more` studies ahead" in screen
    finally:
        tmux.close()
    with open_store(_drill_home) as store:
        assert store.sessions() == []  # declining starts nothing


def _words(screen: str) -> set[str]:
    return set(screen.split())


@pytest.mark.parametrize("args,expect", [("list", "broadcast-rule"), ("show outer-typo", "write:"),
                                         ("--help", "Commands:")])
def test_60x20_output_folds_at_spaces(_drill_home, args, expect):
    from grader.catalogue import load_catalogue

    cat = load_catalogue()
    tmux = Tmux(60, 20, drill(_drill_home, f"{args} | head -18"))
    try:
        screen = tmux.wait_for("DRILL-EXITED-0", 30)
    finally:
        tmux.close()
    assert expect in screen
    words = _words(screen)
    if args == "list":
        for spec in list(cat.specs.values())[:6]:
            assert set(spec.title.split()) <= words, spec.title
    elif args.startswith("show"):
        prompt = cat.get("outer-typo").prompt.split()
        assert set(prompt[:40]) <= words
    else:
        assert "..." not in screen.split("Commands:")[1]
        for line in screen.split("Commands:")[1].splitlines():
            # every line is the formatter's (indented); one the terminal wrapped would start at column 0
            assert not line or line.startswith("  ") or line.startswith("DRILL-EXITED"), line
