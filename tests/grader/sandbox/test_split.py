"""A job split in two standby children (grader.sandbox.split): the real cases and the gradient case
in one, the fake-tensor runs in the other. What the two give, merged, is what one child would have
given: the same verdict, the same fake-tensor report, and a side child stopped in its fake-tensor
runs is the run stopped there. Nothing of either child is left behind."""
from __future__ import annotations

import dataclasses
import time

import pytest

from grader import sandbox
from grader.fake import FAKE_CALL
from grader.sandbox import Limits, confine, split
from grader.sandbox.limits import ChildOutcome

DRILL = "mha-padding"
SEED = 11
LIMITS = Limits(case_timeout=2.0, total_timeout=30.0)

REFERENCE_LIKE = '''
import math
import torch


def multi_head_attention(Q, K, V, pad_mask, H):
    B, T, d = Q.shape
    S = K.shape[1]
    q = Q.view(B, T, H, d // H).transpose(1, 2)
    k = K.view(B, S, H, d // H).transpose(1, 2)
    v = V.view(B, S, H, d // H).transpose(1, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d // H)
    scores = scores.masked_fill(~pad_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    return (scores.softmax(-1) @ v).transpose(1, 2).reshape(B, T, d)
'''

# right on every real case; at the scale sizes (fake tensors, T far larger than any case) it never returns: the
# fake-tensor runs are stopped at their deadline, and the device and scale cases are not checked (fake tensors
# can make code slow), in either way of running
ENDLESS_AT_SCALE = REFERENCE_LIKE.replace("    B, T, d = Q.shape\n", "    B, T, d = Q.shape\n    while T > 512:\n        pass\n")
# right on every real case; at the scale sizes it calls a banned function
BANNED_AT_SCALE = REFERENCE_LIKE.replace(
    "    B, T, d = Q.shape\n",
    "    B, T, d = Q.shape\n    if T > 512:\n        return torch.nn.functional.scaled_dot_product_attention(Q, K, V)\n")


def _outcome(**fields) -> ChildOutcome:
    return ChildOutcome(**fields)


def test_a_main_child_that_never_ran_its_cases_drops_the_sides_report():
    side = _outcome(finished=True, fake=[{"function": "f", "runs": []}])
    for main in (_outcome(load_error={"type": "SyntaxError", "message": "x"}, finished=True),
                 _outcome(timeout_call=2, running_call=2),
                 _outcome(signal=11, running_call=0),
                 _outcome(refused=True, finished=True)):
        merged = split.merge(main, side)
        assert merged.fake is None and not split.reached_fake(main)


def test_a_finished_main_child_takes_the_sides_report_banned_call_and_replaced_names():
    main = _outcome(finished=True, gradients={0: {"status": "ok"}}, tampered=["a"], memory_peak=5)
    side = _outcome(finished=True, fake=[{"function": "f", "runs": []}], fake_failed="", banned="torch.x",
                    tampered=["a", "b"], memory_peak=9)
    merged = split.merge(main, side)
    assert merged.fake == side.fake and merged.banned == "torch.x" and merged.tampered == ["a", "b"]
    assert merged.finished and merged.gradients == {0: {"status": "ok"}} and merged.memory_peak == 9


def test_a_side_child_stopped_in_its_fake_runs_stops_the_run_there_before_the_gradient_case():
    main = _outcome(finished=True, gradients={0: {"status": "ok"}})
    side = _outcome(timeout_call=FAKE_CALL, timeout_seconds=2.0, running_call=FAKE_CALL)
    merged = split.merge(main, side)
    assert merged.timeout_call == FAKE_CALL and merged.timeout_seconds == 2.0 and not merged.finished
    assert merged.gradients is None and merged.running_call == FAKE_CALL
    broken = split.merge(_outcome(finished=True), _outcome(protocol_error="a forged frame"))
    assert broken.protocol_error == "a forged frame" and not broken.finished


