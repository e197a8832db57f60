"""`drill team run --git`, `team board --git` and `team status` with real git: two members in
two clones of one bare repository made in tmp_path; a rejected push retried after a rebase;
the board's "landed" lines from git log; and git's failures as one clear line."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.trainer.team.test_team import FakeGrading
from trainer import team as t
from trainer.team import gitsync

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("git") is None, reason="needs git")]

KNOWN = {"gqa", "masked-mean", "outer-typo"}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def team(monkeypatch, tmp_path):
    """A bare repository holding the session file, and two members' clones of it."""
    for key, value in {"GIT_AUTHOR_NAME": "drill-test", "GIT_AUTHOR_EMAIL": "t@example.invalid",
                       "GIT_COMMITTER_NAME": "drill-test", "GIT_COMMITTER_EMAIL": "t@example.invalid",
                       "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"), "GIT_CONFIG_NOSYSTEM": "1"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("DRILL_HOME", str(tmp_path / "home"))
    (tmp_path / "gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    bare = tmp_path / "team.git"
    subprocess.run(["git", "init", "--bare", "--quiet", str(bare)], check=True)
    seed = tmp_path / "seed"
    subprocess.run(["git", "clone", "--quiet", str(bare), str(seed)], check=True, capture_output=True)
    session = t.new_session(["gqa", "masked-mean"], 30, 42, KNOWN, "Tuesday")
    from dataclasses import replace

    session = replace(session, members=("Ada", "Bo", "Cy"))
    (seed / "session.yaml").write_text(t.session_yaml(session))
    git(seed, "add", "session.yaml")
    git(seed, "commit", "--quiet", "-m", "the session")
    git(seed, "push", "--quiet", "origin", "HEAD:main")
    clones = {}
    for name in ("ada", "bo"):
        clones[name] = tmp_path / name
        subprocess.run(["git", "clone", "--quiet", str(bare), str(clones[name])], check=True, capture_output=True)
    return bare, clones, session


@pytest.fixture(scope="module")
def app():
    from trainer.cli import _register, app

    _register()
    return app


def run(app, *args):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "300"})


def _files(tmp_path: Path, name: str) -> list[str]:
    args = []
    for drill in ("gqa", "masked-mean"):
        path = tmp_path / f"{name}-{drill}.py"
        path.write_text("# ok\n")
        args += ["--file", f"{drill}={path}"]
    return args


def test_two_members_push_to_one_bare_repository_without_conflict(app, team, tmp_path, monkeypatch):
    import trainer.cli.team as cli_team

    monkeypatch.setattr(cli_team, "open_grading", FakeGrading)
    bare, clones, session = team
    # both members start from the same commit: Bo's push is rejected once (Ada pushed first), then rebased
    ada = run(app, "team", "run", clones["ada"] / "session.yaml", "--name", "Ada", "--git", *_files(tmp_path, "a"))
    assert ada.exit_code == 0, ada.output
    assert "git: pulled origin/main" in ada.stdout and "git: committed Ada.json and pushed to origin/main" in ada.stdout
    monkeypatch.setattr(gitsync, "sync", _sync_only_the_first_time(gitsync.sync))
    bo = run(app, "team", "run", clones["bo"] / "session.yaml", "--name", "Bo", "--git", *_files(tmp_path, "b"))
    assert bo.exit_code == 0, bo.output
    assert "the first push was rejected" in bo.stdout and "pulled with rebase and pushed again" in bo.stdout
    monkeypatch.undo()
    monkeypatch.setattr(cli_team, "open_grading", FakeGrading)

    log = git(bare, "log", "--format=%s", "main")
    assert "drill team: Ada ran session " + session.id in log and "drill team: Bo ran session " + session.id in log
    assert sorted(git(bare, "ls-tree", "--name-only", "main").split()) == ["Ada.json", "Bo.json", "session.yaml"]

    board = run(app, "team", "board", clones["ada"], "--git", "--format", "md")
    assert board.exit_code == 0, board.output
    assert "| Ada |" in board.stdout and "| Bo |" in board.stdout  # Ada's clone pulled Bo's file
    assert "## Landed (git log)" in board.stdout
    assert "Ada: last landed" in board.stdout and "Bo: last landed" in board.stdout

    status = run(app, "team", "status", clones["bo"], "--git")
    assert status.exit_code == 0, status.output
    assert "2/3 members the session file lists have submitted" in status.stdout
    assert "not yet    Cy" in status.stdout


def _sync_only_the_first_time(real):
    """Bo's clone does not pull before the run (as if Bo started before Ada pushed), so the
    push after it is really rejected by the bare repository and really rebased."""
    calls = []

    def sync(root):
        calls.append(root)
        if len(calls) == 1:
            return "skipped the pull (test: Bo started before Ada pushed)"
        return real(root)

    return sync


def test_git_failures_are_one_clear_line(app, team, tmp_path, monkeypatch):
    import trainer.cli.team as cli_team

    monkeypatch.setattr(cli_team, "open_grading", FakeGrading)
    _bare, clones, _session = team
    plain = tmp_path / "plain"
    plain.mkdir()
    shutil.copy(clones["ada"] / "session.yaml", plain / "session.yaml")
    out = run(app, "team", "run", plain / "session.yaml", "--name", "Ada", "--git", *_files(tmp_path, "a"))
    assert out.exit_code == 1 and "not inside a git clone" in out.stderr and "Traceback" not in out.output
    assert not (plain / "Ada.json").exists()  # refused before the run
    git(clones["ada"], "remote", "remove", "origin")
    out = run(app, "team", "board", clones["ada"], "--git")
    assert out.exit_code == 1 and "no remote" in out.stderr and "git remote add" in out.stderr
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    out = run(app, "team", "status", clones["bo"], "--git")
    assert out.exit_code == 1 and "git is not installed" in out.stderr


def test_a_push_refused_twice_says_the_results_are_committed(team, tmp_path):
    _bare, clones, _session = team
    root = clones["ada"]
    hook = Path(_bare) / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected branch' >&2\nexit 1\n")
    hook.chmod(0o755)
    (root / "Ada.json").write_text("{}\n")
    with pytest.raises(gitsync.GitError) as info:
        gitsync.publish(root, root / "Ada.json", "drill team: test")
    message = str(info.value)
    assert "refused the push twice" in message and "pre-receive hook declined" in message
    assert "committed in" in message and "git pull --rebase && git push" in message
    assert "drill team: test" in git(root, "log", "--format=%s", "-1")
    os.remove(hook)
