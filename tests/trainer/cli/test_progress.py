"""The progress commands through typer's CliRunner: status, export/import, reset,
restore, and store problems reported as one line with a non-zero exit."""
from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trainer.cli.status import status_lines
from trainer.store import NewAttempt, open_store
from tests.builtin import builtin_catalogue

BUILTIN = len(builtin_catalogue().specs)  # the built-in drills the status counts


@pytest.fixture
def home(monkeypatch, tmp_path) -> Path:
    path = tmp_path / "home"
    monkeypatch.setenv("DRILL_HOME", str(path))
    return path


@pytest.fixture(scope="module")
def app():
    from trainer.cli import _register, app

    try:
        _register()
    except ImportError:  # another group not importable yet; ours registers on import
        import trainer.cli.progress  # noqa: F401
    return app


def run(app, *args: str, input: str | None = None):
    return CliRunner().invoke(app, list(args), input=input)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _fill(home: Path) -> None:
    with open_store(home) as store:
        sid = store.start_session("warmup")
        store.record_attempt(NewAttempt("gqa", "warmup", _now() - timedelta(days=1), 80, "pass",
                                        session_id=sid, target_seconds=300, first_try=False))
        store.record_attempt(NewAttempt("gqa", "warmup", _now() - timedelta(minutes=30), 50, "wrong", session_id=sid,
                                        traps=["repeat-tiling"], code="k.repeat(1, g, 1, 1)"))
        store.record_attempt(NewAttempt("top-p", "solve", _now() - timedelta(minutes=5), 100, "pass",
                                        target_seconds=300))
        store.end_session(sid, {"passed": 1})


# ------------------------------------------------------------ status

def test_status_without_a_database_does_not_create_one(app, home):
    result = run(app)
    assert result.exit_code == 0, result.output
    assert "No progress recorded yet." in result.stdout
    assert "New today: 3 (broadcast-rule, outer-typo, reduction-axes)" in result.stdout
    assert "Next: drill solve broadcast-rule" in result.stdout
    assert not (home / "progress.db").exists()


def test_status_shows_due_streak_and_suggests_the_warmup(app, home):
    _fill(home)
    result = run(app)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"Overall: passed 2/{BUILTIN}, 1 due"  # gqa and top-p passed once each
    assert lines[1] == "Due now: 1 (gqa)"  # gqa failed 30 minutes ago; top-p was Easy
    assert lines[2].startswith("New today: ") and lines[3].startswith("Streak: ")
    assert lines[-1] == "Next: drill warmup"


def test_status_lines_with_a_fixed_clock_when_nothing_is_due(home):
    t0 = datetime(2025, 3, 3, 8, 0, tzinfo=timezone.utc)
    with open_store(home, clock=lambda: t0) as store:
        store.set_setting("daily_new_limit", 1)
        store.record_attempt(NewAttempt("broadcast-rule", "solve", t0, 30, "pass", target_seconds=300))
    lines = status_lines(t0 + timedelta(hours=1))
    assert lines == [f"Overall: passed 1/{BUILTIN}, 0 due", "Due now: 0", "New today: 0", "Streak: 1 day",
                     "Next review: broadcast-rule in 8 days (Tue 11 Mar)", "Next: drill warmup --more"]
    assert status_lines(t0 + timedelta(days=1))[2] == "New today: 1 (outer-typo)"
    with open_store(home, clock=lambda: t0) as store:
        store.set_setting("daily_new_limit", 3)
        store.record_attempt(NewAttempt("gqa", "solve", t0 - timedelta(days=1), 30, "pass", target_seconds=300))
        store.record_attempt(NewAttempt("gqa", "solve", t0 + timedelta(minutes=1), 30, "wrong"))
    assert status_lines(t0 + timedelta(hours=1)) == [
        f"Overall: passed 2/{BUILTIN}, 1 due", "Due now: 1 (gqa)", "New today: 2 (outer-typo, reduction-axes)", "Streak: 2 days",
        "Next: drill warmup"]


def test_importing_the_cli_never_imports_torch():
    code = ("import sys, trainer.cli.progress, trainer.store, trainer.schedule.plans; "
            "bad = [m for m in ('torch', 'torchvision', 'scipy', 'numpy') if m in sys.modules]; "
            "assert not bad, bad")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


# ------------------------------------------------------------ export / import

