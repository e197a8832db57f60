"""Family "fake-tensor checks switched off without a word": the parent asks for the fake
runs, so it knows what must come back. A missing, forged or impossible fake report is the
solution's `error`; a check that did not run says so, in a note and in `not_checked`."""
from __future__ import annotations

from tests.paths import TESTS

import pytest

pytestmark = pytest.mark.slow  # grades pairwise-sqdist (memory at scale) through the sandbox

HOSTILE = TESTS / "hostile"
DRILL = "pairwise-sqdist"
FN = "pairwise_sq_dists"


def _grade(grader, name: str):
    path = HOSTILE / name
    report = grader.grade(DRILL, path.read_text(), str(path), seed=3)
    return report, report.to_dict()


def test_its_own_result_then_an_empty_fake_report_is_an_error(grader):
    report, data = _grade(grader, "forge_fake_empty.py")
    assert report.verdict == "error"
    assert any(c["verdict"] == "error" and "fake-tensor report" in c["message"] for c in data["cases"])


def test_a_meter_patched_to_zero_is_an_impossible_report(grader):
    report, data = _grade(grader, "fake_meter_zero.py")
    assert report.verdict == "error"
    assert any("below the" in c["message"] and "its own result holds" in c["message"] for c in data["cases"])


@pytest.mark.parametrize("name, why", [
    ("fake_float.py", "reads tensor values"),  # float(t) on a fake tensor
    ("fake_str_raises.py", "its message could not be read"),  # raised under fake tensors only, __str__ raises
])
def test_where_fake_tensors_cannot_follow_the_memory_is_measured_for_real(grader, name, why):
    # both build the naive (N, M, d) difference after what stops fake tensors: measured on real CPU tensors
    # at reduced sizes instead (grader.fake.real), it is `memory`, saying how it was measured and why
    report, data = _grade(grader, name)
    assert report.verdict == "memory"
    (res,) = [c for c in data["cases"] if c["name"] == "scale"]
    assert "measured on real CPU tensors at N=250, M=187, d=64" in res["message"] and why in res["message"]
    assert data["scale"]["functions"][FN]["measured"] == "real"
    assert not [n for n in data.get("not_checked", []) if n["check"] == "scale"]


@pytest.mark.parametrize("name, why", [
    ("fake_many_ops.py", "tensor operations"),  # 3,100 cheap ops
])
def test_a_check_that_did_not_run_says_so_and_why(grader, name, why):
    report, data = _grade(grader, name)
    assert report.verdict == "pass"  # the real cases pass; the lesson is the note, never silence
    scale = [n for n in data["not_checked"] if n["check"] == "scale" and n["function"] == FN]
    assert scale and why in scale[0]["why"], data.get("not_checked")
    assert any(n.startswith("scale: not checked for pairwise_sq_dists()") and why in n for n in data["notes"])


def test_a_solution_that_passes_honestly_has_nothing_unchecked(grader):
    path = TESTS.parent / "drills" / "01-broadcasting" / "solutions" / DRILL / "ok_centered.py"
    report = grader.grade(DRILL, path.read_text(), str(path), seed=3)
    assert report.verdict == "pass" and not report.not_checked
    assert any(c.name == "scale" and c.verdict == "pass" for c in report.cases)
