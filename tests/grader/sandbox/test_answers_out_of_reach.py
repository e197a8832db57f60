"""The answer is not reachable from a sandbox child (tests/hostile/answers/): neither through the
grader's own package (the catalogue, then the reference it names), nor by reading the drill's files
by path (its reference .py, its debug rounds, its sample solutions). The drills' folders are
unreadable in the child where Landlock is (grader.sandbox.landlock); elsewhere these files can be read,
which `drill doctor` says."""
from __future__ import annotations

from tests.paths import TESTS

import pytest

from grader.sandbox import confine

pytestmark = [pytest.mark.slow,  # grades in sandbox children
              pytest.mark.skipif(not confine.supported_arch(), reason="the sandbox confinement is Linux x86_64 only"),
              pytest.mark.skipif(confine.landlock_abi() < 1, reason="the drills' folders are hidden by Landlock")]

ANSWERS = TESTS / "hostile" / "answers"


def _text(report) -> str:
    return " | ".join([report.message] + [c.message for c in report.cases])


@pytest.mark.parametrize("name", ["grader_package", "reference_file", "rounds_file", "samples_folder"])
def test_the_drill_content_cannot_be_read(grader, name):
    path = ANSWERS / f"{name}.py"
    report = grader.grade("outer-typo", path.read_text(), str(path), seed=3)
    text = _text(report)
    assert report.verdict != "pass", text
    assert report.verdict == "error", text
    assert "PermissionError" in text or "UnknownDrill" in text or "LookupError" in text, text
