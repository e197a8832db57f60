"""Team study sessions: the session file, results validation, safe file names, the
board (two members, a malformed file, a foreign file and a hostile name) in every
format, untimed `--file` runs, provenance (runs graded on other cases), re-runs,
file modes, `team new` validation and `team run --file` with a stand-in grader."""
from __future__ import annotations

import json
import os
import stat
from datetime import datetime, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trainer import team as t

UTC = timezone.utc
KNOWN = {"gqa", "masked-mean", "outer-typo"}
HOSTILE = "<script>alert(1)</script> | [click](http://evil.example) **x**"


CASES = {"gqa": "a" * 16, "masked-mean": "b" * 16, "outer-typo": "c" * 16}


def run_dict(rows: list[dict], mode: str = "repl", hour: int = 18, grader: str = "drill 0.1.0") -> dict:
    return {"finished_at": f"2026-12-01T{hour:02d}:00:00+00:00", "mode": mode, "grader": grader, "drills": rows}


def results(name: str, session: str, rows: list[dict], mode: str = "repl", runs: list[dict] | None = None) -> dict:
    return {"format": 2, "kind": "drill-team-results", "session": session, "name": name,
            "runs": runs if runs is not None else [run_dict(rows, mode)]}


def row(drill: str, status: str = "passed", seconds: float | None = 100.0, traps: list[str] | None = None,
        cases: str | None = "") -> dict:
    return {"drill": drill, "status": status, "seconds": seconds, "attempts": 1, "hints": 0, "traps": traps or [],
            "cases": CASES[drill] if cases == "" else cases}


def parsed(data: dict, source: str = "x.json") -> t.MemberResult:
    return t.parse_results(json.dumps(data).encode(), source, KNOWN)


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


def test_results_round_trip_with_provenance_and_runs():
    run = t.session_run(SESSION, [t.DrillResult("gqa", "passed", 61.25, 2, 1, ("no-scale",), "0123456789abcdef")],
                        datetime(2026, 12, 1, 18, tzinfo=UTC))
    member = t.add_run(None, SESSION, "Ada", run)
    back = t.parse_results(t.results_json(member).encode(), "Ada.json", KNOWN)
    assert back.name == "Ada" and back.session == SESSION.id and len(back.runs) == 1
    [first] = back.runs
    assert first.solved == 1 and first.timed and first.grader == t.grader_version()
    assert first.drills[0].cases == "0123456789abcdef"
    assert first.drills[1] == t.DrillResult("masked-mean", "not reached", 0.0)
    assert first.drills[0].seconds in (61.2, 61.3)
    untimed = t.session_run(SESSION, [t.DrillResult("gqa", "passed", None, 1, 0, (), "0123456789abcdef")],
                            datetime(2026, 12, 1, 19, tzinfo=UTC), mode="files")
    again = t.parse_results(t.results_json(t.add_run(back, SESSION, "Ada", untimed)).encode(), "Ada.json", KNOWN)
    assert [r.mode for r in again.runs] == ["repl", "files"]  # a re-run keeps the earlier run
    assert not again.runs[1].timed and again.runs[1].solved_seconds is None
    assert [d.seconds for d in again.runs[1].drills] == [None, None]  # untimed, even 'not reached'
    assert '"seconds": null' in t.results_json(again)


def _drill0(d: dict) -> dict:
    return d["runs"][0]["drills"][0]