def test_export_import_round_trip_and_duplicates_are_not_imported(app, home, tmp_path, monkeypatch):
    _fill(home)
    out = tmp_path / "progress.json"
    result = run(app, "export", str(out))
    assert result.exit_code == 0, result.output
    assert "Exported 3 attempts, 2 cards, 1 session, 0 settings and 0 suspended or buried drills to" in result.stdout
    exported = json.loads(out.read_text())
    assert set(exported) == {"format", "exported_at", "attempts", "cards", "sessions", "settings", "holds"}

    monkeypatch.setenv("DRILL_HOME", str(tmp_path / "new-machine"))
    result = run(app, "import", str(out))
    assert result.exit_code == 0, result.output
    assert "Imported 3 attempts (0 already present, skipped), 1 sessions, 2 cards updated" in result.stdout
    again = run(app, "import", str(out))
    assert again.exit_code == 0 and "Imported 0 attempts (3 already present" in again.stdout
    second = tmp_path / "second.json"
    assert run(app, "export", str(second)).exit_code == 0
    strip = lambda d: {k: v for k, v in d.items() if k != "exported_at"}  # noqa: E731
    assert strip(json.loads(second.read_text())) == strip(exported)


def test_export_over_an_existing_file_is_refused_without_force(app, home, tmp_path):
    _fill(home)
    out = tmp_path / "progress.json"
    assert run(app, "export", str(out)).exit_code == 0
    before = out.read_bytes()
    with open_store(home) as store:  # a fresh machine's empty export must not replace a full one
        store.reset()
    refused = run(app, "export", str(out))
    assert refused.exit_code == 2 and "exists; nothing was written" in refused.stderr and "--force" in refused.stderr
    assert out.read_bytes() == before
    forced = run(app, "export", str(out), "--force")
    assert forced.exit_code == 0 and json.loads(out.read_text())["attempts"] == []


def test_export_and_import_carry_settings_suspensions_and_buries(app, home, tmp_path, monkeypatch):
    _fill(home)
    assert run(app, "settings", "retention", "0.85").exit_code == 0
    assert run(app, "settings", "vi_mode", "true").exit_code == 0
    assert run(app, "suspend", "gqa").exit_code == 0
    assert run(app, "bury", "top-p").exit_code == 0
    out = tmp_path / "progress.json"
    assert run(app, "export", str(out)).exit_code == 0
    exported = json.loads(out.read_text())
    assert exported["settings"] == {"retention": 0.85, "vi_mode": True}
    holds = {h["drill"]: h for h in exported["holds"]}
    assert holds["gqa"]["suspended"] is True and holds["top-p"]["buried_until"]

    monkeypatch.setenv("DRILL_HOME", str(tmp_path / "new-machine"))
    assert run(app, "settings", "retention", "0.95").exit_code == 0  # chosen on this machine: kept
    result = run(app, "import", str(out))
    assert result.exit_code == 0, result.output
    assert "1 setting taken (a setting already set here is kept), 2 holds merged." in result.stdout
    backup = re.search(r"A backup was saved first: (\S+) \(undo with `drill restore (\S+)`\)", result.stdout)
    assert backup and Path(backup.group(1)).is_file() and backup.group(1) == backup.group(2)
    with open_store(tmp_path / "new-machine") as store:
        settings = store.settings()
        assert (settings.retention, settings.vi_mode) == (0.95, True)
        held = store.holds()
        assert held["gqa"].suspended and held["top-p"].buried_until is not None
        assert store.counts()["attempts"] == 3


@pytest.mark.parametrize("extra, reason", [
    ({"settings": {"retention": "nan"}}, "settings.retention"),
    ({"settings": {"no_such_key": 1}}, "unknown key"),
    ({"settings": []}, "settings must be an object"),
    ({"holds": [{"drill": "gqa", "suspended": "yes"}]}, "holds[0].suspended"),
    ({"holds": [{"drill": "gqa", "suspended": False, "buried_until": "tomorrow"}]}, "holds[0].buried_until"),
])
def test_import_refuses_bad_settings_and_holds(app, home, tmp_path, extra, reason):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": 1, "exported_at": "2025-01-01T00:00:00+00:00", "attempts": [],
                               "cards": [], "sessions": [], **extra}))
    result = run(app, "import", str(bad))
    assert result.exit_code == 2 and reason in result.stderr and "Nothing was imported" in result.stderr


def test_export_to_stdout_and_with_no_database(app, home):
    result = run(app, "export", "-")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert (data["format"], data["attempts"], data["cards"], data["sessions"]) == (1, [], [], [])
    assert not (home / "progress.db").exists()


@pytest.mark.parametrize("content, reason", [
    ("not json at all", "not JSON"),
    ("[1, 2, 3]", "JSON object"),
    ('{"format": 7}', "unsupported format 7"),
    ('{"format": 1, "exported_at": "2025-01-01T00:00:00+00:00", "attempts": [{"drill": "gqa"}],'
     ' "cards": [], "sessions": []}', "attempts[0] lacks mode"),
])
def test_import_refuses_garbage_with_exit_2(app, home, tmp_path, content, reason):
    _fill(home)
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    result = run(app, "import", str(bad))
    assert result.exit_code == 2, result.output
    assert reason in result.stderr and "Nothing was imported" in result.stderr
    with open_store(home) as store:
        assert store.counts()["attempts"] == 3


