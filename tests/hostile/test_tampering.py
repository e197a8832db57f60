"""Family "tampering": a solution that patches the grader's code in its own process.
Rebinding the child's frame sender is noticed and is `error`; and whatever the
tampering hides (a ban, a memory figure), wrong values never pass: the parent
compares them (README.md, "What the grader trusts")."""
from __future__ import annotations

from tests.paths import TESTS

import pytest

pytestmark = pytest.mark.slow  # grades einsum-read (einsum banned at the dispatcher) through the sandbox

HOSTILE = TESTS / "hostile"


def _grade(grader, name: str):
    path = HOSTILE / name
    return grader.grade("einsum-read", path.read_text(), str(path), seed=3)


def test_a_rebound_sender_that_drops_banned_frames_is_noticed(grader):
    report = _grade(grader, "tamper_drop_banned.py")  # also destroys the dispatcher registrations
    assert report.verdict != "pass"
    assert any(c.verdict == "error" and "replaced the grader's own code" in c.message for c in report.cases)


@pytest.mark.parametrize("name", ["tamper_drop_banned_wrong.py", "tamper_compare.py"])
def test_tampering_never_turns_wrong_values_into_a_pass(grader, name):
    report = _grade(grader, name)
    assert report.verdict != "pass"
    real = [c for c in report.cases if c.id]  # the spec's cases, compared in the parent
    assert real and all(c.verdict == "wrong" and "values differ" in c.message for c in real)
