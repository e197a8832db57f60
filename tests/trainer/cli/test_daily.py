"""The daily commands' small promises (issue 12): one answer to "what is due",
settings that catch typos, one voice for mistakes, Python's shape notation,
output that fits the terminal, `--help` in a day's order, the catalogue cache."""
from __future__ import annotations

from tests.paths import REPO

import json
import os
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trainer.schedule.due import build_agenda, when
from trainer.schedule.plans import load_plan
from trainer.store import NewAttempt, open_store
from tests.builtin import builtin_catalogue

BUILTIN = len(builtin_catalogue().specs)  # the built-in drills the status counts

UTC = timezone.utc


@pytest.fixture(scope="module")
def app():
    from trainer.cli import _register, app

    _register()
    return app


@pytest.fixture(scope="module")
def cat():
    from tests.builtin import builtin_catalogue

    return builtin_catalogue()


def run(app, *args: str, env: dict | None = None, input: str | None = None):
    return CliRunner().invoke(app, list(args), env=env, input=input)


def _now() -> datetime:
    return datetime.now(UTC)


# ------------------------------------------------------------ what is due


def test_due_now_later_today_and_tomorrow_are_cut_by_the_local_calendar():
    now = datetime(2025, 3, 3, 20, 0, tzinfo=UTC)
    cards = [("gqa", now - timedelta(minutes=1)), ("lora", now + timedelta(minutes=5)),
             ("top-p", now + timedelta(hours=5)), ("iou", now + timedelta(days=3)),
             ("gone-from-catalogue", now - timedelta(days=1))]
    known = ["gqa", "lora", "top-p", "iou", "broadcast-rule", "outer-typo"]
    agenda = build_agenda(cards, {}, load_plan(), 1, known, now)
    assert agenda.due == ("gqa",)  # the drill the catalogue lacks is left out
    assert [d for d, _ in agenda.later_today] == ["lora"]
    assert [d for d, _ in agenda.tomorrow] == ["top-p"]  # 01:00 on 4 March
    assert agenda.new == ("broadcast-rule",)
    assert agenda.next_review[0] == "lora"


def test_study_more_offers_new_drills_beyond_the_limit_then_reviews_ahead():
    now = datetime(2025, 3, 3, 8, 0, tzinfo=UTC)

    class Met:
        first_attempt = now - timedelta(hours=1)

    summaries = {"broadcast-rule": Met()}
    agenda = build_agenda([("broadcast-rule", now + timedelta(minutes=10))], summaries, load_plan(), 1,
                          ["broadcast-rule", "outer-typo", "reduction-axes"], now)
    assert agenda.nothing_left and agenda.introduced_today == 1
    assert agenda.study_more(2) == ([], ["outer-typo", "reduction-axes"])
    assert agenda.study_more(3) == (["broadcast-rule"], ["outer-typo", "reduction-axes"])


def test_when_agrees_with_the_stored_due_time():
    now = datetime(2025, 3, 3, 8, 0, tzinfo=UTC)
    assert when(now + timedelta(minutes=5) - timedelta(milliseconds=300), now) == "in 5 minutes"
    assert when(now + timedelta(minutes=1), now) == "in 1 minute"
    assert when(now + timedelta(hours=3), now) == "today at 11:00 (in 3 hours)"
    assert when(now + timedelta(hours=20), now) == "tomorrow at 04:00"
    assert when(now + timedelta(days=1, hours=15), now) == "tomorrow at 23:00"
    assert when(now + timedelta(days=1, hours=17), now) == "in 2 days (Wed 05 Mar)"  # 41 hours away


def test_status_and_list_due_give_one_answer(app):
    with open_store() as store:
        store.record_attempt(NewAttempt("gqa", "solve", _now() - timedelta(days=1), 80, "pass", target_seconds=300))
        store.record_attempt(NewAttempt("gqa", "solve", _now() - timedelta(minutes=30), 50, "wrong"))  # due again now
        store.record_attempt(NewAttempt("lora", "solve", _now() - timedelta(minutes=1), 50, "wrong"))  # due in minutes
    status = run(app).stdout.splitlines()
    assert status[0] == f"Overall: passed 1/{BUILTIN}, 1 due"
    assert status[1] == "Due now: 1 (gqa)"
    assert status[2].startswith("Later today: 1 (lora at ")
    listed = run(app, "list", "--due", env={"COLUMNS": "100"}).stdout.splitlines()
    assert [line.split()[1] for line in listed[1:]] == ["gqa"]
    full = run(app, "list", env={"COLUMNS": "100"}).stdout
    assert re.search(r" gqa\s.*\s(relearning|learning)\s+now\s", full)
    assert re.search(r" lora\s.*\slearning\s+today \d\d:\d\d\s", full)


