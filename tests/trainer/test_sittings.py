"""One review per sitting: the rule, the store's sitting API, crash recovery of a
dead process's sitting, the v3 migration that replays the history, and the
recorders the flows use (`check --record`, `watch --record`, the REPL)."""
from __future__ import annotations

from tests.paths import REPO

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from fsrs import Rating

from grader.report import Report, Verdict
from trainer.schedule.adapter import Submit, derive_rating, sitting_rating
from trainer.practice.sittings import SittingRecorder, WatchSitting
from trainer.store import SCHEMA_VERSION, NewAttempt, list_backups, open_store

ROOT = REPO
T0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    monkeypatch.setenv("DRILL_HOME", str(h))
    return h


# ------------------------------------------------------------------ the rule

S = Submit
AGAIN, HARD, GOOD, EASY = Rating.Again, Rating.Hard, Rating.Good, Rating.Easy


@pytest.mark.parametrize("submits, target, closed, revealed, expected", [
    ([S("pass", 40)], 100, False, False, (EASY, 0)),                       # first submit, under half
    ([S("pass", 50)], 100, False, False, (GOOD, 0)),                       # half is not under half
    ([S("pass", 100)], 100, False, False, (GOOD, 0)),                      # within the target
    ([S("pass", 101)], 100, False, False, (HARD, 0)),                      # over the target
    ([S("pass", 20, hints=1)], 100, False, False, (HARD, 0)),              # after a hint
    ([S("wrong", 10), S("error", 20), S("pass", 30)], 100, False, False, (HARD, 2)),  # after fails
    ([S("internal", 5), S("pass", 30)], 100, False, False, (EASY, 1)),     # the grader's fault is no submit
    ([S("wrong", 10), S("pass", 30), S("wrong", 60)], 100, True, False, (HARD, 1)),  # the first pass decides
    ([S("wrong", 10, revealed=True), S("pass", 30)], 100, False, False, (AGAIN, 0)),  # a reveal decides
    ([S("pass", 10)], None, False, False, (GOOD, 0)),                      # no target: never Easy
    ([S("wrong", 10), S("pass", 12)], None, False, False, (HARD, 1)),
    ([S("wrong", 10), S("timeout", 20)], 100, False, False, None),         # open, undecided
    ([S("wrong", 10), S("timeout", 20)], 100, True, False, (AGAIN, 1)),    # closed, never passed
    ([], 100, True, False, None),                                          # untouched
    ([S("internal", 3)], 100, True, False, None),                          # only the grader failed
    ([], 100, True, True, (AGAIN, None)),                                  # revealed without a submit
])
def test_sitting_rating(submits, target, closed, revealed, expected):
    got = sitting_rating(submits, target, closed=closed, revealed=revealed)
    assert (None if got is None else (got.rating, got.index)) == expected


@pytest.mark.parametrize("verdict, seconds, hints, first_try", [
    ("pass", 40, 0, True), ("pass", 40, 0, False), ("pass", 70, 1, True), ("pass", 140, 0, True),
    ("wrong", 5, 0, True), ("internal", 5, 0, True)])
def test_a_sitting_of_one_submit_is_rated_as_derive_rating(verdict, seconds, hints, first_try):
    one = sitting_rating([S(verdict, seconds, hints, False, first_try)], 100, closed=True)
    assert (one.rating if one else None) == derive_rating(verdict, seconds, 100, hints=hints, first_try=first_try)


# ------------------------------------------------------------------ the store API

def _rec(store, sitting, verdict, seconds, **kw):
    kw.setdefault("target_seconds", 100)
    return store.record_attempt(NewAttempt("gqa", "solve", T0, seconds, verdict, sitting_id=sitting, **kw))


