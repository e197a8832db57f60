"""Reused sandbox children (grader.sandbox.reuse, grader.sandbox.clean): a file graded in a child that
graded others before gets the verdict a fresh child gives, and a run that changes what the next one
would meet ends the child's reuse.

The State tests run in this process (forked, so nothing they change leaks); the sandbox tests grade
the hostile corpus (tests/hostile) on the toy drill, each file between two correct ones in one child.
"""
from __future__ import annotations

import os

import pytest

from grader import sandbox
from grader.sandbox import confine
from grader.sandbox.reuse import REUSE
from tests.grader.sandbox.test_hostile import CASES, DRILL, FAST, HOSTILE, SEED, SHORT, leftovers, messages
from tests.grader.sandbox.test_hostile import host, toy_grader  # noqa: F401 - the fixtures


def _in_fork(change: str) -> bool:
    """State.same() in a forked copy of this process after running `change` (Python source)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            from grader.sandbox.clean import State

            state = State()
            exec(change, {})  # noqa: S102 - the test's own snippets
            os.write(w, b"1" if state.same() else b"0")
        finally:
            os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    got = os.read(r, 1)
    os.close(r)
    assert got in (b"0", b"1"), "the forked check did not answer"
    return got == b"1"


@pytest.mark.parametrize("change", [
    "pass",
    "import torch; torch.zeros(3).sum()",
    "import colorsys",  # a module of the installed libraries, imported meanwhile
    "import torch; x = torch.randn(4)",  # the generators are put back, not compared
])
def test_a_run_that_changes_nothing_keeps_the_child(change):
    assert _in_fork(change)


@pytest.mark.parametrize("change", [
    "import torch; torch.set_default_dtype(torch.float64)",
    "import torch; torch.sum = lambda *a, **k: 0",
    "import torch; torch.Tensor.__add__ = lambda self, other: self",
    "import torch.nn.functional as F; F.softmax = None",
    "import builtins; builtins.len = lambda x: 0",
    "import sys, types; sys.modules['einops_fake'] = types.ModuleType('einops_fake')",
    "import sys; sys.modules['math'] = sys",
    "import torch; torch.set_grad_enabled(True) if not torch.is_grad_enabled() else torch.set_grad_enabled(False)",
    "import os; os.environ['DRILL_REUSE_TEST'] = '1'",
    "import os; os.open(os.devnull, os.O_RDONLY)",
    "import signal; signal.signal(signal.SIGUSR1, lambda *a: None)",
    "import sys; sys.settrace(lambda *a: None)",
    "import sys; sys.meta_path.insert(0, object())",
    "import threading, time; threading.Thread(target=time.sleep, args=(5,), daemon=True).start()",
    "import warnings; warnings.simplefilter('error')",
    "import atexit; atexit.register(print)",
    "import torch; torch.use_deterministic_algorithms(True)",
    "import grader.sandbox.child as c; c._call = print",  # the grader's own code the next file would meet
    "import grader.fake.meter as m; m.make_meter = print",
])
def test_a_run_that_changes_what_the_next_meets_ends_the_reuse(change):
    assert not _in_fork(change)


def test_the_generators_are_put_back():
    import random

    import torch

    from grader.sandbox.clean import State

    before = torch.get_rng_state(), random.getstate()
    state = State()
    a = torch.randn(3), random.random()
    state.restore_generators()
    b = torch.randn(3), random.random()
    assert torch.equal(a[0], b[0]) and a[1] == b[1]
    torch.set_rng_state(before[0])
    random.setstate(before[1])


# ------------------------------------------------------------- in the sandbox

def SANDBOX(test):  # noqa: N802, ANN001, ANN201 - the marks every sandbox test here carries
    test = pytest.mark.skipif(not confine.supported_arch(), reason="the sandbox confinement is Linux x86_64 only")(test)
    return pytest.mark.slow(test)


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[sandbox.ChildOutcome]:
    out: list[sandbox.ChildOutcome] = []
    real = sandbox.run

    def spy(job, limits, moot=None):  # noqa: ANN001, ANN202
        outcome = real(job, limits, moot)
        out.append(outcome)
        return outcome

    monkeypatch.setattr(sandbox, "run", spy)
    return out


def _grade(grader, source: str, name: str, limits=FAST):  # noqa: ANN001, ANN202
    return grader.grade(DRILL, source, name, seed=SEED, limits=limits)


def _file(name: str) -> tuple[str, str]:
    path = HOSTILE / f"{name}.py"
    return path.read_text(), str(path)


@SANDBOX
@pytest.mark.parametrize("name,verdict,words", CASES, ids=[c[0] for c in CASES])
def test_a_hostile_file_in_a_reused_child_gets_its_fresh_verdict(toy_grader, host, seen, name, verdict,  # noqa: F811
                                                                  words):
    limits = SHORT if verdict == "timeout" else FAST
    correct, correct_path = _file("correct")
    hostile, hostile_path = _file(name)
    with REUSE.enabled():
        first = _grade(toy_grader, correct, correct_path, limits)
        start = len(seen)
        report = _grade(toy_grader, hostile, hostile_path, limits)
        reused_for_it = seen[start].reused  # its own run (a smallest-case search may follow)
        after = _grade(toy_grader, correct, correct_path, limits)
        pids = {o.pid for o in seen}
    assert first.verdict == "pass" and reused_for_it  # the hostile file ran where "correct" ran first
    text = messages(report)
    assert report.verdict == verdict, text
    for word in words:
        assert word in text, f"{word!r} missing from: {text}"
    assert after.verdict == "pass", messages(after)  # whatever it did, the next file is graded as in a fresh child
    for pid in pids:
        assert leftovers(pid, 0, wait=5.0) == [], f"{name}: a reused child was left behind"


CHANGES_STATE = {
    "default_dtype": "import torch\ntorch.set_default_dtype(torch.float64)\n\ndef add_one(x):\n    return x + 1\n",
    "patched_add": "import torch\ntorch.Tensor.__add__ = lambda self, other: self * 0\n\n"
                   "def add_one(x):\n    return torch.add(x, 1)\n",
    "left_thread": "import threading, time\nthreading.Thread(target=time.sleep, args=(3,), daemon=True).start()\n\n"
                   "def add_one(x):\n    return x + 1\n",
    "left_file": "open('left-behind.txt', 'w').write('x')\n\ndef add_one(x):\n    return x + 1\n",
    "modified_input": "def add_one(x):\n    x.add_(1)\n    return x\n",
    # rebinds the grader's framer, then fails to load: no verdict to report it with, and no next file
    "tampered_then_raised": "import grader.transport as t\n_w = t.write_all\n"
                            "t.write_all = lambda fd, data: _w(fd, data)\nraise ValueError('no')\n",
}
# a file whose verdict depends on what an earlier run left: it passes only in a fresh child
NEEDS_FRESH = "import torch\n\ndef add_one(x):\n    assert torch.get_default_dtype() == torch.float32\n" \
              "    assert (x + 0).data_ptr() != x.data_ptr()\n    return torch.ones(1, dtype=x.dtype) + x\n"


@SANDBOX
@pytest.mark.parametrize("name", sorted(CHANGES_STATE))
def test_a_run_that_changes_the_child_ends_its_reuse(toy_grader, seen, name):  # noqa: F811
    with REUSE.enabled():
        _grade(toy_grader, CHANGES_STATE[name], f"<{name}>")
        changed = seen[0]
        start = len(seen)
        report = _grade(toy_grader, NEEDS_FRESH, "<needs-fresh>")
        after = seen[start]
    assert not after.reused and after.pid != changed.pid  # the child that ran it was not given the next file
    assert report.verdict == "pass", messages(report)


@SANDBOX
def test_one_child_grades_file_after_file_and_none_outlives_the_block(toy_grader, seen):  # noqa: F811
    correct, path = _file("correct")
    wrong, wrong_path = _file("wrong_dtype")
    with REUSE.enabled():
        verdicts = [_grade(toy_grader, src, p).verdict for src, p in [(correct, path), (wrong, wrong_path)] * 3]
    assert verdicts == ["pass", "wrong"] * 3
    assert len({o.pid for o in seen}) == 1 and [o.reused for o in seen] == [False] + [True] * 5
    assert leftovers(seen[0].pid, 0, wait=5.0) == []
    outside = _grade(toy_grader, correct, path)  # reuse is off again: a fresh child, finished after its run
    assert outside.verdict == "pass" and not seen[-1].reused and seen[-1].pid != seen[0].pid


def test_reuse_is_off_unless_asked():
    assert not REUSE.on




@pytest.mark.slow
def test_a_reused_child_skips_the_gradient_case_of_a_wrong_forward_and_takes_the_next_file(grader, monkeypatch):
    """A reused child is not stopped at its gradient case once a real case failed, as a fresh one is: it is
    told to skip the case (grader.sandbox.reuse.answer), ends its run whole, and grades the next file,
    whose gradient case it runs."""
    from grader import engine

    seen: list[sandbox.ChildOutcome] = []
    real = engine.sandbox.run

    def spy(job, limits, moot=None):  # noqa: ANN001
        seen.append(real(job, limits, moot))
        return seen[-1]

    monkeypatch.setattr(engine.sandbox, "run", spy)
    spec = grader.spec("mha-padding")
    reference = spec.reference_path.read_text(encoding="utf-8")
    unmasked = reference.replace("scores = _mask_scores(scores, pad_mask, mask)", "pass")
    assert unmasked != reference
    with REUSE.enabled():
        wrong = grader.grade("mha-padding", unmasked, "unmasked.py", seed=SEED, comments=False)
        right = grader.grade("mha-padding", reference, "reference.py", seed=SEED, comments=False)
    assert wrong.verdict == "wrong" and right.verdict == "pass"
    assert seen[0].gradient_skipped and seen[0].gradients is None and seen[0].finished and seen[0].reusable
    assert seen[1].reused and not seen[1].gradient_skipped and seen[1].gradients
    assert "gradient" in {r.kind for r in right.cases}


@pytest.mark.slow
def test_a_file_that_closes_the_job_pipe_breaks_its_channel_not_the_child(grader):
    """The reused child reads the grader's answer at its gradient case on its job pipe (fd 4): a file that
    closed it gets the broken channel it made, told as such, not a child dead with a traceback."""
    spec = grader.spec("mha-padding")
    reference = spec.reference_path.read_text(encoding="utf-8")
    closing = "import os\ntry:\n    os.close(4)\nexcept OSError:\n    pass\n" + reference
    with REUSE.enabled():
        report = grader.grade("mha-padding", closing, "closing.py", seed=SEED, comments=False)
        after = grader.grade("mha-padding", reference, "reference.py", seed=SEED, comments=False)
    assert report.verdict == "error" and "broke the result channel" in messages(report), messages(report)
    assert "Traceback" not in messages(report)
    assert after.verdict == "pass"