def test_import_of_a_missing_file_is_a_usage_error(app, home, tmp_path):
    result = run(app, "import", str(tmp_path / "nope.json"))
    assert result.exit_code == 2 and "cannot read" in result.stderr


# ------------------------------------------------------------ reset / restore

def test_reset_asks_first(app, home):
    _fill(home)
    result = run(app, "reset", input="n\n")
    assert result.exit_code == 1 and "Nothing was changed." in result.stdout
    assert "Forget ALL progress (3 attempts, 2 schedules and 1 session)?" in result.stdout
    with open_store(home) as store:
        assert store.counts()["attempts"] == 3
    result = run(app, "reset", "gqa", input="y\n")
    assert result.exit_code == 0 and "Forgot 2 attempts, 1 schedule." in result.stdout
    with open_store(home) as store:
        assert {a.drill for a in store.attempts()} == {"top-p"}


def test_reset_yes_forgets_everything_and_keeps_a_backup(app, home):
    _fill(home)
    result = run(app, "reset", "--yes")
    assert result.exit_code == 0, result.output
    assert "Forgot 3 attempts, 2 schedules and 1 session." in result.stdout
    assert "A backup was saved first:" in result.stdout
    with open_store(home) as store:
        assert store.counts() == {"attempts": 0, "cards": 0, "review_logs": 0, "sessions": 0}
    assert run(app, "restore", "--yes").exit_code == 0
    with open_store(home) as store:
        assert store.counts()["attempts"] == 3


def test_reset_of_an_unknown_or_untouched_drill(app, home):
    _fill(home)
    unknown = run(app, "reset", "no-such-drill", "--yes")
    assert unknown.exit_code == 2 and "unknown drill id 'no-such-drill'" in unknown.stderr
    untouched = run(app, "reset", "lora", "--yes")
    assert untouched.exit_code == 0 and "nothing to reset" in untouched.stdout


def test_a_damaged_database_is_reported_and_restore_fixes_it(app, home):
    _fill(home)
    with open_store(home) as store:
        backup = store.backup("auto")
    (home / "progress.db").write_bytes(b"\0garbage" * 2000)
    for side in home.glob("progress.db-*"):
        side.unlink()
    for args in ([], ["export", "-"], ["import", "-"], ["reset", "--yes"]):
        result = run(app, *args, input="{}")
        assert result.exit_code == 1, (args, result.output)
        assert "is damaged" in result.stderr and str(backup) in result.stderr and "drill restore" in result.stderr
        assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    listed = run(app, "restore", "--list")
    [line] = [line for line in listed.stdout.splitlines() if str(backup) in line]
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d  auto +[\d.]+ (KB|MB|B)  ", line), line  # when, kind, size
    assert line.endswith("(drill restore takes this one)")
    restored = run(app, "restore", "--yes")
    assert restored.exit_code == 0 and "(3 attempts)" in restored.stdout and "kept as" in restored.stdout
    # the file it keeps is named for what happened (a restore), not for what may not have (damage)
    [kept] = home.glob("progress.db.before-restore-*[0-9]Z")
    assert f"kept as {kept}" in restored.stdout and not list(home.glob("*damaged*"))
    assert run(app).exit_code == 0


def test_a_newer_database_is_refused_in_one_line(app, home):
    _fill(home)
    conn = sqlite3.connect(home / "progress.db")
    conn.execute("PRAGMA user_version = 42")
    conn.close()
    for args in ([], ["export", "-"], ["reset", "--yes"]):
        result = run(app, *args)
        assert result.exit_code == 1 and "newer drill" in result.stderr, (args, result.output)
        assert result.stderr.count("\n") == 1


def test_a_home_that_cannot_be_written_is_a_clear_error(app, tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("DRILL_HOME", str(blocker))
    source = tmp_path / "in.json"
    source.write_text(json.dumps({"format": 1, "exported_at": "2025-01-01T00:00:00+00:00",
                                  "attempts": [], "cards": [], "sessions": []}))
    result = run(app, "import", str(source))
    assert result.exit_code == 1 and "cannot write to the drill data folder" in result.stderr


def test_settings_show_and_set(app, home):
    shown = run(app, "settings")
    assert shown.exit_code == 0 and "retention = 0.9" in shown.stdout and "daily_new_limit = 3" in shown.stdout
    assert not (home / "progress.db").exists()
    assert run(app, "settings", "retention", "0.85").exit_code == 0
    assert run(app, "settings", "vi_mode", "true").exit_code == 0
    assert run(app, "settings", "retention").stdout == "retention = 0.85\n"
    bad = run(app, "settings", "retention", "2")
    assert bad.exit_code == 2 and "retention must be" in bad.stderr
    assert run(app, "settings", "plan", "nope").exit_code == 2  # a bad value, as retention 2 is
    with open_store(home) as store:
        assert (store.settings().retention, store.settings().vi_mode) == (0.85, True)
