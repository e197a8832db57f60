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


def test_the_mapping_table_knows_each_domain_error():
    from grader.spec import SpecError, UnknownDrill
    from trainer.cli.errors import mapped
    from trainer.schedule.plans import PlanError
    from trainer.store import StoreError
    from trainer.team import TeamError

    assert mapped(StoreError("gone")) == (["gone"], 1)
    assert mapped(PlanError("bad plan")) == (["bad plan"], 1)
    assert mapped(TeamError(["a", "b"])) == (["a", "b"], 2)
    assert mapped(UnknownDrill("unknown drill id 'x'")) == (["unknown drill id 'x'"], 2)
    assert mapped(SpecError(["x.yaml: one", "x.yaml: two"])) == (["x.yaml: one", "x.yaml: two"], 2)
    assert mapped(ValueError("not ours")) is None
