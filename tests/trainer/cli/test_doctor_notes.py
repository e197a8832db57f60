"""A piece of the sandbox that this machine cannot enforce is named by `drill
doctor` and carried as a note on every `drill check --json` report. Missing
pieces are simulated: seccomp reported unavailable (so the child cannot apply
its filter) and /proc reported unreadable (so the watchdog cannot count threads)."""
from __future__ import annotations

from tests.paths import TESTS

import json

import pytest
from typer.testing import CliRunner

from grader.sandbox import confine

HERE = TESTS
TOY = HERE / "fixtures" / "drills"

pytestmark = [pytest.mark.slow,  # runs the sandbox (doctor, check)
              pytest.mark.skipif(not confine.supported_arch(), reason="the sandbox is Linux x86_64 only")]


@pytest.fixture
def no_thread_count(monkeypatch: pytest.MonkeyPatch) -> None:
    blind = confine.Confinement(enforced={"deleted-files": "counted"},
                                missing={"threads": "/proc/<pid>/stat cannot be read (simulated)"})
    monkeypatch.setattr(confine, "watched", lambda: blind)


@pytest.fixture
def no_seccomp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(confine, "seccomp_available", lambda: False)


def _app():
    from trainer.cli import _register
    from trainer.cli.app import app

    _register()
    return app


def test_doctor_names_what_it_cannot_enforce(no_thread_count, no_seccomp):
    result = CliRunner().invoke(_app(), ["doctor", "--json"])
    data = json.loads(result.stdout)
    assert result.exit_code == 1
    assert {"threads", "memfd", "processes"} <= set(data["not_enforced"])
    assert "simulated" in data["not_enforced"]["threads"]
    text = CliRunner().invoke(_app(), ["doctor"], env={"NO_COLOR": "1"}).stdout
    assert "[ NO  ] memfd" in text and "[ NO  ] threads" in text


def test_check_json_carries_each_missing_piece_as_a_note(no_thread_count, no_seccomp, monkeypatch):
    monkeypatch.setenv("DRILL_PATH", str(TOY))
    # the simulation is this process's: its children are forked here, not by the zygote (grader/sandbox/zygote.py)
    monkeypatch.setenv("DRILL_NO_ZYGOTE", "1")
    solution = HERE / "hostile" / "correct.py"
    result = CliRunner().invoke(_app(), ["check", "sandbox-toy", str(solution), "--json", "--seed", "7"])
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["verdict"] == "pass", report
    notes = " | ".join(report.get("notes", []))
    for piece in ("threads", "memfd", "processes", "zygote"):
        assert f"not enforced on this machine: {piece}" in notes, notes


def test_doctor_says_whether_the_gradient_case_can_run(monkeypatch):
    """The gradient case needs a process forked from the grader to run a backward: doctor tries it, and says
    why not when it cannot (simulated: autograd refuses in the forked process)."""
    data = json.loads(CliRunner().invoke(_app(), ["doctor", "--json"]).stdout)
    assert data["gradient_case"]["available"] is True and "backward" in data["gradient_case"]["detail"]
    import torch

    def refuse(*args, **kwargs):
        raise RuntimeError("autograd's threading in combination with fork-based multiprocessing (simulated)")

    monkeypatch.setattr(torch.autograd, "grad", refuse)
    data = json.loads(CliRunner().invoke(_app(), ["doctor", "--json"]).stdout)
    assert data["gradient_case"]["available"] is False
    assert "fork-based multiprocessing (simulated)" in data["gradient_case"]["detail"]
    assert "the gradient case cannot run here" in data["gradient_case"]["detail"]
