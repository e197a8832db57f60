"""Teammates' files and commits cannot break the board (issue 34, item 4): a results file dated
9999-12-31 or 0001-01-01 and commits dated in the year 3,170,843 or 9999-12-31 under UTC+9 are
placed and shown as they are in Tokyo and New York (local time overflows there), never fatal; a
session file's `variants:` are checked against the drills; a member's file changed by a commit of
another identity is flagged on the board. Real git, local bare repositories."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.trainer.team.test_team import SESSION, FakeGrading, results, row, run_dict
from tests.trainer.team.test_team_git import _files, git, team  # noqa: F401 - `team` is a fixture
from trainer import team as t


@pytest.fixture(scope="module")
def app():
    from trainer.cli import _register, app

    _register()
    return app


def invoke(app, *args):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "300"})


@pytest.fixture(params=["Asia/Tokyo", "America/New_York"])
def zone(request, monkeypatch):
    """The local time zone of the person reading the board (TZ), east and west of UTC."""
    monkeypatch.setenv("TZ", request.param)
    time.tzset()
    yield request.param
    monkeypatch.undo()
    time.tzset()


# ------------------------------------------------------------ results files: finished_at at the edges


def _at(moment: str, name: str) -> dict:
    run = run_dict([row("gqa"), row("masked-mean")])
    run["finished_at"] = moment
    return results(name, SESSION.id, [], runs=[run])


EDGES = {"Ada": "9999-12-31T23:00:00+00:00", "Bo": "0001-01-01T00:00:00+00:00",
         "Cy": "9999-12-31T23:00:00-05:00",  # 10000-01-01 04:00 in UTC: no datetime holds it
         "Di": "0001-01-01T00:30:00+05:00"}  # 0000-12-31 19:30 in UTC


def test_status_and_board_place_results_dated_at_the_edges_of_time(app, tmp_path, zone):
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "session.yaml").write_text(t.session_yaml(SESSION))
    for name, moment in EDGES.items():
        (folder / f"{name}.json").write_text(json.dumps(_at(moment, name)))
    status = invoke(app, "team", "status", folder)
    assert status.exit_code == 0, status.output
    assert "Traceback" not in status.output and "skipped" not in status.output
    assert "4/4 members results in the folder name have submitted" in status.stdout
    lines = {line.split(":")[0].split()[-1]: line for line in status.stdout.splitlines() if "submitted  " in line}
    # Cy and Di are clamped to the last and first times a datetime holds (UTC)
    if zone == "Asia/Tokyo":  # year 10000 here: shown in UTC, as it is
        expected = {"Ada": "9999-12-31 23:00 UTC", "Bo": "0001-01-01 09:18",  # Tokyo's local mean time: +9:18:59
                    "Cy": "9999-12-31 23:59 UTC", "Di": "0001-01-01 09:18"}
    else:  # year 0 here
        expected = {"Ada": "9999-12-31 18:00", "Bo": "0001-01-01 00:00 UTC",
                    "Cy": "9999-12-31 18:59", "Di": "0001-01-01 00:00 UTC"}
    for name, shown in expected.items():
        assert f"last {shown}, solved 2/2" in lines[name], lines[name]
    board = invoke(app, "team", "board", folder)
    assert board.exit_code == 0 and "Traceback" not in board.output, board.output
    assert all(name in board.stdout for name in EDGES)


# ------------------------------------------------------------ commits dated at the edges of time


def _commit(clone: Path, path: Path, text: str, date: str | None = None, email: str | None = None) -> None:
    path.write_text(text)
    env = dict(os.environ)
    if date:
        env.update(GIT_COMMITTER_DATE=date, GIT_AUTHOR_DATE=date)
    if email:
        env.update(GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_EMAIL=email, GIT_AUTHOR_NAME="Bob", GIT_COMMITTER_NAME="Bob")
    subprocess.run(["git", "-C", str(clone), "add", path.name], check=True, env=env)
    subprocess.run(["git", "-C", str(clone), "commit", "--quiet", "-m", f"{path.name} by hand"], check=True, env=env)
    subprocess.run(["git", "-C", str(clone), "push", "--quiet", "origin", "HEAD:main"], check=True, env=env,
                   capture_output=True)


def _run_both(app, clones, tmp_path, monkeypatch) -> None:
    import trainer.cli.team as cli_team

    monkeypatch.setattr(cli_team, "open_grading", FakeGrading)
    for clone, name in ((clones["ada"], "Ada"), (clones["bo"], "Bo")):
        out = invoke(app, "team", "run", clone / "session.yaml", "--name", name, "--git", *_files(tmp_path, name))
        assert out.exit_code == 0, out.output


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_board_git_shows_commits_dated_beyond_year_9999_as_they_are(app, team, tmp_path, monkeypatch,  # noqa: F811
                                                                   zone):
    _bare, clones, _session = team
    _run_both(app, clones, tmp_path, monkeypatch)
    ada, bo = clones["ada"], clones["bo"]
    git(ada, "pull", "--quiet", "--rebase", "origin", "main")
    # Ada's file: a raw timestamp git takes and prints as the year 3,170,843
    _commit(ada, ada / "Ada.json", (ada / "Ada.json").read_text() + " ", "@100000000000000 +0000")
    git(bo, "pull", "--quiet", "--rebase", "origin", "main")
    # Bo's file: 9999-12-31 23:59:59 UTC, written under UTC+9 (git prints 10000-01-01T08:59:59+09:00)
    _commit(bo, bo / "Bo.json", (bo / "Bo.json").read_text() + " ", "@253402300799 +0900")
    board = invoke(app, "team", "board", ada, "--git")
    assert board.exit_code == 0, board.output
    assert "Traceback" not in board.output
    lines = " ".join(board.stdout.split())  # the board folds its lines
    # (how many commits: each drill's end is pushed, so a run makes more than one)
    assert "Ada: last landed 3170843-11-07T09:46:40+00:00 (" in lines
    if zone == "Asia/Tokyo":  # year 10000 in Tokyo: in UTC, as it is
        assert "Bo: last landed 9999-12-31 23:59 UTC (" in lines
    else:
        assert "Bo: last landed 9999-12-31 18:59 (" in lines
    assert "flagged" not in board.output  # every commit of each file is its member's
    md = invoke(app, "team", "board", ada, "--git", "--format", "md")
    assert md.exit_code == 0 and "3170843-11-07T09:46:40+00:00" in md.stdout


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_member_file_changed_by_another_identity_is_flagged(app, team, tmp_path, monkeypatch):  # noqa: F811
    _bare, clones, _session = team
    _run_both(app, clones, tmp_path, monkeypatch)
    bo = clones["bo"]
    git(bo, "pull", "--quiet", "--rebase", "origin", "main")
    data = json.loads((bo / "Ada.json").read_text())
    data["runs"][0]["drills"][0]["status"] = "failed"  # Bo marks Ada's pass a failure
    _commit(bo, bo / "Ada.json", json.dumps(data, indent=1), email="bob@example.invalid")
    board = invoke(app, "team", "board", clones["ada"], "--git")
    assert board.exit_code == 0, board.output
    flag = ("Ada.json last changed by a commit of bob@example.invalid ("
            + git(bo, "rev-parse", "HEAD")[:8] + "), not of t@example.invalid, whose commit first added it")
    assert flag in " ".join(board.stdout.split()) and flag in board.stderr  # the board folds its lines
    assert "Bo.json" not in board.stderr  # Bo's own file: one identity
    html = invoke(app, "team", "board", clones["ada"], "--git", "--format", "html")
    assert html.exit_code == 0 and "last changed by a commit of bob@example.invalid" in html.stdout


# ------------------------------------------------------------ a session file's variants


def _session_file(path: Path, variants: str) -> Path:
    path.write_text("format: 1\ndrills: [mha-padding]\nminutes: 30\nseed: 7\nvariants:\n" + variants)
    return path


@pytest.mark.parametrize("variants, field, said", [
    ("  mha-padding: {colour: red}\n", "variants.mha-padding", "has no variant axis 'colour'"),
    ('  mha-padding: {"\\e[31mmask": pad}\n', "variants.mha-padding", "axis '\\x1b[31mmask' is not a variant name"),
    ("  mha-padding: {" + ", ".join(f"a{i}: v" for i in range(3000)) + "}\n", "variants.mha-padding",
     "3000 axes; a drill has at most 8"),
    ("  mha-padding: {mask: inverted}\n", "variants.mha-padding", "its values: keep, pad, additive"),
])
def test_a_session_files_variants_are_checked_against_the_drill(app, tmp_path, monkeypatch, variants, field, said):
    import trainer.cli.team as cli_team

    fake = FakeGrading()
    monkeypatch.setattr(cli_team, "open_grading", lambda: fake)
    session = _session_file(tmp_path / "s.yaml", variants)
    solution = tmp_path / "mine.py"
    solution.write_text("# ok\n")
    out = invoke(app, "team", "run", session, "--name", "Ada", "--file", f"mha-padding={solution}")
    assert out.exit_code == 2, out.output
    [line] = out.stderr.splitlines()
    assert line.startswith(f"drill: {session}: {field}: ") and said in line, line
    assert len(line) < 400 and "\x1b" not in out.output and "Traceback" not in out.output
    assert fake.seeds == [] and not (tmp_path / "Ada.json").exists()  # nothing graded, nothing written
    board = invoke(app, "team", "board", tmp_path, "--session", session)
    assert board.exit_code == 2 and f"{session}: {field}: " in board.stderr


def test_a_valid_session_variant_still_reads():
    from tests.trainer.team.test_team_variants import SPECS

    text = "format: 1\ndrills: [mha-padding]\nminutes: 30\nseed: 7\nvariants:\n  mha-padding: {mask: pad}\n"
    assert t.parse_session(text, SPECS).variant("mha-padding") == {"mask": "pad"}


def test_a_refused_session_file_in_the_folder_is_named_by_board_and_status(app, tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    session = _session_file(folder / "s.yaml", "  mha-padding: {colour: red}\n")
    (folder / "notes.yaml").write_text("kind: not a session\n")  # another YAML file: passed over quietly
    for command in ("board", "status"):
        out = invoke(app, "team", command, folder)
        assert out.exit_code == 0, out.output
        assert out.stderr.splitlines() == [
            f"drill: not using {session} as the session: {session}: variants.mha-padding: mha-padding has no "
            "variant axis 'colour'; its axes: mask, layout"], out.stderr
