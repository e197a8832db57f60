"""Team study sessions: the session file, results validation, safe file names, the
board (two members, a malformed file, a foreign file and a hostile name) in every
format, `team new` validation and `team run --file` with a stand-in grader."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trainer import team as t

UTC = timezone.utc
KNOWN = {"gqa", "masked-mean", "outer-typo"}
HOSTILE = "<script>alert(1)</script> | [click](http://evil.example) **x**"


def results(name: str, session: str, rows: list[dict], mode: str = "repl") -> dict:
    return {"format": 1, "kind": "drill-team-results", "session": session, "name": name,
            "finished_at": "2026-12-01T18:00:00+00:00", "mode": mode, "drills": rows}


def row(drill: str, status: str = "passed", seconds: float = 100.0, traps: list[str] | None = None) -> dict:
    return {"drill": drill, "status": status, "seconds": seconds, "attempts": 1, "hints": 0, "traps": traps or []}


SESSION = t.new_session(["gqa", "masked-mean"], 30, 42, KNOWN, "Tuesday <b>drills</b>")


# ----------------------------------------------------------------- session


def test_session_round_trip_and_stable_id():
    text = t.session_yaml(SESSION)
    again = t.parse_session(text, KNOWN)
    assert again == SESSION and again.id == SESSION.id and len(SESSION.id) == 16
    assert "minutes: 30\n" in text and "seed: 42\n" in text
    assert t.new_session(["gqa", "masked-mean"], 30, 43, KNOWN).id != SESSION.id


def test_new_session_lists_every_problem():
    with pytest.raises(t.TeamError) as info:
        t.new_session(["gqa", "nope", "gqa"], 0, -1, KNOWN)
    text = str(info.value)
    assert "unknown drill id 'nope'" in text and "listed twice: gqa" in text
    assert "minutes" in text and "seed" in text


def test_parse_session_refuses_junk():
    for text in ("[1, 2", "just text", "drills: gqa\nseed: 1", "drills: [gqa]\nseed: 1\nextra: 2"):
        with pytest.raises(t.TeamError):
            t.parse_session(text, KNOWN)


# ----------------------------------------------------------------- results


def test_results_round_trip():
    member = t.member_result(SESSION, "Ada", [t.DrillResult("gqa", "passed", 61.25, 2, 1, ("no-scale",))],
                             datetime(2026, 12, 1, 18, tzinfo=UTC))
    parsed = t.parse_results(t.results_json(member).encode(), "Ada.json", KNOWN)
    assert parsed.name == "Ada" and parsed.session == SESSION.id and parsed.solved == 1
    assert parsed.drills[1] == t.DrillResult("masked-mean", "not reached", 0.0)
    assert parsed.drills[0].seconds == 61.2 or parsed.drills[0].seconds == 61.3


@pytest.mark.parametrize("mutate, reason", [
    (lambda d: d.update(kind="something-else"), "not a drill team results file"),
    (lambda d: d.update(format=2), "format"),
    (lambda d: d.update(name=""), "bad name"),
    (lambda d: d.update(name="evil\x1b[2J"), "control characters"),
    (lambda d: d.update(name=["list"]), "name must be text"),
    (lambda d: d.update(session="../../etc"), "session"),
    (lambda d: d.update(finished_at="yesterday"), "finished_at"),
    (lambda d: d.update(mode="telepathy"), "mode"),
    (lambda d: d.update(drills=[]), "drills must be"),
    (lambda d: d.update(extra=1), "unknown field"),
    (lambda d: d["drills"][0].update(drill="rm -rf"), "not a known drill id"),
    (lambda d: d["drills"][0].update(seconds=True), "seconds"),
    (lambda d: d["drills"][0].update(seconds=-1), "seconds"),
    (lambda d: d["drills"][0].update(status="won"), "status"),
    (lambda d: d["drills"][0].update(attempts=1.5), "attempts"),
    (lambda d: d["drills"][0].update(traps=["<img src=x>"]), "traps"),
    (lambda d: d["drills"].append(dict(d["drills"][0])), "twice"),
])
def test_malformed_results_are_refused_with_a_reason(mutate, reason):
    data = results("Ada", SESSION.id, [row("gqa")])
    mutate(data)
    with pytest.raises(t.ResultsError) as info:
        t.parse_results(json.dumps(data).encode(), "bad.json", KNOWN)
    assert info.value.source == "bad.json" and reason in info.value.reason


def test_oversized_binary_and_non_json_results_are_refused():
    for raw, reason in ((b"{" + b" " * t.MAX_RESULTS_BYTES + b"}", "larger than"), (b"\xff\xfe", "UTF-8"),
                        (b"[1, 2]", "not a drill team results file"), (b"{", "not valid JSON"),
                        (b"[" * 60_000, "not valid JSON")):
        with pytest.raises(t.ResultsError) as info:
            t.parse_results(raw[: t.MAX_RESULTS_BYTES + 1], "x.json", KNOWN)
        assert reason in info.value.reason


def test_member_file_names_are_safe_and_distinct():
    assert t.member_filename("Ada") == "Ada.json"
    names = ["../../etc/passwd", "/abs/path", ".hidden", HOSTILE, "a b", "a-b", "", "..", "名前", "x" * 300]
    files = [t.member_filename(n) for n in names]
    for f in files:
        assert "/" not in f and not f.startswith(".") and f.endswith(".json") and len(f) <= 70
        assert all(c.isalnum() or c in "._-" for c in f) and f.isascii()
    assert len(set(files)) == len(files)


# ------------------------------------------------------------------- board


def test_board_ranks_by_solved_then_time_and_merges_mistakes():
    a = t.parse_results(json.dumps(results("Ada", SESSION.id, [row("gqa", seconds=300), row("masked-mean", seconds=200)])).encode(), "a", KNOWN)
    b = t.parse_results(json.dumps(results("Bo", SESSION.id, [row("gqa", seconds=100, traps=["no-scale"]),
                                                             row("masked-mean", "failed", 50, ["plain-mean", "no-scale"])])).encode(), "b", KNOWN)
    c = t.parse_results(json.dumps(results("Cy", SESSION.id, [row("gqa", seconds=400), row("masked-mean", seconds=100)])).encode(), "c", KNOWN)
    board = t.build_board([b, c, a], SESSION.drills)
    assert [(r.rank, r.member.name, r.member.solved, r.member.solved_seconds) for r in board.rows] == [
        (1, "Ada", 2, 500.0), (1, "Cy", 2, 500.0), (3, "Bo", 1, 100.0)]
    assert [(c.drill, c.solved_by, c.fastest, c.fastest_names) for c in board.columns] == [
        ("gqa", 3, 100.0, ("Bo",)), ("masked-mean", 2, 100.0, ("Cy",))]
    assert board.mistakes[0] == t.TeamMistake("no-scale", 2, 1, ("gqa", "masked-mean"))


def test_choose_session_prefers_the_most_members():
    mk = lambda n, s, h: t.MemberResult(n, s, datetime(2026, 12, 1, h, tzinfo=UTC), "repl", ())  # noqa: E731
    rs = [mk("a", "1" * 16, 9), mk("b", "2" * 16, 8), mk("c", "2" * 16, 10)]
    assert t.choose_session(rs) == "2" * 16
    assert t.choose_session(rs, "1" * 16) == "1" * 16
    mine, foreign = t.split_foreign(rs, "2" * 16)
    assert [r.name for r in mine] == ["b", "c"] and [r.name for r in foreign] == ["a"]


def test_team_run_flow_stops_at_the_deadline():
    class Clock:
        now = 100.0

        def monotonic(self):
            return self.now

    clock = Clock()
    flow = t.TeamRun(SESSION, clock)
    assert flow.next_drill() == "gqa"
    flow.add(t.DrillResult("gqa", "passed", 60))
    clock.now += 30 * 60
    assert flow.over() and flow.next_drill() is None
    result = flow.result("Ada", datetime(2026, 12, 1, tzinfo=UTC))
    assert [d.status for d in result.drills] == ["passed", "not reached"]


def test_file_options():
    assert t.parse_file_options(["gqa=a.py"], SESSION) == {"gqa": "a.py"}
    for bad in (["gqa"], ["outer-typo=x.py"], ["gqa=a.py", "gqa=b.py"]):
        with pytest.raises(t.TeamError):
            t.parse_file_options(bad, SESSION)


# ------------------------------------------------------------------ the CLI


@pytest.fixture(scope="module")
def app():
    from trainer.cli import _register, app

    _register()
    return app


@pytest.fixture(scope="module")
def loaded_catalogue():
    from grader.spec import load_catalogue

    return load_catalogue()


@pytest.fixture(autouse=True)
def _catalogue_once(monkeypatch, loaded_catalogue):
    import grader.spec

    monkeypatch.setattr(grader.spec, "load_catalogue", lambda *a, **k: loaded_catalogue)


def invoke(app, *args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_team_new_validates_ids(app, tmp_path):
    out = tmp_path / "s.yaml"
    bad = invoke(app, "team", "new", "--drills", "gqa,no-such-drill", "--out", out)
    assert bad.exit_code == 2 and "no-such-drill" in bad.stderr and not out.exists()
    good = invoke(app, "team", "new", "--drills", "gqa, masked-mean", "--minutes", "20", "--seed", "7", "--out", out)
    assert good.exit_code == 0, good.output
    session = t.parse_session(out.read_text(), KNOWN)
    assert session.drills == ("gqa", "masked-mean") and session.minutes == 20 and session.seed == 7
    again = invoke(app, "team", "new", "--drills", "gqa", "--out", out)
    assert again.exit_code == 2 and "--force" in again.stderr


def write_board_folder(folder: Path) -> None:
    folder.mkdir()
    (folder / "session.yaml").write_text(t.session_yaml(SESSION))
    (folder / "ada.json").write_text(json.dumps(results("Ada", SESSION.id, [row("gqa", seconds=75),
                                                                          row("masked-mean", "failed", 300, ["plain-mean"])])))
    (folder / "evil.json").write_text(json.dumps(results(HOSTILE, SESSION.id, [row("gqa", seconds=90),
                                                                             row("masked-mean", seconds=120)])))
    (folder / "broken.json").write_text('{"format": 1, "kind": "drill-team-results", "name": "Mal", ')
    (folder / "other.json").write_text(json.dumps(results("Otto", "f" * 16, [row("gqa")])))
    (folder / "notes.txt").write_text("not a results file")


def test_board_with_two_members_a_malformed_and_a_hostile_file(app, tmp_path):
    folder = tmp_path / "results"
    write_board_folder(folder)

    text = invoke(app, "team", "board", folder)
    assert text.exit_code == 0, text.output
    assert "broken.json" in text.stderr and "not valid JSON" in text.stderr
    assert "other.json" in text.stderr and "another session" in text.stderr
    assert "notes.txt" not in text.stderr
    lines = text.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if "<script>" in line)
    ada = next(i for i, line in enumerate(lines) if "Ada" in line)
    assert first < ada and "2/2" in lines[first] and "1:15" in lines[ada]  # 2 solved beats 1 solved
    assert "plain-mean" in text.stdout and "Otto" not in text.stdout

    md = invoke(app, "team", "board", folder, "--format", "md")
    assert md.exit_code == 0 and "broken.json" in md.stderr
    assert "<script>" not in md.stdout and "&lt;script&gt;alert\\(1\\)&lt;/script&gt;" in md.stdout
    assert "\\| \\[click\\]\\(http\\://evil.example\\) \\*\\*x\\*\\*" in md.stdout
    hostile_row = next(line for line in md.stdout.splitlines() if "script" in line and line.startswith("| 1 "))
    assert hostile_row.count(" | ") == 5  # no extra cell from the `|` in the name
    assert md.stdout.startswith("# Tuesday &lt;b&gt;drills&lt;/b&gt;")

    html = invoke(app, "team", "board", folder, "--format", "html")
    assert html.exit_code == 0 and "broken.json" in html.stderr
    assert "<script" not in html.stdout.lower() and "<b>drills</b>" not in html.stdout
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html.stdout and "<svg" in html.stdout
    assert 'href="http://evil.example"' not in html.stdout


def test_board_on_an_empty_or_missing_folder(app, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = invoke(app, "team", "board", empty)
    assert result.exit_code == 0 and "No results yet" in result.stdout
    assert invoke(app, "team", "board", tmp_path / "missing").exit_code == 2


class FakeGrading:
    """Stands in for the grader: a source holding 'ok' passes, anything else hits a trap."""

    def __init__(self) -> None:
        self.seeds: list[int | None] = []

    def grade(self, drill_id, source, filename="<buffer>", seed=None, timeout=120):
        self.seeds.append(seed)
        from grader.report import Report, TrapMatch

        if "ok" in source:
            return Report(drill_id, "pass", [], 0.5, seed=seed)
        return Report(drill_id, "wrong", [], 0.7, seed=seed, trap=TrapMatch("plain-mean", "m"))

    def close(self) -> None:
        pass


def test_team_run_with_files_writes_one_safe_results_file(app, tmp_path, monkeypatch):
    import trainer.cli.team as cli_team
    from trainer.store import open_store

    fake = FakeGrading()
    monkeypatch.setattr(cli_team, "open_grading", lambda: fake)
    session_file = tmp_path / "s.yaml"
    session_file.write_text(t.session_yaml(SESSION))
    ok, bad = tmp_path / "ok.py", tmp_path / "bad.py"
    ok.write_text("# ok\n")
    bad.write_text("# nope\n")
    folder = tmp_path / "shared"
    name = "../../Ada <b>"
    result = invoke(app, "team", "run", session_file, "--name", name, "--results", folder,
                    "--file", f"gqa={ok}", "--file", f"masked-mean={bad}")
    assert result.exit_code == 0, result.output
    [written] = list(folder.iterdir())
    assert written.name == t.member_filename(name) and written.parent == folder
    member = t.parse_results(written.read_bytes(), str(written), KNOWN)
    assert member.name == name and member.session == SESSION.id and member.mode == "files"
    assert [(d.drill, d.status, d.traps) for d in member.drills] == [
        ("gqa", "passed", ()), ("masked-mean", "failed", ("plain-mean",))]
    assert fake.seeds == [42, 42]  # the session's seed for every member
    with open_store() as store:
        attempts = store.attempts()
        assert [(a.drill, a.mode, a.verdict) for a in attempts] == [
            ("gqa", "team", "pass"), ("masked-mean", "team", "wrong")]
        assert store.sessions()[-1].kind == "team"
    board = invoke(app, "team", "board", folder, "--format", "md")
    assert board.exit_code == 0 and "Ada &lt;b&gt;" in board.stdout


def test_team_run_usage_errors(app, tmp_path):
    session_file = tmp_path / "s.yaml"
    session_file.write_text(t.session_yaml(SESSION))
    no_tty = invoke(app, "team", "run", session_file, "--name", "Ada")
    assert no_tty.exit_code == 2 and "--file" in no_tty.stderr
    assert invoke(app, "team", "run", session_file, "--name", " ", "--file", "gqa=x.py").exit_code == 2
    assert invoke(app, "team", "run", tmp_path / "none.yaml", "--name", "Ada").exit_code == 2
    stray = invoke(app, "team", "run", session_file, "--name", "Ada", "--file", "outer-typo=x.py")
    assert stray.exit_code == 2 and "not in this session" in stray.stderr


def test_team_run_in_the_repl_uses_the_session_clock_and_seed(app, tmp_path, monkeypatch):
    """The REPL path with a stand-in for DrillRepl: every drill gets mode team, the session's
    seed and one shared deadline; when the countdown runs out the rest is 'not reached'."""
    import trainer.cli.team as cli_team
    from trainer.repl.app import DrillOutcome
    from trainer.repl.clock import FakeClock

    clock = FakeClock(datetime(2026, 12, 1, 18, tzinfo=UTC))
    seen = []

    def fake_run_drill(spec, grading, options, clk):
        seen.append((spec.id, options.mode, options.seed, options.deadline, options.session_id, clk))
        clk.advance(31 * 60)  # the whole session's time goes on the first drill
        return DrillOutcome(spec.id, "passed", verdict="pass", seconds=31 * 60, attempts=2, hints=1,
                            traps=["no-scale"])

    monkeypatch.setattr(cli_team, "open_grading", FakeGrading)
    monkeypatch.setattr(cli_team, "has_terminal", lambda: True)
    monkeypatch.setattr(cli_team, "make_clock", lambda: clock)
    monkeypatch.setattr(cli_team, "run_drill", fake_run_drill)
    session_file = tmp_path / "s.yaml"
    session_file.write_text(t.session_yaml(SESSION))
    result = invoke(app, "team", "run", session_file, "--name", "Bo")
    assert result.exit_code == 0, result.output
    [(drill, mode, seed, deadline, session_id, clk)] = seen
    assert (drill, mode, seed, deadline, clk) == ("gqa", "team", 42, 1000.0 + 30 * 60, clock)
    member = t.parse_results((tmp_path / "Bo.json").read_bytes(), "Bo.json", KNOWN)  # beside the session file
    assert [(d.drill, d.status, d.attempts, d.hints, d.traps) for d in member.drills] == [
        ("gqa", "passed", 2, 1, ("no-scale",)), ("masked-mean", "not reached", 0, 0, ())]
    assert member.finished_at == datetime(2026, 12, 1, 18, 31, tzinfo=UTC) and member.mode == "repl"