def test_list_due_when_nothing_is_due_says_what_comes_next(app):
    result = run(app, "list", "--due")
    assert result.exit_code == 0
    assert result.stdout.startswith("Nothing is due now. 3 new drill(s) left today")


def test_the_report_counts_only_drills_the_catalogue_knows(app):
    with open_store() as store:
        store.record_attempt(NewAttempt("gqa", "solve", _now() - timedelta(minutes=30), 50, "wrong"))
        store.record_attempt(NewAttempt("no-longer-a-drill", "solve", _now() - timedelta(minutes=30), 50, "wrong"))
    data = json.loads(run(app, "report", "--format", "json").stdout)
    assert data["due"][0]["count"] == 1


# ------------------------------------------------------------ settings


def test_settings_refuse_unknown_keys_with_did_you_mean(app, _drill_home):
    bad = run(app, "settings", "vi-mode", "true")
    assert bad.exit_code == 2
    assert "unknown setting 'vi-mode'; did you mean vi_mode?" in bad.stderr
    assert not (_drill_home / "progress.db").exists()
    assert run(app, "settings", "colour").exit_code == 2


def test_settings_unset_goes_back_to_the_default_and_removes_strays(app):
    assert run(app, "settings", "daily_new_limit", "5").exit_code == 0
    unset = run(app, "settings", "--unset", "daily_new_limit")
    assert unset.exit_code == 0 and unset.stdout == "daily_new_limit = 3 (the default)\n"
    with open_store() as store:
        assert store.settings().daily_new_limit == 3
        store.set_setting("vi-mode", True)  # what the old CLI let through
    shown = run(app, "settings").stdout
    assert "vi-mode = true    # not a setting drill reads; `drill settings --unset vi-mode` removes it" in shown
    assert run(app, "settings", "--unset", "vi-mode").stdout == "removed vi-mode\n"
    assert "vi-mode" not in run(app, "settings").stdout
    again = run(app, "settings", "--unset", "vi-mode")
    assert again.exit_code == 2 and "did you mean vi_mode?" in again.stderr


# ------------------------------------------------------------ one voice


@pytest.mark.parametrize("args", [["show", "mha-paddin"], ["solve", "mha-paddin"],
                                  ["check", "mha-paddin", "x.py"], ["watch", "mha-paddin", "x.py"],
                                  ["reset", "mha-paddin", "--yes"]])
def test_an_unknown_drill_gives_one_message_everywhere(app, args):
    result = run(app, *args)
    assert result.exit_code == 2
    assert result.stderr == "drill: unknown drill id 'mha-paddin'; did you mean mha-padding?\n"


def test_team_new_uses_the_same_unknown_drill_message(app, tmp_path):
    result = run(app, "team", "new", "--drills", "mha-paddin,gqa", "--out", str(tmp_path / "s.yaml"))
    assert result.exit_code == 2
    assert "unknown drill id 'mha-paddin'; did you mean mha-padding?" in result.stderr


def test_non_utf8_files_get_one_friendly_message(app, tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"x = '\xff'\n")
    for args in (["check", "outer-typo", str(bad)], ["import", str(bad)]):
        result = run(app, *args)
        assert result.exit_code == 2
        assert f"{bad}: it is not UTF-8 text (byte 0xff at offset 5); save it as UTF-8" in result.stderr


def test_watch_and_edit_give_the_non_utf8_message(tmp_path):
    from trainer.repl.editor import edit_text
    from trainer.practice.watch import watch

    bad = tmp_path / "bad.py"
    bad.write_bytes(b"\xfe\n")
    shown = []
    watch(bad, lambda s: None, shown.append, sleep=lambda s: None, now=lambda: "12:00", rounds=1)
    text = "".join(t for f in shown for _, t in f)
    assert max(map(len, text.splitlines())) <= 80  # folded to watch's width
    assert "bad.py: it is not UTF-8 text (byte 0xfe at offset 0); save it as UTF-8" in " ".join(text.split())
    result = edit_text("x = 1\n", "gqa", ["sh", "-c", "printf '\\377' > \"$0\""])
    assert result.text is None and "it is not UTF-8 text (byte 0xff at offset 0)" in result.problem


def test_ctrl_c_on_check_says_it_stopped(app, monkeypatch, tmp_path):
    import trainer.cli.grading as grading

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(grading, "_check_all", interrupted)
    source = tmp_path / "a.py"
    source.write_text("x = 1\n")
    result = run(app, "check", "outer-typo", str(source))
    assert result.exit_code == 130
    assert "drill check: stopped (Ctrl-C); 0 of 1 file(s) graded, 1 not graded." in result.stderr


@pytest.mark.parametrize("given,canonical,same", [
    ("four", "4", True), ("Twenty-four", "24", True), ("one hundred and twenty", "120", True),
    ("forty GB", "40 GB", True), ("two thousand and forty-eight", "2048", True), ("five", "4", False),
    ("none", "none", True), ("hundred", "100", False)])
