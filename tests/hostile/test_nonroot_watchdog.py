"""Family "non-root watchdog": prctl(PR_SET_DUMPABLE, 0) would hide a child's
/proc/<pid>/fd from a grader that is not root, and with it the deleted files it holds.
The sandbox refuses the call (seccomp), and a child that hides anyway is stopped."""
from __future__ import annotations

from tests.paths import TESTS

import os

import pytest

from grader.sandbox import confine

pytestmark = [pytest.mark.slow,  # grades through the sandbox
              pytest.mark.skipif(not confine.supported_arch(), reason="the sandbox confinement is Linux x86_64 only")]


@pytest.fixture(scope="module")
def toy():
    from grader.catalogue import load_catalogue
    from grader.engine import Grader

    return Grader(load_catalogue([TESTS / "fixtures" / "drills"]))


def _grade(toy, name: str):
    path = TESTS / "hostile" / name
    return toy.grade("sandbox-toy", path.read_text(), str(path), seed=7)


def test_the_sandbox_refuses_to_make_the_child_non_dumpable(toy):
    report = _grade(toy, "dumpable_refused.py")  # right (x + 1) only when prctl fails
    if "seccomp" in " ".join(report.notes):
        pytest.skip("seccomp is not enforced on this machine: " + "; ".join(report.notes))
    assert report.verdict == "pass", [c.message for c in report.cases]


@pytest.mark.skipif(os.geteuid() == 0, reason="the grader runs as root here, where /proc/<pid>/fd stays readable "
                                              "whatever the child does; run the suite as a normal user to see it")
def test_240_mib_of_deleted_files_behind_a_non_dumpable_child_do_not_pass(toy):
    report = _grade(toy, "dumpable_deleted.py")
    assert report.verdict in ("output", "error"), [c.message for c in report.cases]
