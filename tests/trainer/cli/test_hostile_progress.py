"""Progress that survives hostile files (issue 34, items 1 to 3), through the commands: `drill
restore` of files that are not drill's, `restore --list` of names that lie, stored settings that
do not validate, and seeds out of range. Real SQLite files; the CLI through typer's runner."""
from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trainer.store import NewAttempt, open_store

WIPE = "CREATE TRIGGER wipe AFTER INSERT ON attempts BEGIN DELETE FROM attempts WHERE id != new.id; END"


@pytest.fixture
def home(monkeypatch, tmp_path) -> Path:
    path = tmp_path / "home"
    monkeypatch.setenv("DRILL_HOME", str(path))
    return path


@pytest.fixture(scope="module")
def app():
    from trainer.cli import _register, app

    _register()
    return app


def run(app, *args: str, input: str | None = None):
    return CliRunner().invoke(app, list(args), input=input)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _fill(home: Path, n: int = 3) -> None:
    with open_store(home) as store:
        for i in range(n):
            store.record_attempt(NewAttempt("gqa", "solve", _now() - timedelta(minutes=10 * (i + 1)), 60, "pass",
                                            target_seconds=300))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _set_raw(home: Path, key: str, text: str) -> None:
    conn = sqlite3.connect(home / "progress.db")
    conn.execute("INSERT OR REPLACE INTO settings(key, value) VALUES (?, ?)", (key, text))
    conn.commit()
    conn.close()


# ------------------------------------------------------------ item 1: restore


def test_restoring_a_backup_with_a_delete_trigger_is_refused_and_history_survives(app, home):
    _fill(home)
    with open_store(home) as store:
        backup = store.backup("manual")
    conn = sqlite3.connect(backup)
    conn.execute(WIPE)
    conn.commit()
    conn.close()
    before = _sha(home / "progress.db")
    result = run(app, "restore", str(backup), "--yes")
    assert result.exit_code == 2, result.output
    assert "trigger 'wipe' on 'attempts' that drill did not create" in result.stderr
    assert "the current progress is untouched" in result.stderr and result.stderr.count("\n") == 1
    assert _sha(home / "progress.db") == before
    _fill(home, 1)  # a new attempt deletes nothing
    with open_store(home) as store:
        assert store.counts()["attempts"] == 4


@pytest.mark.parametrize("content", [b"", b"x"])
def test_restoring_an_empty_or_one_byte_file_is_refused_before_the_question(app, home, tmp_path, content):
    _fill(home)
    bad = tmp_path / "bad.db"
    bad.write_bytes(content)
    before = _sha(home / "progress.db")
    result = run(app, "restore", str(bad), input="y\n")
    assert result.exit_code == 2 and "Replace the progress database" not in result.stdout, result.output
    assert "not a drill progress database" in result.stderr or "empty (0 bytes)" in result.stderr
    assert "the current progress is untouched" in result.stderr
    assert _sha(home / "progress.db") == before and not list(home.glob("progress.db.before-restore-*"))
    assert run(app, "export", "-").exit_code == 0


def test_restoring_a_file_from_a_newer_drill_is_refused_before_the_swap(app, home, tmp_path):
    _fill(home)
    newer = tmp_path / "newer.db"
    with open_store(home) as store:
        newer.write_bytes(store.backup("manual").read_bytes())
    conn = sqlite3.connect(newer)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    result = run(app, "restore", str(newer), "--yes")
    assert result.exit_code == 2 and "newer drill (schema version 99" in result.stderr, result.output
    assert run(app).exit_code == 0  # drill still opens: nothing was swapped


# ------------------------------------------------------------ item 2: names that lie


def _hostile_backups(home: Path) -> tuple[Path, list[Path]]:
    _fill(home)
    with open_store(home) as store:
        genuine = store.backup("auto")
    folder = home / "backups"
    fakes = [folder / "progress-auto-99991231T235959Z.db",
             folder / "progress-\x1b[2J\x1b[31mauto-20250101T000000Z.db",
             folder / "progress-auto-20250101T000000Z_\u00b2.db",
             folder / "progress-auto-00010101T000000Z.db"]
    for fake in fakes:
        fake.write_bytes(genuine.read_bytes())
    os.mkfifo(folder / "progress-auto-20250102T000000Z.db")
    return genuine, fakes


def test_restore_list_in_tokyo_survives_any_name_and_escapes_it(app, home, monkeypatch):
    genuine, _ = _hostile_backups(home)
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        result = run(app, "restore", "--list")
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout and "\\x1b[2J" in result.stdout
    lines = result.stdout.splitlines()
    [future] = [line for line in lines if "99991231T235959Z" in line]
    assert future.startswith("9999-12-31 23:59 UTC") and future.endswith("(not a backup drill wrote: dated in the future)")
    [fifo] = [line for line in lines if "20250102T000000Z" in line]
    assert fifo.endswith("(not a backup drill wrote: not a regular file)")
    [mine] = [line for line in lines if genuine.name in line]
    assert mine.endswith("(drill restore takes this one)")


def test_a_bare_restore_takes_the_newest_genuine_backup_not_a_future_dated_one(app, home):
    genuine, _ = _hostile_backups(home)
    result = run(app, "restore", "--yes")
    assert result.exit_code == 0, result.output
    assert f"Restored {genuine}" in result.stdout