def test_only_a_job_with_fake_runs_and_cases_is_split(monkeypatch: pytest.MonkeyPatch):
    from grader.sandbox.limits import Job

    monkeypatch.setattr(split, "cpus", lambda: 2)
    job = Job(source="", filename="f.py", functions=["f"], calls=[(0, "f", [], [])], fake=object())
    main, side = split.parts(job)
    assert main.fake is None and main.calls == job.calls
    assert side.calls == [] and side.gradient == [] and side.fake is job.fake
    assert split.parts(dataclasses.replace(job, fake=None)) == [dataclasses.replace(job, fake=None)]
    monkeypatch.setattr(split, "cpus", lambda: 1)
    assert split.parts(job) == [job]


def _grade_both_ways(grader, source: str, monkeypatch: pytest.MonkeyPatch):
    """(report, outcome) from a split standby pair, then from one child; and the pair's pids."""
    from grader import engine

    seen: list[ChildOutcome] = []
    real = engine.sandbox.run

    def spy(job, limits, moot=None):  # noqa: ANN001
        seen.append(real(job, limits, moot))
        return seen[-1]

    monkeypatch.setattr(engine.sandbox, "run", spy)
    monkeypatch.setattr(split, "cpus", lambda: 2)
    grader.grade(DRILL, source, "solution.py", seed=SEED, limits=LIMITS, comments=False)  # the job remembered
    assert sandbox.prefork()
    pids = [w.child.pid for w in sandbox.STANDBY._waiting]
    assert len(pids) == 2, "the job is split in two standby children"
    split_report = grader.grade(DRILL, source, "solution.py", seed=SEED, limits=LIMITS, comments=False)
    split_outcome = seen[-1]
    assert split_outcome.from_standby
    monkeypatch.setattr(split, "cpus", lambda: 1)
    sandbox.STANDBY.discard()
    one_report = grader.grade(DRILL, source, "solution.py", seed=SEED, limits=LIMITS, comments=False)
    return (split_report, split_outcome), (one_report, seen[-1]), pids


def _gone(pids: list[int]) -> bool:
    from pathlib import Path

    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{pid}").exists() for pid in pids):
            return True
        time.sleep(0.05)
    return False


pytestmark_sandbox = pytest.mark.skipif(not confine.supported_arch(), reason="the sandbox is Linux x86_64 only")


@pytest.mark.slow
@pytestmark_sandbox
@pytest.mark.parametrize("name", ["reference", "device", "endless at scale", "banned at scale"])
def test_a_split_run_judges_as_one_child_does(grader, monkeypatch: pytest.MonkeyPatch, name: str):
    spec = grader.spec(DRILL)
    source = {
        "reference": spec.reference_path.read_text(encoding="utf-8"),
        "device": (spec.path.parent / "solutions" / DRILL / "bad_device_cpu_bias.py").read_text(encoding="utf-8"),
        "endless at scale": ENDLESS_AT_SCALE,
        "banned at scale": BANNED_AT_SCALE,
    }[name]
    (split_report, split_outcome), (one_report, one_outcome), pids = _grade_both_ways(grader, source, monkeypatch)
    try:
        assert split_report.verdict == one_report.verdict, (split_report.message, one_report.message)
        assert split_report.message == one_report.message
        assert split_report.to_dict().get("not_checked") == one_report.to_dict().get("not_checked")
        assert split_outcome.timeout_call == one_outcome.timeout_call
        assert split_outcome.banned == one_outcome.banned
        assert (split_outcome.gradients is None) == (one_outcome.gradients is None)
        assert [f["function"] for f in split_outcome.fake or []] == [f["function"] for f in one_outcome.fake or []]
        expected = {"reference": "pass", "device": "error", "endless at scale": "pass", "banned at scale": "banned"}
        assert split_report.verdict == expected[name], split_report.message
        if name == "endless at scale":
            assert split_outcome.timeout_call == FAKE_CALL
            assert {c["check"] for c in split_report.to_dict().get("not_checked", [])} >= {"device", "scale"}
        assert _gone(pids), "a child of the split pair was left behind"
    finally:
        sandbox.STANDBY.discard()
