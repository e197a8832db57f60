"""The practice side of debug rounds (grader.rounds): the warm-up's share of them, the debrief
after a pass, the attempt's kind and trap (schema v5), the debug_share setting, `drill debug`'s
refusals. Fast: nothing here grades."""
from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from grader import rounds
from trainer.practice.attempts import attempt_from
from trainer.practice.flows import DrillItem, QuizItem, with_debug_rounds
from trainer.store import MIGRATIONS, SCHEMA_VERSION, NewAttempt, open_store
from trainer.store.settings import validate_setting
from trainer.text.debrief import classify, debrief
from trainer.text.verdict import plain
from grader.report import Report

T0 = datetime(2025, 3, 3, 8, 0, tzinfo=timezone.utc)
BASE = "def f(x):\n    y = x * 2\n    z = y + 1\n    w = z - 3\n    return w\n"


def _planted(bug: str = "z = y - 1") -> rounds.Planted:
    return rounds.buggy(rounds.Round("sign", "b", (rounds.Plant("z = y + 1", bug),)), {"b": BASE}, "d")


def test_the_warm_up_serves_reviews_of_passed_drills_as_debug_rounds_at_the_set_share():
    items = [QuizItem("a", 0), DrillItem("a", "review"), DrillItem("b", "review"), DrillItem("c", "new")]
    assert with_debug_rounds(items, {"a", "b", "c"}, 0.0, seed=1) == items
    every = with_debug_rounds(items, {"a", "c"}, 1.0, seed=1)
    assert every == [QuizItem("a", 0), DrillItem("a", "review", debug=True), DrillItem("b", "review"),
                     DrillItem("c", "new")]  # b has no rounds or no pass; a new drill is never one
    many = [DrillItem(f"d{i}", "review") for i in range(400)]
    served = with_debug_rounds(many, {i.drill for i in many}, 0.25, seed=3)
    share = sum(i.debug for i in served) / len(many)
    assert 0.18 < share < 0.32 and served == with_debug_rounds(many, {i.drill for i in many}, 0.25, seed=3)


def test_the_debrief_says_where_the_bug_was_and_how_it_was_fixed():
    planted = _planted()
    assert planted.lines == (3,) and planted.code.splitlines()[2] == "    z = y - 1"
    found = plain(debrief(planted, BASE, "matches subtracting"))
    assert "found and fixed. The bug was on line 3: z = y - 1" in found
    assert "the trap sign — matches subtracting" in found and "-    z = y - 1" in found and "+    z = y + 1" in found
    assert classify(planted, BASE).kind == "found"
    rewrite = "def f(x):\n    return 2 * x - 2\n"
    assert classify(planted, rewrite).kind == "rewrote"
    assert "a pass: you rewrote it; the bug was on line 3: z = y - 1" in plain(debrief(planted, rewrite, ""))
    elsewhere = planted.code.replace("w = z - 3", "w = z - 1")
    assert classify(planted, elsewhere).kind == "elsewhere"
    gone = _planted("")
    assert "line 2: a line was missing just after it" in plain(debrief(gone, BASE, ""))
    assert classify(gone, BASE).kind == "found"


def test_a_debug_attempt_keeps_its_kind_and_trap(tmp_path: Path):
    home = tmp_path / "home"
    with open_store(home) as store:
        assert store.schema_version() == SCHEMA_VERSION == 5
        attempt = attempt_from(Report("gqa", "pass", []), drill="gqa", mode="warmup", started_at=T0, seconds=30,
                               kind="debug", debug_trap="no-scale")
        store.record_attempt(attempt)
        store.record_attempt(NewAttempt("gqa", "solve", T0, 40, "pass"))
        got = [(a.kind, a.debug_trap) for a in store.attempts()]
    assert got == [("debug", "no-scale"), ("write", None)]


def test_v5_from_a_v4_file_marks_every_earlier_attempt_written(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    conn = sqlite3.connect(home / "progress.db", isolation_level=None)
    for step in MIGRATIONS[:4]:
        for statement in step:
            statement(conn) if callable(statement) else conn.execute(statement)
    conn.execute("INSERT INTO attempts(uid, drill, mode, started_at, seconds, verdict) "
                 "VALUES ('a1', 'gqa', 'solve', '2025-03-01T08:00:00.000000+00:00', 120, 'pass')")
    conn.execute("PRAGMA user_version = 4")
    conn.close()
    with open_store(home) as store:
        assert store.schema_version() == 5
        assert [(a.uid, a.kind, a.debug_trap) for a in store.attempts()] == [("a1", "write", None)]
    assert any("pre-v5" in p.name for p in (home / "backups").iterdir())


def test_debug_share_is_a_share():
    assert validate_setting("debug_share", 0.5) == 0.5 and validate_setting("debug_share", 1) == 1.0
    for bad in (-0.1, 1.5, True, "half"):
        with pytest.raises(ValueError, match="debug_share must be a number from 0"):
            validate_setting("debug_share", bad)


@pytest.fixture(scope="module")
def app():
    from trainer.cli import _register, app

    _register()
    return app


def test_drill_debug_refuses_what_it_cannot_serve(app):
    out = CliRunner().invoke(app, ["debug", "mha-padding", "--trap", "no-such"], env={"COLUMNS": "300"})
    assert out.exit_code == 2
    assert "mha-padding has no debug round for the trap 'no-such'; its rounds: scale-by-d" in out.output
    assert CliRunner().invoke(app, ["debug", "no-such-drill"]).exit_code == 2
    out = CliRunner().invoke(app, ["debug", "gqa", "--trap", "no-scale"], env={"COLUMNS": "300"})
    assert out.exit_code == 2 and "needs a terminal" in out.output  # the round exists; the test has no terminal