# ------------------------------------------------------------ item 3: stored values checked when read


@pytest.mark.parametrize("key, text, words", [
    ("retention", "NaN", "retention must be a number from 0.7 to 0.97; using the default 0.9"),
    ("retention", '"nan"', "retention must be a number from 0.7 to 0.97; using the default 0.9"),
    ("daily_new_limit", "1e30", "daily_new_limit must be a whole number from 0 to 32; using the default 3"),
    ("vi_mode", "{not json", "not JSON; using the default false"),
    ("plan", '"../../../../etc/passwd"', "not a path; using the default \"default\""),
    ("some_extra", "\x1b[2Jnot json", "not JSON; ignored"),
])
def test_a_hostile_settings_row_is_said_once_per_command_and_the_default_used(app, home, key, text, words):
    _fill(home)
    _set_raw(home, key, text)
    for args in ([], ["list"], ["report"], ["settings"], ["export", "-"]):
        result = run(app, *args)
        assert result.exit_code == 0, (args, result.output)
        said = [line for line in result.stderr.splitlines() if "the stored setting" in line]
        assert len(said) == 1 and key in said[0] and words in said[0], (args, result.stderr)
        assert "\x1b" not in result.stderr
    shown = run(app, "settings").stdout
    assert "retention = 0.9 " in shown and "daily_new_limit = 3 " in shown and "vi_mode = false " in shown
    assert run(app, "settings", "--unset", key).exit_code == 0
    assert "the stored setting" not in run(app, "list").stderr


def test_a_stored_plan_this_drill_does_not_ship_falls_back_to_the_default(app, home):
    _fill(home)
    _set_raw(home, "plan", '"a-plan-from-a-newer-drill"')
    result = run(app)
    assert result.exit_code == 0, result.output
    assert result.stderr.count("the stored setting plan cannot be used") == 1 and "'default'" in result.stderr


def test_a_plan_setting_is_a_name_never_a_path_and_a_long_one_is_one_line(app, home, tmp_path):
    plan = tmp_path / "mine.yaml"
    plan.write_text("weeks: [{week: 1, drills: [gqa]}]\n")
    for value in (str(plan), str(plan.with_suffix("")), "../../" + plan.stem, "a" * 100_000):
        result = run(app, "settings", "plan", value)
        assert result.exit_code == 2 and result.stderr.count("\n") == 1 and len(result.stderr) < 400, result.stderr
        assert "never a path" in result.stderr
    assert run(app, "settings", "plan", "default").exit_code == 0


# ------------------------------------------------------------ item 3: seeds


@pytest.mark.parametrize("args", [
    ["debug", "gqa"], ["mock", "--count", "1"], ["solve", "gqa"], ["watch", "gqa", "x.py"],
    ["check", "gqa", "x.py", "--record"], ["check", "gqa", "x.py", "--variant", "random"],
    ["validate"], ["team", "new", "--drills", "gqa", "--out", "s.yaml"],
], ids=["debug", "mock", "solve", "watch", "check-record", "check-variant-random", "validate", "team-new"])
@pytest.mark.parametrize("seed", [str(10**30), str(2**63), "-1"])
def test_a_seed_out_of_range_is_a_usage_error_before_anything_runs(app, home, tmp_path, monkeypatch, args, seed):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.py").write_text("def f():\n    pass\n")
    result = run(app, *args, "--seed", seed)
    assert result.exit_code == 2, (args, result.output)
    assert "--seed must be a whole number from 0 to 9223372036854775807" in result.stderr
    assert result.stderr.count("\n") == 1 and not (home / "progress.db").exists()
    assert not (tmp_path / "s.yaml").exists()


@pytest.mark.parametrize("update", ["UPDATE attempts SET started_at = 'yesterday'",
                                    "UPDATE attempts SET traps = '{not json'",
                                    "UPDATE cards SET due = 'soon'"])
def test_a_row_drill_cannot_read_in_progress_db_is_one_line_naming_its_table_not_a_traceback(app, home, update):
    _fill(home)
    conn = sqlite3.connect(home / "progress.db")
    conn.execute(update)
    conn.commit()
    conn.close()
    table = update.split()[1]
    for args in (["export", "-"], ["report"], ["list"], []):
        result = run(app, *args)
        assert isinstance(result.exception, (SystemExit, type(None))), (args, repr(result.exception))
        if result.exit_code:
            assert result.exit_code == 1 and result.stderr.count("\n") == 1, (args, result.stderr)
            assert "holds a row of " in result.stderr and "that drill cannot read" in result.stderr
            assert table in result.stderr.split("that drill cannot read")[0]
            assert "drill restore --list" in result.stderr


def test_restoring_another_applications_database_is_refused_before_the_swap(app, home, tmp_path):
    _fill(home)
    other = tmp_path / "photos.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    conn.commit()
    conn.close()
    before = _sha(home / "progress.db")
    result = run(app, "restore", str(other), "--yes")
    assert result.exit_code == 2 and "not a drill progress database" in result.stderr, result.output
    assert "the current progress is untouched" in result.stderr and _sha(home / "progress.db") == before
