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
    assert "git: pulled origin/main" in ada.stdout and "git: " in ada.stdout and "drill: git" not in ada.output
    monkeypatch.setattr(gitsync, "sync", _sync_only_the_first_time(gitsync.sync))
    pushes = _count_rejected_pushes(monkeypatch)
    bo = run(app, "team", "run", clones["bo"] / "session.yaml", "--name", "Bo", "--git", *_files(tmp_path, "b"))
    assert bo.exit_code == 0, bo.output
    assert pushes and pushes[0] == "rejected"  # Bo's first push after a drill: rejected, rebased, pushed again
    assert "drill: git" not in bo.output
    monkeypatch.undo()
    monkeypatch.setattr(cli_team, "open_grading", FakeGrading)

    log = git(bare, "log", "--format=%s", "main")
    # every drill's end is pushed ("... solved so far"), and the run's end when the file changed after it
    assert f"drill team: Ada in session {session.id}, 1 solved so far" in log
    assert f"drill team: Bo in session {session.id}, 2 solved so far" in log
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


def _count_rejected_pushes(monkeypatch) -> list[str]:
    """What each push of publish() came to, first to last ("rejected" or "ok")."""
    seen: list[str] = []
    real = gitsync._git

    def spy(root, *args, check=True):
        done = real(root, *args, check=check)
        if args[:1] == ("push",):
            seen.append("rejected" if gitsync._rejected(done) else "ok")
        return done

    monkeypatch.setattr(gitsync, "_git", spy)
    return seen


class Killed(BaseException):
    """The terminal killed (-9): nothing after it runs, no handler sees it."""


def test_a_member_killed_right_after_a_pass_is_on_the_board_of_another_clone(app, team, tmp_path, monkeypatch):
    """Three members over one bare repository. Cy passes the first drill in the REPL and the process is
    killed at once (before leaving the drill, before the run's end): the pass was committed and pushed
    when it happened, so the board Ada builds in her own clone ranks it."""
    import trainer.cli.team as cli_team
    from trainer.repl.app import DrillOutcome

    bare, clones, session = team
    clones["cy"] = tmp_path / "cy"
    subprocess.run(["git", "clone", "--quiet", str(bare), str(clones["cy"])], check=True, capture_output=True)
    monkeypatch.setattr(cli_team, "open_grading", FakeGrading)
    assert run(app, "team", "run", clones["ada"] / "session.yaml", "--name", "Ada", "--git",
               *_files(tmp_path, "a")).exit_code == 0
    assert run(app, "team", "run", clones["bo"] / "session.yaml", "--name", "Bo", "--git",
               *_files(tmp_path, "b")).exit_code == 0

    def pass_then_killed(spec, grading, options, clk):
        outcome = DrillOutcome(spec.id, "passed", verdict="pass", seconds=42, attempts=1, hints=0, traps=[])
        options.on_pass(outcome)
        raise Killed

    monkeypatch.setattr(cli_team, "has_terminal", lambda: True)
    monkeypatch.setattr(cli_team, "run_drill", pass_then_killed)
    with pytest.raises(Killed):
        CliRunner().invoke(app, ["team", "run", str(clones["cy"] / "session.yaml"), "--name", "Cy", "--git"],
                           catch_exceptions=False)
    assert "Cy.json" in git(bare, "ls-tree", "--name-only", "main").split()
    board = run(app, "team", "board", clones["ada"], "--git", "--format", "md")
    assert board.exit_code == 0, board.output
    cy = next(line for line in board.stdout.splitlines() if "| Cy |" in line)
    assert "| Cy | 1/2 | 0:42 |" in cy, cy
    status = run(app, "team", "status", clones["ada"], "--git")
    assert "3/3 members the session file lists have submitted" in status.stdout, status.output


def test_a_result_written_but_not_pushed_is_said_and_landed_with_push(app, team, tmp_path, monkeypatch):
    """Bo's run was killed after the file was written and before git ran (or the push failed): Bo's
    own status says so and names the command; --push lands it and Ada's board then ranks Bo."""
    import trainer.cli.team as cli_team

    bare, clones, session = team
    monkeypatch.setattr(cli_team, "open_grading", FakeGrading)
    monkeypatch.setattr(gitsync, "publish", lambda root, path, message: (_ for _ in ()).throw(
        gitsync.GitError("the remote is unreachable (test)")))
    bo = run(app, "team", "run", clones["bo"] / "session.yaml", "--name", "Bo", "--git", *_files(tmp_path, "b"))
    assert "not pushed yet (the remote is unreachable (test))" in bo.stderr
    monkeypatch.undo()
    monkeypatch.setattr(cli_team, "open_grading", FakeGrading)
    assert "Bo.json" not in git(bare, "ls-tree", "--name-only", "main")

    status = run(app, "team", "status", clones["bo"], "--git")
    said = " ".join(status.stderr.split())
    assert "Bo.json is not committed yet, so only this clone counts it" in said
    assert f"run `drill team status {clones['bo']} --git --push` to land it" in said
    board = run(app, "team", "board", clones["ada"], "--git", "--format", "md")
    assert "| Bo |" not in board.stdout  # not on the team's board yet

    pushed = run(app, "team", "status", clones["bo"], "--git", "--push")
    assert pushed.exit_code == 0, pushed.output
    assert "Bo.json" in git(bare, "ls-tree", "--name-only", "main").split()
    again = run(app, "team", "status", clones["bo"], "--git")
    assert "not committed" not in again.stderr and "not pushed" not in again.stderr
    board = run(app, "team", "board", clones["ada"], "--git", "--format", "md")
    assert "| Bo |" in board.stdout


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