def test_fail_fail_pass_moves_the_card_once_rated_hard(home):
    with open_store(clock=Clock()) as store:
        sid = store.open_sitting("gqa", "solve", target_seconds=100, opened_at=T0)
        r1 = _rec(store, sid, "wrong", 20)
        r2 = _rec(store, sid, "error", 40)
        assert (r1.rating, r2.rating, store.card("gqa")) == (None, None, None)  # nothing moved yet
        r3 = _rec(store, sid, "pass", 60, first_try=False)
        assert r3.rating == int(Rating.Hard) and r3.due == store.card("gqa").due
        _rec(store, sid, "wrong", 80)                                  # after the pass: kept, not rated
        done = store.close_sitting(sid, "passed")
        assert (done.outcome, done.rating) == ("passed", int(Rating.Hard))
        assert store.counts()["attempts"] == 4 and store.card("gqa").reps == 1
        [review] = store.reviews()
        assert (review.rating, review.sitting_id, review.attempt_id) == (int(Rating.Hard), sid, r3.attempt_id)
        assert review.reviewed_at == T0 + timedelta(seconds=60)       # the end of the deciding submit
        assert [a.sitting_id for a in store.attempts()] == [sid] * 4
        assert store.close_sitting(sid, "quit").outcome == "passed"    # closing twice changes nothing


def test_a_sitting_that_never_passes_is_again_at_closing_and_an_untouched_one_moves_nothing(home):
    with open_store(clock=Clock()) as store:
        untouched = store.open_sitting("gqa", "solve", target_seconds=100)
        assert store.close_sitting(untouched, "skipped").rating is None
        sid = store.open_sitting("gqa", "solve", target_seconds=100)
        _rec(store, sid, "wrong", 20)
        _rec(store, sid, "internal", 25)
        assert store.card("gqa") is None
        assert store.close_sitting(sid, "timeout").rating == int(Rating.Again)
        assert store.card("gqa").reps == 1 and len(store.reviews()) == 1
        with pytest.raises(ValueError, match="already closed"):
            _rec(store, sid, "pass", 30)
        with pytest.raises(ValueError, match="unknown sitting"):
            _rec(store, 999, "pass", 30)
        other = store.open_sitting("top-p", "solve")
        with pytest.raises(ValueError, match="not 'gqa'"):
            _rec(store, other, "pass", 30)


def test_record_without_a_sitting_is_a_sitting_of_its_own(home):
    with open_store(clock=Clock()) as store:
        r = store.record_attempt(NewAttempt("gqa", "check", T0, 3.0, "pass"))
        assert r.rating == int(Rating.Good)
        [sitting] = store.sittings()
        assert (sitting.outcome, sitting.rating, sitting.closed_at is not None) == ("single", 3, True)


def test_export_and_import_keep_the_sittings(home, tmp_path):
    with open_store(clock=Clock()) as store:
        sid = store.open_sitting("gqa", "solve", target_seconds=100, opened_at=T0)
        _rec(store, sid, "wrong", 20)
        _rec(store, sid, "pass", 50, first_try=False)
        store.close_sitting(sid, "passed")
        data = store.export()
    assert [a["rating"] for a in data["attempts"]] == [None, int(Rating.Hard)]
    assert len({a["sitting"] for a in data["attempts"]}) == 1
    with open_store(tmp_path / "other", clock=Clock()) as other:
        other.import_(json.loads(json.dumps(data)))
        assert len(other.sittings()) == 1 and [r.rating for r in other.reviews()] == [int(Rating.Hard)]
        assert {a.sitting_id for a in other.attempts()} == {other.sittings()[0].id}


# ------------------------------------------------------------------ crash recovery

SITTING_CHILD = textwrap.dedent("""
    import os, sys
    from datetime import datetime, timezone
    from trainer.store import NewAttempt, open_store
    with open_store() as store:
        sid = store.open_sitting("gqa", "solve", target_seconds=100)
        for v in ("wrong", "error"):
            r = store.record_attempt(NewAttempt("gqa", "solve", datetime.now(timezone.utc), 10.0, v,
                                                target_seconds=100, sitting_id=sid))
            print("ACK", r.uid, flush=True)
    print("OPEN", sid, flush=True)
    os.kill(os.getpid(), 9)
""")


