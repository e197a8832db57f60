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


# ------------------------------------------------------------------ the variant

VARIANT_DRILLS = TESTS / "fixtures" / "variant_drills"  # variant-toy: the inputs are the same under k=one and k=two


@pytest.fixture(scope="module")
def variant_grader():
    from grader.catalogue import load_catalogue
    from grader.engine import Grader

    return Grader(load_catalogue([VARIANT_DRILLS]))


@pytest.mark.parametrize("name", ["variant_from_argv", "variant_via_gc"])
def test_the_variant_is_learnt_only_from_the_inputs(variant_grader, monkeypatch, name):
    # as `drill check variant-toy FILE --variant k=two` run in-process: this process's argv names it
    monkeypatch.setattr("sys.argv", ["drill", "check", "variant-toy", "answer.py", "--variant", "k=two"])
    path = ANSWERS / f"{name}.py"
    report = variant_grader.grade("variant-toy", path.read_text(), str(path), seed=5, variant={"k": "two"})
    assert report.verdict == "wrong", _text(report)  # it added one: it could not tell it was graded under k=two
    assert "values differ" in _text(report)
    fair = variant_grader.grade("variant-toy", "def add_k(x):\n    return x + 2\n", "<fair>", seed=5,
                                variant={"k": "two"})
    assert fair.verdict == "pass", _text(fair)


def test_the_variant_on_the_command_line_is_out_of_reach():
    # `drill check` grades in-process: the child's ancestors' /proc/<pid>/cmdline names `--variant k=two`
    import json
    import os
    import subprocess
    import sys

    from tests.paths import REPO

    path = ANSWERS / "variant_from_argv.py"
    env = dict(os.environ, PYTHONPATH=str(REPO), OMP_NUM_THREADS="1", DRILL_PATH=str(VARIANT_DRILLS))
    proc = subprocess.run([sys.executable, "-m", "trainer", "check", "variant-toy", str(path), "--variant", "k=two",
                           "--json", "--seed", "5"], env=env, capture_output=True, text=True, timeout=300)
    report = json.loads(proc.stdout)
    reports = report if isinstance(report, list) else report.get("reports", [report])
    assert [r["verdict"] for r in reports] == ["wrong"], proc.stdout[-2000:] + proc.stderr[-2000:]


# ------------------------------------------------------------------ the shape record of `mock --narrate`

REWRITER = '''import sys


def add_one(x):
    y = x + 1  # (N, N)
    _claim()
    return y


def _claim():
    # rewrite the tracer's record from a caller's frame: every step now says (N, N)
    frame = sys._getframe()
    while frame is not None:
        for value in list(frame.f_locals.values()):
            steps = getattr(value, "steps", None)
            if isinstance(steps, list):
                for step in steps:
                    step["shape"] = [step["shape"][0]] * 2
                    step["names"] = "(N, N)"
        frame = frame.f_back
'''


def test_the_shape_record_cannot_be_rewritten_from_the_traced_code():
    from grader import trace
    from grader.catalogue import load_catalogue
    from grader.engine import Grader

    toy = Grader(load_catalogue([TESTS / "fixtures" / "drills"]))
    result = trace.trace(toy, "sandbox-toy", REWRITER, "<narrated>")
    assert result["error"] is None, result
    [comment] = result["shape_comments"]
    assert comment["line"] == 5 and comment["ok"] is False, comment  # y is (N,), whatever the code claims
    assert comment["makes"] == "(N,)", comment


# ------------------------------------------------------------------ memory

def test_the_drill_is_not_in_the_childs_memory():
    # the toy spec's trap message is in the grader's memory (its catalogue): not in the child's
    import dataclasses

    from grader.catalogue import load_catalogue
    from grader.engine import Grader

    toy = Grader(load_catalogue([TESTS / "fixtures" / "drills"]))
    limits = dataclasses.replace(toy.limits, case_timeout=20.0, total_timeout=60.0)  # reading memory is slow
    path = ANSWERS / "spec_in_memory.py"
    report = toy.grade("sandbox-toy", path.read_text(), str(path), seed=7, limits=limits)
    assert report.verdict == "wrong", _text(report)
    assert "values differ" in _text(report)


def test_the_variant_is_out_of_reach_through_the_worker():
    # the REPL's path: it asks the grader worker for a grade under the variant it serves
    import os

    from grader.worker import WorkerClient
    from tests.paths import REPO

    env = dict(os.environ, PYTHONPATH=str(REPO), OMP_NUM_THREADS="1", DRILL_PATH=str(VARIANT_DRILLS))
    with WorkerClient(env=env) as client:
        for name in ("variant_from_argv", "variant_via_gc"):
            path = ANSWERS / f"{name}.py"
            report = client.grade("variant-toy", path.read_text(), str(path), seed=5, variant={"k": "two"},
                                  timeout=300)
            assert report.verdict == "wrong", (name, _text(report))
        fair = client.grade("variant-toy", "def add_k(x):\n    return x + 2\n", "<fair>", seed=5, variant={"k": "two"},
                            timeout=300)
        assert fair.verdict == "pass", _text(fair)
