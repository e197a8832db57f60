"""The CLI's one error edge (trainer.cli.errors), through `python -m trainer` in a
subprocess as a person meets it: each domain error is one `drill: ...` line on stderr and
its exit status, never a traceback."""
from __future__ import annotations

from tests.paths import REPO

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = REPO


def drill(args: list[str], home: Path, *, cwd: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", DRILL_HOME=str(home))
    env.pop("NO_COLOR", None)
    return subprocess.run([sys.executable, "-m", "trainer", *args], env=env, input=stdin, capture_output=True,
                          text=True, timeout=120, cwd=cwd)


def _damaged(home: Path) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    (home / "progress.db").write_bytes(b"\0garbage" * 2000)
    return home


SLOW = pytest.mark.slow  # each starts the CLI in a subprocess; two of them stay in the day-to-day run


@pytest.mark.parametrize("args", [[], ["report"], pytest.param(["list"], marks=SLOW),
                                  pytest.param(["export", "-"], marks=SLOW), pytest.param(["settings"], marks=SLOW)])
def test_a_damaged_database_is_one_line_and_exit_1(tmp_path, args):
    proc = drill(args, _damaged(tmp_path / "home"))
    assert proc.returncode == 1, (args, proc.stderr)
    assert proc.stderr.startswith("drill: ") and "is damaged" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_setting_an_unknown_plan_is_a_usage_error_as_every_bad_setting_value(tmp_path):
    proc = drill(["settings", "plan", "no-such-plan"], tmp_path / "home")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("drill: no study plan named 'no-such-plan'; available: "), proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_unknown_drill_is_a_usage_error(tmp_path):
    proc = drill(["show", "no-such-drill"], tmp_path / "home")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("drill: unknown drill id 'no-such-drill'; "), proc.stderr


@SLOW
def test_a_bad_team_session_lists_every_problem_with_exit_2(tmp_path):
    session = tmp_path / "s.yaml"
    session.write_text("drills: [no-such-drill]\nminutes: -1\nseed: 1\n")
    proc = drill(["team", "run", str(session), "--name", "ada", "--file", "x=y.py"], tmp_path / "home")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines and all(line.startswith("drill: ") for line in lines), proc.stderr
    assert "Traceback" not in proc.stderr


def test_each_domain_error_is_a_drill_error_with_its_lines_and_status():
    from grader.errors import DrillError, UnknownDrill, UsageError
    from grader.spec import SpecError
    from grader.spec.userfile import UnreadableFile
    from trainer.cli.errors import shown
    from trainer.schedule.plans import PlanError
    from trainer.store import ImportRefusedError, StoreError
    from trainer.team import TeamError

    assert shown(StoreError("gone")) == (["drill: gone"], 1)
    assert shown(ImportRefusedError("x.json", ["not ours"]))[1] == 2
    assert shown(PlanError("bad plan")) == (["drill: bad plan"], 1)
    assert shown(TeamError(["a", "b"])) == (["drill: a", "drill: b"], 2)
    assert str(TeamError(["a", "b"])) == "a; b"
    assert shown(UnknownDrill("unknown drill id 'x'")) == (["drill: unknown drill id 'x'"], 2)
    assert shown(SpecError(["x.yaml: one", "x.yaml: two"])) == (["drill: x.yaml: one", "drill: x.yaml: two"], 2)
    assert shown(UnreadableFile("/p", "is a FIFO")) == (["drill: cannot read /p: is a FIFO"], 2)
    assert shown(UsageError("give a file\x1b[31m")) == (["drill: give a file\\x1b[31m"], 2)
    assert not isinstance(ValueError("not ours"), DrillError)


def test_the_edge_prints_a_raised_usage_error_and_lets_a_bug_through():
    import typer
    from typer.testing import CliRunner

    from grader.errors import UsageError
    from trainer.cli.app import DrillGroup

    demo = typer.Typer(cls=DrillGroup)

    @demo.command()
    def usage() -> None:
        raise UsageError("no such thing; try another")

    @demo.command()
    def bug() -> None:
        raise KeyError("a bug")

    result = CliRunner().invoke(demo, ["usage"])
    assert (result.exit_code, result.stderr) == (2, "drill: no such thing; try another\n")
    result = CliRunner().invoke(demo, ["bug"])
    assert isinstance(result.exception, KeyError)  # not dressed up as a domain error


def test_unknown_drill_is_one_error_from_the_catalogue_and_the_worker_client():
    import grader.catalogue
    import grader.worker
    from grader.errors import UnknownDrill, UsageError

    assert grader.catalogue.UnknownDrill is UnknownDrill and grader.worker.UnknownDrill is UnknownDrill
    assert issubclass(UnknownDrill, UsageError) and not hasattr(grader.worker, "UnknownDrillError")
    cat = grader.catalogue.Catalogue({}, [])
    try:
        cat.get("nope")
    except UnknownDrill as exc:
        assert exc.lines == ["unknown drill id 'nope'; `drill list` shows every id"] and exc.exit_code == 2
    else:
        raise AssertionError("no UnknownDrill")


def test_an_error_is_folded_at_spaces_to_the_terminal_only_when_given_its_width():
    from grader.errors import DrillError
    from trainer.cli.errors import shown

    error = DrillError("validate: a worker process was killed while proving outer-typo (signal 9: out of memory, or "
                       "a signal sent to it alone); run drill validate --jobs 1 /tmp/quick/outer-typo.yaml to see why")
    whole, status = shown(error)
    assert len(whole) == 1 and status == 1
    folded, _ = shown(error, 60)
    assert len(folded) > 1 and all(len(line) <= 60 for line in folded)
    assert folded[0].startswith("drill: validate:") and all(line.startswith("    ") for line in folded[1:])
    assert " ".join(part.strip() for part in folded) == whole[0]  # every word kept whole, none split