def test_a_sitting_of_a_live_process_is_left_open_and_of_a_dead_one_is_rated(home):
    env = dict(os.environ, DRILL_HOME=str(home), PYTHONPATH=str(ROOT))
    child = subprocess.run([sys.executable, "-c", SITTING_CHILD], env=env, capture_output=True, timeout=120)
    assert child.returncode == -9, child.stderr.decode()[-3000:]
    lines = child.stdout.decode().split()
    with open_store() as store:                      # the next open closes and rates it
        [sitting] = store.sittings()
        assert (sitting.outcome, sitting.rating) == ("abandoned", int(Rating.Again))
        assert {a.uid for a in store.attempts()} == {lines[1], lines[3]}
        assert store.card("gqa").reps == 1
        mine = store.open_sitting("gqa", "solve")    # this process lives: never recovered
        assert store.recover_sittings() == [] and store.sitting(mine).closed_at is None


def test_a_sitting_of_another_host_waits_a_day(home):
    clock = Clock()
    with open_store(clock=clock) as store:
        sid = store.open_sitting("gqa", "solve", opened_at=T0)
        _rec(store, sid, "wrong", 10)
        store._conn.execute("UPDATE sittings SET owner = 'elsewhere:1:1' WHERE id = ?", (sid,))
        assert store.recover_sittings() == []
        clock.now = T0 + timedelta(days=2)
        assert store.recover_sittings() == [sid]
        assert store.sitting(sid).rating == int(Rating.Again)


# ------------------------------------------------------------------ migration

V2_FILE = ROOT / "tests" / "fixtures" / "progress-v2.db"
# Written by the current release (schema v2, commit 0d0b795) through its own Store.record_attempt:
# - mha-padding, solve: wrong 60 s, error 120 s, pass 200 s (target 420), all stamped with the
#   drill's opening time, as the REPL does; v2 rated each one (Again, Again, Hard);
# - gqa: a mock session with one wrong submit (target 600), then a solve passed in 100 s;
# - top-p: `check --record` pass (no target); lora: wrong, then the solution revealed.
_ATTEMPT_FIELDS = ("id, uid, drill, mode, started_at, seconds, verdict, failing_case, hints, code, seed, "
                   "session_id, traps, revealed, first_try, target_seconds")


def test_migration_from_the_current_version_replays_the_history(home):
    home.mkdir()
    shutil.copyfile(V2_FILE, home / "progress.db")
    conn = sqlite3.connect(home / "progress.db")
    before = conn.execute(f"SELECT {_ATTEMPT_FIELDS} FROM attempts ORDER BY id").fetchall()
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    assert conn.execute("SELECT count(*) FROM review_logs").fetchone()[0] == 8  # one per submit
    conn.close()
    with open_store(clock=Clock(T0 + timedelta(days=40))) as store:
        assert store.schema_version() == SCHEMA_VERSION == 5
        after = store._conn.execute(f"SELECT {_ATTEMPT_FIELDS} FROM attempts ORDER BY id").fetchall()
        assert after == before                                   # nothing in the attempts changed
        by_drill = {}
        for s in store.sittings():
            by_drill.setdefault(s.drill, []).append((s.mode, s.rating))
        assert by_drill == {
            "mha-padding": [("solve", int(Rating.Hard))],         # fail, fail, pass: one review
            "gqa": [("mock", int(Rating.Again)), ("solve", int(Rating.Easy))],
            "top-p": [("check", int(Rating.Good))],
            "lora": [("solve", int(Rating.Again))],                # revealed
        }
        assert len(store.reviews()) == 5
        assert {c.drill: c.reps for c in store.cards()} == {"mha-padding": 1, "gqa": 2, "top-p": 1, "lora": 1}
        assert store.card("mha-padding").lapses == 0
        assert [a.rating for a in store.attempts(drill="mha-padding")] == [None, None, int(Rating.Hard)]
        assert {a.sitting_id for a in store.attempts(drill="mha-padding")} != {None}
    [backup] = [p for p in list_backups(home) if f"pre-v{SCHEMA_VERSION}" in p.name]
    old = sqlite3.connect(backup)
    assert old.execute("PRAGMA user_version").fetchone()[0] == 2
    assert old.execute("SELECT count(*) FROM review_logs").fetchone()[0] == 8
    old.close()