@pytest.mark.parametrize("mutate, reason", [
    (lambda d: d.update(kind="something-else"), "not a drill team results file"),
    (lambda d: d.update(format=3), "format"),
    (lambda d: d.update(format=1), "older drill"),
    (lambda d: d.update(name=""), "bad name"),
    (lambda d: d.update(name="evil\x1b[2J"), "control characters"),
    (lambda d: d.update(name=["list"]), "name must be text"),
    (lambda d: d.update(session="../../etc"), "session"),
    (lambda d: d.update(session="a" * 16 + "\n"), "session"),
    (lambda d: d["runs"][0].update(finished_at="yesterday"), "finished_at"),
    (lambda d: d["runs"][0].update(mode="telepathy"), "mode"),
    (lambda d: d["runs"][0].update(grader="<b>"), "grader"),
    (lambda d: d["runs"][0].update(drills=[]), "drills must be"),
    (lambda d: d.update(runs=[]), "runs must be"),
    (lambda d: d.update(runs=[d["runs"][0]] * (t.MAX_RUNS + 1)), "runs must be"),
    (lambda d: d.update(extra=1), "unknown field"),
    (lambda d: _drill0(d).update(drill="rm -rf"), "not a known drill id"),
    (lambda d: _drill0(d).update(seconds=True), "seconds"),
    (lambda d: _drill0(d).update(seconds=-1), "seconds"),
    (lambda d: _drill0(d).update(seconds=None), "seconds"),  # a REPL run is timed
    (lambda d: d["runs"][0].update(mode="files"), "must be null"),  # a files run is not
    (lambda d: _drill0(d).update(status="won"), "status"),
    (lambda d: _drill0(d).update(attempts=1.5), "attempts"),
    (lambda d: _drill0(d).update(traps=["<img src=x>"]), "traps"),
    (lambda d: _drill0(d).update(cases="../x"), "case hash"),
    (lambda d: d["runs"][0]["drills"].append(dict(_drill0(d))), "twice"),
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
    a = parsed(results("Ada", SESSION.id, [row("gqa", seconds=300), row("masked-mean", seconds=200)]), "a")
    b = parsed(results("Bo", SESSION.id, [row("gqa", seconds=100, traps=["no-scale"]),
                                          row("masked-mean", "failed", 50, ["plain-mean", "no-scale"])]), "b")
    c = parsed(results("Cy", SESSION.id, [row("gqa", seconds=400), row("masked-mean", seconds=100)]), "c")
    board = t.build_board([b, c, a], SESSION.drills)
    assert [(r.rank, r.member.name, r.run.solved, r.run.solved_seconds) for r in board.rows] == [
        (1, "Ada", 2, 500.0), (1, "Cy", 2, 500.0), (3, "Bo", 1, 100.0)]
    assert [(c.drill, c.solved_by, c.fastest, c.fastest_names) for c in board.columns] == [
        ("gqa", 3, 100.0, ("Bo",)), ("masked-mean", 2, 100.0, ("Cy",))]
    assert board.mistakes[0] == t.TeamMistake("no-scale", 2, 1, ("gqa", "masked-mean"))


def test_untimed_runs_rank_after_timed_ones_at_equal_solved_and_never_set_fastest():
    honest = parsed(results("Honest", SESSION.id, [row("gqa", seconds=20), row("masked-mean", "failed", 60)]), "h")
    copier = parsed(results("Copier", SESSION.id, [row("gqa", seconds=None), row("masked-mean", "failed", None)],
                            mode="files"), "c")
    slow = parsed(results("Slow", SESSION.id, [row("gqa", seconds=900), row("masked-mean", "failed", 60)]), "s")
    both = parsed(results("Both", SESSION.id, [row("gqa", seconds=None), row("masked-mean", seconds=None)],
                          mode="files"), "b")
    board = t.build_board([copier, slow, honest, both], SESSION.drills)
    assert [(r.rank, r.member.name) for r in board.rows] == [(1, "Both"), (2, "Honest"), (3, "Slow"), (4, "Copier")]
    assert board.columns[0].fastest == 20.0 and board.columns[0].fastest_names == ("Honest",)
    assert board.columns[0].solved_by == 4 and board.columns[1].fastest is None  # only untimed passes
    assert board.untimed


def test_a_run_graded_on_other_cases_is_flagged_not_ranked():
    ada = parsed(results("Ada", SESSION.id, [row("gqa", seconds=200), row("masked-mean", seconds=200)]), "ada.json")
    bo = parsed(results("Bo", SESSION.id, [row("gqa", seconds=300), row("masked-mean", "failed", 60)]), "bo.json")
    odd = parsed(results("Odd", SESSION.id, [row("gqa", seconds=10, cases="f" * 16), row("masked-mean", seconds=10)],
                         runs=[run_dict([row("gqa", seconds=10, cases="f" * 16), row("masked-mean", seconds=10)],
                                        grader="drill 9.9")]), "odd.json")
    board = t.build_board([ada, odd, bo], SESSION.drills)
    assert [r.member.name for r in board.rows] == ["Ada", "Bo"]
    [flag] = board.flagged
    assert (flag.name, flag.source) == ("Odd", "odd.json")
    assert "gqa" in flag.reason and "other cases" in flag.reason and "drill 9.9" in flag.reason
    # a member with one good run and one odd run is ranked by the good one, and the odd one is counted
    mixed = parsed(results("Mix", SESSION.id, [], runs=[
        run_dict([row("gqa", seconds=5, cases="f" * 16), row("masked-mean", seconds=5)], hour=17),
        run_dict([row("gqa", seconds=400), row("masked-mean", "failed", 60)], hour=18)]), "mix.json")
    board = t.build_board([ada, bo, mixed], SESSION.drills)
    row_mix = next(r for r in board.rows if r.member.name == "Mix")
    assert row_mix.run.solved == 1 and row_mix.runs == 2 and row_mix.flagged_runs == 1 and not board.flagged
    # a pass with no case hash cannot be checked: flagged too
    unknown = parsed(results("Nohash", SESSION.id, [row("gqa", seconds=5, cases=None), row("masked-mean", "failed", 60)]))
    assert "no record of the cases" in t.build_board([ada, unknown]).flagged[0].reason


def test_the_best_run_counts_and_every_run_is_kept():
    first = run_dict([row("gqa", seconds=500), row("masked-mean", "failed", 60)], hour=17)
    second = run_dict([row("gqa", seconds=300), row("masked-mean", seconds=200)], hour=18)
    third = run_dict([row("gqa", seconds=100), row("masked-mean", "failed", 60)], hour=19)
    ada = parsed(results("Ada", SESSION.id, [], runs=[first, second, third]))
    [r] = t.build_board([ada], SESSION.drills).rows
    assert r.runs == 3 and r.run.finished_at.hour == 18 and r.run.solved_seconds == 500.0


def test_a_narrow_terminal_gets_each_drill_on_a_line_instead_of_a_column():
    from trainer.team.render import render_board_text

    long_names = ("gqa", "masked-mean", "outer-typo")
    members = [parsed(results(name, SESSION.id, [row(d, seconds=61 + i) for i, d in enumerate(long_names)]), name)
               for name in ("Ada Lovelace", "Chandrasekhar Subrahmanyan")]
    board = t.build_board(members, long_names)
    wide = render_board_text(board, "T", width=140)
    assert "Each drill" not in wide and "masked-mean" in wide.splitlines()[1]
    narrow = render_board_text(board, "T", width=60)
    lines = narrow.splitlines()
    assert max(len(ln) for ln in lines) <= 60 and "…" not in narrow
    assert "Each drill" in narrow and any(ln.startswith("outer-typo: Ada Lovelace 1:03") for ln in lines)


def test_choose_session_prefers_the_most_members():
    mk = lambda n, s, h: t.MemberResult(n, s, (t.Run(datetime(2026, 12, 1, h, tzinfo=UTC), "repl", "drill 0.1.0", ()),))  # noqa: E731
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
    assert flow.queue.next() == "gqa"
    flow.queue.add(t.DrillResult("gqa", "passed", 60))
    clock.now += 30 * 60
    assert flow.queue.over() and flow.queue.next() is None
    result = flow.run(datetime(2026, 12, 1, tzinfo=UTC))
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


def invoke(app, *args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_team_new_validates_ids(app, tmp_path):
    out = tmp_path / "s.yaml"
    bad = invoke(app, "team", "new", "--drills", "gqa,no-such-drill", "--out", out)
    assert bad.exit_code == 2 and "no-such-drill" in bad.stderr and not out.exists()
    good = invoke(app, "team", "new", "--drills", "gqa, masked-mean", "--minutes", "20", "--seed", "7", "--out", out)
    assert good.exit_code == 0, good.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o644  # teammates read it from the shared folder
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
    ranked, _, unranked = text.stdout.partition("Not ranked")
    assert "plain-mean" in text.stdout and "Otto" not in ranked and "Otto" in unranked
    assert "other.json" in unranked and "another session" in unranked

    md = invoke(app, "team", "board", folder, "--format", "md")
    assert md.exit_code == 0 and "broken.json" in md.stderr
    assert "<script>" not in md.stdout and "&lt;script&gt;alert(1)&lt;/script&gt;" in md.stdout
    assert "\\| \\[click\\](http\\://evil.example) \\*\\*x\\*\\*" in md.stdout  # `]` escaped: no link
    hostile_row = next(line for line in md.stdout.splitlines() if "script" in line and line.startswith("| 1 "))
    assert hostile_row.count(" | ") == 6  # no extra cell from the `|` in the name
    assert "## Not ranked" in md.stdout and "another session" in md.stdout
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
        self.hashed: list[tuple[str, int]] = []

    def grade(self, drill_id, source, filename="<buffer>", seed=None, timeout=120):
        self.seeds.append(seed)
        from grader.report import Report, TrapMatch

        if "ok" in source:
            return Report(drill_id, "pass", [], 0.5, seed=seed)
        return Report(drill_id, "wrong", [], 0.7, seed=seed, trap=TrapMatch("plain-mean", "m"))

    def case_hash(self, drill_id: str, seed: int) -> str:
        self.hashed.append((drill_id, seed))
        return CASES[drill_id]

    def smallest(self, report, source, filename="<buffer>"):
        return None

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
    old = os.umask(0o077)  # even a private umask leaves the shared file readable
    try:
        result = invoke(app, "team", "run", session_file, "--name", name, "--results", folder,
                        "--file", f"gqa={ok}", "--file", f"masked-mean={bad}")
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.output
    [written] = list(folder.iterdir())
    assert written.name == t.member_filename(name) and written.parent == folder
    assert stat.S_IMODE(written.stat().st_mode) == 0o644  # readable by the team
    member = t.parse_results(written.read_bytes(), str(written), KNOWN)
    assert member.name == name and member.session == SESSION.id
    [run] = member.runs
    assert run.mode == "files" and not run.timed and run.grader == t.grader_version()
    assert [(d.drill, d.status, d.traps, d.seconds, d.cases) for d in run.drills] == [
        ("gqa", "passed", (), None, CASES["gqa"]), ("masked-mean", "failed", ("plain-mean",), None, CASES["masked-mean"])]
    assert fake.seeds == [42, 42] and fake.hashed == [("gqa", 42), ("masked-mean", 42)]  # the session's seed
    with open_store() as store:
        attempts = store.attempts()
        assert [(a.drill, a.mode, a.verdict) for a in attempts] == [
            ("gqa", "team", "pass"), ("masked-mean", "team", "wrong")]
        assert store.sessions()[-1].kind == "team"
    board = invoke(app, "team", "board", folder, "--format", "md")
    assert board.exit_code == 0 and "Ada &lt;b&gt;" in board.stdout


def _run_files(app, session_file: Path, folder: Path, name: str, tmp_path: Path, passing: tuple[str, ...]):
    args = []
    for drill in SESSION.drills:
        path = tmp_path / f"{name}-{drill}.py"
        path.write_text("# ok\n" if drill in passing else "# nope\n")
        args += ["--file", f"{drill}={path}"]
    return invoke(app, "team", "run", session_file, "--name", name, "--results", folder, *args)


def test_two_members_timed_and_by_file_the_board_shows_no_zero_time(app, tmp_path, monkeypatch):
    """Bo solves both drills in the REPL in 0:20; Ada grades the reference solutions with
    --file. At equal score Bo ranks first, Ada's row says untimed, and 0:00 appears nowhere."""
    import trainer.cli.team as cli_team
    from trainer.repl.app import DrillOutcome
    from trainer.clock import FakeClock

    clock = FakeClock(datetime(2026, 12, 1, 18, tzinfo=UTC))

    def fake_run_drill(spec, grading, options, clk):
        clk.advance(10)
        return DrillOutcome(spec.id, "passed", verdict="pass", seconds=10, attempts=1, hints=0, traps=[])

    monkeypatch.setattr(cli_team, "open_grading", FakeGrading)
    monkeypatch.setattr(cli_team, "has_terminal", lambda: True)
    monkeypatch.setattr(cli_team, "make_clock", lambda: clock)
    monkeypatch.setattr(cli_team, "run_drill", fake_run_drill)
    folder = tmp_path / "shared"
    folder.mkdir()
    session_file = folder / "session.yaml"
    session_file.write_text(t.session_yaml(SESSION))
    assert invoke(app, "team", "run", session_file, "--name", "Bo").exit_code == 0
    ada = _run_files(app, session_file, folder, "Ada", tmp_path, passing=SESSION.drills)
    assert ada.exit_code == 0, ada.output
    assert "untimed" in ada.stdout

    text = invoke(app, "team", "board", folder)
    assert text.exit_code == 0, text.output
    assert "0:00" not in text.stdout
    lines = text.stdout.splitlines()
    bo = next(i for i, line in enumerate(lines) if " Bo " in line)
    ada_line = next(i for i, line in enumerate(lines) if " Ada " in line and "untimed" in line)
    assert bo < ada_line and "0:20" in lines[bo] and "2/2" in lines[bo] and "2/2" in lines[ada_line]
    assert lines[bo].split()[0] == "1" and lines[ada_line].split()[0] == "2"
    per_drill = text.stdout[text.stdout.index("Per drill"):]
    assert "Ada" not in per_drill.split("Mistakes")[0]  # never 'fastest'
    for fmt in ("md", "html"):
        out = invoke(app, "team", "board", folder, "--format", fmt)
        assert out.exit_code == 0 and "0:00" not in out.stdout and "untimed" in out.stdout
        assert out.stdout.index("Bo") < out.stdout.index("Ada")


def test_a_re_run_keeps_the_earlier_run_and_the_board_shows_the_best(app, tmp_path, monkeypatch):
    import trainer.cli.team as cli_team

    monkeypatch.setattr(cli_team, "open_grading", FakeGrading)
    folder = tmp_path / "shared"
    folder.mkdir()
    session_file = folder / "session.yaml"
    session_file.write_text(t.session_yaml(SESSION))
    assert _run_files(app, session_file, folder, "Ada", tmp_path, passing=("gqa", "masked-mean")).exit_code == 0
    again = _run_files(app, session_file, folder, "Ada", tmp_path, passing=("gqa",))
    assert again.exit_code == 0 and "earlier run, which stays" in again.stdout, again.stdout
    member = t.parse_results((folder / "Ada.json").read_bytes(), "Ada.json", KNOWN)
    assert [r.solved for r in member.runs] == [2, 1]
    board = invoke(app, "team", "board", folder, "--format", "md")
    assert "| 1 | Ada | 2/2 | untimed | best of 2 |" in board.stdout
    # a file that cannot be kept is never overwritten
    (folder / "Cy.json").write_text(json.dumps(results("Cy", "f" * 16, [row("gqa")])))
    other = _run_files(app, session_file, folder, "Cy", tmp_path, passing=("gqa",))
    assert other.exit_code == 2 and "another session" in other.stderr and "nothing was changed" in other.stderr
    assert json.loads((folder / "Cy.json").read_text())["session"] == "f" * 16


def test_board_flags_a_results_file_graded_on_other_cases(app, tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "session.yaml").write_text(t.session_yaml(SESSION))
    for name in ("Ada", "Bo"):
        (folder / f"{name}.json").write_text(json.dumps(results(name, SESSION.id, [row("gqa", seconds=60),
                                                                                  row("masked-mean", seconds=60)])))
    (folder / "Eve.json").write_text(json.dumps(results("Eve", SESSION.id, [row("gqa", seconds=5, cases="e" * 16),
                                                                            row("masked-mean", seconds=5)])))
    board = invoke(app, "team", "board", folder)
    assert board.exit_code == 0
    assert "Eve.json" in board.stderr and "other cases" in board.stderr
    ranked, _, rest = board.stdout.partition("Not ranked")
    assert "Eve" not in ranked and "Eve" in rest and "gqa" in rest
    html = invoke(app, "team", "board", folder, "--format", "html")
    assert "Not ranked" in html.stdout and "other cases" in html.stdout


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
    from trainer.clock import FakeClock

    clock = FakeClock(datetime(2026, 12, 1, 18, tzinfo=UTC))
    seen = []

    def fake_run_drill(spec, grading, options, clk):
        seen.append((spec.id, options.mode, options.seed, options.deadline, options.flow_id, clk))
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
    [run] = member.runs
    assert [(d.drill, d.status, d.attempts, d.hints, d.traps, d.cases) for d in run.drills] == [
        ("gqa", "passed", 2, 1, ("no-scale",), CASES["gqa"]), ("masked-mean", "not reached", 0, 0, (), None)]
    assert run.finished_at == datetime(2026, 12, 1, 18, 31, tzinfo=UTC) and run.mode == "repl" and run.timed


def test_a_pass_in_the_repl_is_written_before_the_member_leaves_the_drill(app, tmp_path, monkeypatch):
    """The real REPL on a pipe: the moment gqa passes, Cy.json already holds the pass (the
    terminal may close on the pass screen, before Enter)."""
    import asyncio

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    import trainer.cli.team as cli_team
    from trainer.clock import FakeClock
    from trainer.repl.app import DrillRepl

    clock = FakeClock(datetime(2026, 12, 1, 18, tzinfo=UTC))
    folder = tmp_path / "shared"
    folder.mkdir()
    session_file = folder / "session.yaml"
    session_file.write_text(t.session_yaml(SESSION))
    on_pass_screen: list[dict] = []

    def real_repl(spec, grading, options, clk):
        async def main():
            with create_pipe_input() as pipe:
                repl = DrillRepl(spec, grading, input=pipe, output=DummyOutput(), clock=clk, options=options)
                task = asyncio.ensure_future(repl.run_async())
                while not repl.app.is_running:
                    await asyncio.sleep(0.01)
                clk.advance(6)
                repl.buffer.text = "# ok\n"
                pipe.send_text("\x13")  # ^S
                while not repl.state.results:
                    await asyncio.sleep(0.01)
                on_pass_screen.append(json.loads((folder / "Cy.json").read_text()))  # before Enter
                pipe.send_text(":skip\r")
                return await asyncio.wait_for(task, 10)
        return asyncio.run(main())

    monkeypatch.setattr(cli_team, "open_grading", FakeGrading)
    monkeypatch.setattr(cli_team, "has_terminal", lambda: True)
    monkeypatch.setattr(cli_team, "make_clock", lambda: clock)
    monkeypatch.setattr(cli_team, "run_drill", real_repl)
    result = invoke(app, "team", "run", session_file, "--name", "Cy")
    assert result.exit_code == 0, result.output
    early = on_pass_screen[0]
    [run] = early["runs"]
    gqa = run["drills"][0]
    assert (gqa["drill"], gqa["status"], gqa["attempts"], gqa["seconds"]) == ("gqa", "passed", 1, 6.0)
    assert gqa["cases"] == CASES["gqa"]


def test_a_board_written_to_a_file_is_readable_by_the_team(app, tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "session.yaml").write_text(t.session_yaml(SESSION))
    (folder / "Ada.json").write_text(json.dumps(results("Ada", SESSION.id, [row("gqa"), row("masked-mean")])))
    for fmt in ("text", "md", "html"):
        out = folder / f"board.{fmt}"
        old = os.umask(0o077)
        try:
            written = invoke(app, "team", "board", folder, "--format", fmt, "--output", out)
        finally:
            os.umask(old)
        assert written.exit_code == 0, written.output
        assert stat.S_IMODE(out.stat().st_mode) == 0o644  # like the results files beside it