def test_quick_fire_accepts_number_words(given, canonical, same):
    from grader.judge.answers import answers_match

    assert answers_match(given, canonical) is same


@pytest.mark.parametrize("given,canonical,same", [
    ("it raises an error", "error", True), ("raises an error", "error", True), ("an error", "error", True),
    ("RuntimeError", "error", True), ("it throws", "error", True),
    ("no error", "error", False), ("it does not raise", "error", False), ("it doesn't error", "error", False),
    ("it fails silently", "error", False), ("it runs", "error", False), ("it raises an error", "silent", False),
    ("no, it does not", "no", True), ("it doesn't", "no", True), ("nope", "no", True), ("yes", "no", False),
    ("it is silent", "silent", True), ("not silent", "silent", False), ("torch.tril", "tril", True),
    ("triu", "tril", False), ("it gives NaN", "nan", True), ("it is d", "d", True), ("dh", "d", False)])
def test_quick_fire_matches_simple_phrasings_of_a_word_answer(given, canonical, same):
    from grader.judge.answers import answers_match

    assert answers_match(given, canonical) is same


def test_doctor_names_a_missing_editor(monkeypatch):
    from trainer.cli.doctor import _editor_check

    monkeypatch.setenv("EDITOR", "no-such-editor-here --wait")
    check = _editor_check()
    assert not check.ok and "'no-such-editor-here' is not on PATH" in check.detail
    monkeypatch.setenv("EDITOR", "true")
    assert _editor_check().ok


# ------------------------------------------------------------ shapes


def test_one_axis_shapes_are_written_with_a_comma(cat):
    from trainer.text.ledger import ledger_lines
    from trainer.repl.header import signature_lines

    spec = cat.get("outer-typo")
    assert "    # pred: (N,)\n    # target: (N, 1)\n" in spec.skeleton()
    assert signature_lines(spec) == ["mse(pred (N,), target (N, 1)) -> ()"]
    assert any(line.split()[:2] == ["pred", "(N,)"] for line in ledger_lines(spec))


# ------------------------------------------------------------ width


@pytest.mark.parametrize("width", [60, 100])
def test_list_and_show_fit_the_terminal_without_breaking_words(app, width, cat):
    env = {"COLUMNS": str(width)}
    listed = run(app, "list", env=env).stdout.splitlines()
    shown = run(app, "show", "mha-padding", env=env).stdout.splitlines()
    assert max(map(len, listed + shown)) <= width
    words = set(" ".join(listed).split())
    for spec in cat.specs.values():
        assert spec.id in words
        assert set(spec.title.split()) <= words, spec.title
    assert cat.get("mha-padding").prompt.split() == " ".join(shown[2:]).split()[:len(
        cat.get("mha-padding").prompt.split())]


# ------------------------------------------------------------ help


def test_help_lists_commands_in_a_days_order_and_cuts_nothing(app):
    text = run(app, "--help", env={"COLUMNS": "80"}).stdout
    assert "..." not in text.split("Commands:")[1]
    commands = text.split("Commands:")[1]
    names = [line.split()[0] for line in commands.splitlines() if line.startswith("  ") and line[2] != " "]
    assert names[:9] == ["list", "show", "warmup", "solve", "debug", "watch", "check", "mock", "report"]
    assert {"team", "settings", "doctor", "restore"} <= set(names)
    assert "--install-completion" in text
    team = run(app, "team", "--help", env={"COLUMNS": "80"}).stdout
    assert "..." not in team.split("Commands:")[1] and "board" in team


def test_drill_ids_complete():
    from trainer.cli.catalogue import complete_drill_id

    assert complete_drill_id("mha-") == ["mha-padding"]
    assert complete_drill_id("zzz") == []