# ------------------------------------------------------------------ the recorders

def _report(verdict: str) -> Report:
    return Report("gqa", Verdict(verdict), [])


def _opener(home: Path, clock: Clock):
    return lambda: open_store(home, clock=clock)


def test_the_repl_recorder_opens_lazily_and_closes_once(home):
    clock = Clock()
    rec = SittingRecorder(_opener(home, clock))
    assert rec.close("skipped") is None and not (home / "progress.db").exists()   # untouched: nothing written
    rec = SittingRecorder(_opener(home, clock))
    common = dict(drill="gqa", mode="solve", started_at=T0, code="x", target_seconds=100.0)
    assert rec(NewAttempt(**common, seconds=30, verdict="wrong")).rating is None
    assert rec(NewAttempt(**common, seconds=90, verdict="pass", first_try=False)).rating == int(Rating.Hard)
    assert rec.close("passed").rating == int(Rating.Hard)
    with pytest.raises(ValueError, match="closed"):
        rec(NewAttempt(**common, seconds=95, verdict="pass"))


def test_watch_records_up_to_the_first_pass(home):
    clock = Clock()
    ticks = iter([0.0, 30.0, 45.0, 50.0])
    sitting = WatchSitting("gqa", 100.0, SittingRecorder(_opener(home, clock)), now=clock,
                           monotonic=lambda: next(ticks))
    assert sitting.record(_report("wrong"), "a") == "recorded"
    line = sitting.record(_report("pass"), "b")
    assert line.startswith("recorded: rated Hard, due again") and "not recorded" in line
    assert sitting.record(_report("wrong"), "c").startswith("(not recorded")
    sitting.close()
    with open_store(home, clock=clock) as store:
        assert [a.seconds for a in store.attempts()] == [30.0, 45.0]
        assert [s.outcome for s in store.sittings()] == ["passed"] and len(store.reviews()) == 1


def test_watch_left_after_fails_is_again(home):
    clock = Clock()
    ticks = iter([0.0, 10.0])
    sitting = WatchSitting("gqa", 100.0, SittingRecorder(_opener(home, clock)), now=clock,
                           monotonic=lambda: next(ticks))
    sitting.record(_report("wrong"), "a")
    sitting.close()
    with open_store(home, clock=clock) as store:
        assert [(s.outcome, s.rating) for s in store.sittings()] == [("left", int(Rating.Again))]


@pytest.mark.slow
def test_check_record_is_one_sitting_per_run(home):
    from typer.testing import CliRunner

    from trainer.cli import _register, app

    _register()
    folder = ROOT / "drills" / "02-attention" / "solutions" / "mha-padding"
    result = CliRunner().invoke(app, ["check", "mha-padding", str(folder / "bad_scale_d.py"),
                                      str(folder / "ok_einsum.py"), "--record", "--seed", "3"])
    assert result.exit_code == 1, result.output  # one file failed
    with open_store() as store:
        attempts = store.attempts()
        assert [a.verdict == "pass" for a in attempts] == [False, True]
        assert len({a.sitting_id for a in attempts}) == 1
        [sitting] = store.sittings()
        assert (sitting.mode, sitting.outcome, sitting.rating) == ("check", "passed", int(Rating.Hard))
        assert store.card("mha-padding").reps == 1