def test_bash_completion_offers_drill_ids(tmp_path):
    import subprocess
    import sys

    root = REPO
    script = tmp_path / "drill"
    script.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(root)!r})\n"
                      "from trainer.cli import main\nmain()\n")
    script.chmod(0o755)
    env = {**os.environ, "_DRILL_COMPLETE": "complete_bash", "COMP_WORDS": "drill solve mha-", "COMP_CWORD": "2"}
    done = subprocess.run([str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["mha-padding"], done.stderr


def test_only_the_named_commands_module_is_imported(monkeypatch):
    from trainer.cli import _command_from

    monkeypatch.delenv("_DRILL_COMPLETE", raising=False)
    assert _command_from(["list", "--due"]) == "list"
    assert _command_from(["--help"]) is None
    assert _command_from([]) == ""  # the status: only the progress module


# ------------------------------------------------------------ catalogue cache


@pytest.mark.cold_catalogue  # the first load is the one that writes the cache
def test_the_catalogue_cache_answers_what_the_parser_answers(_drill_home):
    from grader.catalogue import load_catalogue as parse_all
    from trainer import catalogue_cache

    first = catalogue_cache.load_catalogue()
    assert (_drill_home / "cache" / "catalogue.pickle").is_file()
    second = catalogue_cache.load_catalogue()
    assert list(second.specs) == list(parse_all().specs) == list(first.specs)
    assert second.get("gqa") == parse_all().get("gqa")


def test_a_changed_spec_file_is_parsed_again(_drill_home, tmp_path, monkeypatch):
    from trainer import catalogue_cache

    extra = tmp_path / "mine"
    extra.mkdir()
    src = Path(catalogue_cache.load_catalogue().get("gqa").path)
    text = src.read_text().replace("id: gqa", "id: my-gqa")
    (extra / "my-gqa.yaml").write_text(text)
    (extra / "my-gqa.py").write_text(src.with_suffix(".py").read_text())
    (extra / "my-gqa.oracle.py").write_text(src.with_name("gqa.oracle.py").read_text())  # the oracle it names
    monkeypatch.setenv("DRILL_PATH", str(extra))
    assert "my-gqa" in catalogue_cache.load_catalogue().specs
    (extra / "my-gqa.yaml").write_text(text.replace("title:", "title: Changed,"))
    os.utime(extra / "my-gqa.yaml", ns=(1, 1))
    assert catalogue_cache.load_catalogue().get("my-gqa").title.startswith("Changed,")
    (_drill_home / "cache" / "catalogue.pickle").write_bytes(b"garbage")
    assert "my-gqa" in catalogue_cache.load_catalogue().specs


def test_a_cache_others_may_write_is_never_unpickled(_drill_home):
    import pickle

    from grader.catalogue import Catalogue
    from trainer import catalogue_cache

    catalogue_cache.load_catalogue()
    path = _drill_home / "cache" / "catalogue.pickle"
    key, _ = pickle.loads(path.read_bytes())
    planted = Catalogue({}, ["planted"])
    path.write_bytes(pickle.dumps((key, planted)))
    path.chmod(0o644)
    assert catalogue_cache.load_catalogue().errors == ["planted"]  # ours, only we may write it: trusted
    path.chmod(0o666)
    assert catalogue_cache.load_catalogue().errors == []  # anyone may write it: parsed around


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_is_printed(app, flag):
    from trainer import __version__

    result = run(app, flag)
    assert result.exit_code == 0, result.output
    assert result.output == f"drill {__version__}\n"


@pytest.mark.parametrize("command", [[], ["check"], ["list"], ["team", "run"], ["settings"]])
def test_dash_h_is_help_on_every_command(app, command):
    short, long = run(app, *command, "-h"), run(app, *command, "--help")
    assert short.exit_code == long.exit_code == 0, short.output
    assert short.output == long.output
    assert "Usage: " in short.output


def test_visual_is_preferred_over_editor():
    from trainer.repl.editor import editor_command

    assert editor_command({"VISUAL": "nano -w", "EDITOR": "vi"}) == ["nano", "-w"]
    assert editor_command({"EDITOR": "vi"}) == ["vi"] and editor_command({}) == ["vi"]


def test_a_one_minute_team_session_says_minute(app, tmp_path):
    out = tmp_path / "s.yaml"
    result = run(app, "team", "new", "--drills", "gqa", "--minutes", "1", "--seed", "3", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "1 minute," in result.stdout and "1 minutes" not in result.stdout


def test_mock_says_when_it_caps_the_count(app, monkeypatch):
    import typer

    import trainer.cli.practice as practice

    def stop_before_the_repl():
        raise typer.Exit(0)

    monkeypatch.setattr(practice, "_need_terminal", lambda: None)
    monkeypatch.setattr(practice.repl_grading, "open_grading", stop_before_the_repl)
    result = run(app, "mock", "-n", "100", "--seed", "4")
    words = " ".join(result.stdout.split())  # wrapped at the runner's terminal width
    assert "--count 100: the catalogue has " in words and "so this mock has" in words


@pytest.mark.parametrize("key,value", [("retention", "5"), ("retention", "abc"), ("daily_new_limit", "x"),
                                       ("vi_mode", "maybe"), ("plan", "no-such-plan")])
def test_every_bad_setting_value_exits_2(app, key, value):
    result = run(app, "settings", key, value)
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert result.stderr.startswith("drill: ") and "Traceback" not in result.output


@pytest.mark.parametrize("value,stored", [("yes", "true"), ("no", "false"), ("on", "true"), ("OFF", "false"),
                                          ("1", "true"), ("0", "false"), ("true", "true")])
def test_a_switch_takes_yes_no_and_on_off_as_git_does(app, value, stored):
    result = run(app, "settings", "vi_mode", value)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"vi_mode = {stored}"
