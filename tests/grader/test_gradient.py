"""The gradient case (grader/cases/gradient.py, grader/judge/gradient.py): solutions right in the
forward and wrong in the backward fail it with the input named; correct solutions by other routes
pass. Graded for real, through the sandbox, on masked-mean (x: (B, T, d), mask: (B, T))."""
from __future__ import annotations

import pytest

from grader.report import CaseKind
from trainer.text.verdict import plain, render

pytestmark = pytest.mark.slow  # grades through the sandbox

HEAD = "import torch\n\n\ndef masked_mean(x, mask):\n    m = mask[:, :, None].to(x.dtype)  # (B, T, 1)\n"

RIGHT = {
    "the reference's route": "    return (x * m).sum(1) / m.sum(1).clamp_min(1)\n",
    "a safe double where": ("    count = m.sum(1)\n"
                            "    safe = torch.where(count > 0, count, torch.ones_like(count))\n"
                            "    return torch.where(count > 0, (x * m).sum(1) / safe, torch.zeros_like(safe))\n"),
    "a float64 round trip": ("    s = (x.double() * m.double()).sum(1) / m.double().sum(1).clamp_min(1)\n"
                             "    return s.to(x.dtype)\n"),
}

WRONG = {  # forward right, backward broken: what the case must say
    "detach": ("    return ((x * m).sum(1) / m.sum(1).clamp_min(1)).detach()\n", "wrong", "no gradient reaches x"),
    ".data": ("    return (x.data * m).sum(1) / m.sum(1).clamp_min(1)\n", "wrong", "no gradient reaches x"),
    "no_grad": ("    with torch.no_grad():\n        out = (x * m).sum(1) / m.sum(1).clamp_min(1)\n    return out\n",
                "wrong", "no gradient reaches x"),
    "numpy round trip": ("    import numpy as np\n    a = x.numpy()\n    b = m.numpy()\n"
                         "    return torch.from_numpy((a * b).sum(1) / np.maximum(b.sum(1), 1))\n",
                         "error", "the forward raises once its inputs require grad"),
    "NaN hidden after the division": ("    return torch.nan_to_num((x * m).sum(1) / m.sum(1))\n", "wrong",
                                      "NaN in the gradient of x at"),
    "an in-place write autograd needs": ("    w = m.clone()  # a buffer to reuse\n"
                                         "    out = (x * w).sum(1) / w.sum(1).clamp_min(1)\n    w.zero_()\n    return out\n",
                                         "error", "backward fails: a tensor line 7 (out = (x * w).sum(1) / "
                                                  "w.sum(1).clamp_min(1)) saves for the backward is written "
                                                  "in place afterwards"),
    "a custom Function with a wrong backward": (
        "    return Mean.apply(x, m)\n\n\nclass Mean(torch.autograd.Function):\n"
        "    @staticmethod\n    def forward(ctx, x, m):\n        ctx.save_for_backward(m)\n"
        "        return (x * m).sum(1) / m.sum(1).clamp_min(1)\n\n"
        "    @staticmethod\n    def backward(ctx, g):\n        (m,) = ctx.saved_tensors\n"
        "        return g[:, None, :] * m, None  # forgets to divide by the count\n",
        "wrong", "the gradient of x differs at"),
}


def _gradient_cases(report):
    return [c for c in report.cases if c.kind == CaseKind.GRADIENT]


@pytest.mark.parametrize("route", sorted(RIGHT))
def test_correct_routes_pass_the_gradient_case(grader, route):
    report = grader.grade("masked-mean", HEAD + RIGHT[route], "<buffer>", seed=5)
    cases = _gradient_cases(report)
    assert report.verdict == "pass", report.to_dict()
    assert cases and all(c.verdict == "pass" for c in cases)


@pytest.mark.parametrize("mistake", sorted(WRONG))
def test_a_broken_backward_fails_the_gradient_case_with_the_input_named(grader, mistake):
    body, verdict, words = WRONG[mistake]
    report = grader.grade("masked-mean", HEAD + body, "<buffer>", seed=5)
    real = [c for c in report.cases if c.kind == CaseKind.CASE]
    assert real and all(c.verdict == "pass" for c in real), report.to_dict()  # the forward is right
    failing = [c for c in _gradient_cases(report) if c.verdict != "pass"]
    assert failing and report.verdict == verdict, report.to_dict()
    assert any(words in c.message for c in failing), [c.message for c in failing]
    assert report.to_dict()["cases"] and any(c["kind"] == "gradient" for c in report.to_dict()["cases"])


def test_the_headline_reads_like_the_device_case(grader):
    from trainer.text.verdict import plain, render

    passed = plain(render(grader.grade("masked-mean", HEAD + RIGHT["the reference's route"], "<buffer>", seed=5)))
    assert "· gradient: pass" in passed.splitlines()[0]


def test_a_function_whose_outputs_are_indices_has_no_gradient_case(grader):
    prep = grader.prepared(grader.spec("class-aware-nms"), 5)
    assert prep.gradient == []


def test_a_plan_child_that_waits_is_stopped_at_its_wall_clock_cap(monkeypatch):
    """A forked copy of a process whose threads held locks can wait for ever: it uses no CPU time, so
    only the wall-clock cap stops it, and the plan is unavailable (said as "not checked"), not awaited."""
    import time

    from grader.cases import gradient

    monkeypatch.setattr(gradient, "PLAN_WALL_SECONDS", 1.0)
    t0 = time.monotonic()
    assert gradient._in_child(lambda: time.sleep(30)) is None
    assert time.monotonic() - t0 < 10


def test_validate_holds_the_reference_gradient_to_float64_autograd_through_the_oracle(grader):
    """`drill validate` proves the reference's gradients (grader.authoring.validation.gradient_problems):
    right ones say nothing; a reference whose backward were off by a factor is named, case and input."""
    import dataclasses

    from grader.authoring.validation import gradient_problems

    prep = grader.prepared(grader.catalogue.get("rms-norm"), 1)
    assert prep.gradient and gradient_problems(prep) == []
    doubled = [dataclasses.replace(c, expected=[2 * e for e in c.expected]) for c in prep.gradient]
    problems = gradient_problems(dataclasses.replace(prep, gradient=doubled))
    assert len(problems) == sum(len(c.names) for c in prep.gradient)  # every input of every case
    assert all("the reference's gradient against float64 autograd through the oracle: the gradient of " in p
               for p in problems)
    assert any("cases.fp32-basic" in p and "the gradient of x differs" in p for p in problems)


def test_running_statistics_and_frozen_inputs_are_no_part_of_the_gradient_case(grader):
    """What no implementation trains is not judged: batch-norm's running statistics (updated under no_grad in
    torch), the reference model of DPO, PPO's old log-probs and advantages; GRPO's advantages and the
    decoding drills have no gradient case at all, with the reason said."""
    names = {d: {n for c in grader.prepared(grader.catalogue.get(d), 1).gradient for n in c.names}
             for d in ("batch-norm", "dpo-loss", "ppo-clip")}
    assert names == {"batch-norm": {"x"}, "dpo-loss": {"policy_chosen", "policy_rejected"}, "ppo-clip": {"logp"}}
    for drill in ("grpo-advantages", "top-p", "sampling-filter", "beam-step", "anchor-grid"):
        prep = grader.prepared(grader.catalogue.get(drill), 1)
        assert prep.gradient == [] and grader.catalogue.get(drill).no_gradient_case


def test_a_wrong_forward_is_not_waited_on_for_its_gradient_case(grader):
    """The child runs the gradient case last; once a real case has failed, the grader stops it there
    (grader.sandbox.supervise, `moot`): no gradient case is reported, and the report says why it did not run."""
    wrong_forward = HEAD + "    return (x * m).sum(1)  # a sum, not a mean\n"
    report = grader.grade("masked-mean", wrong_forward, "sol.py", seed=5, comments=False)
    assert report.verdict == "wrong" and _gradient_cases(report) == []
    assert {"check": "gradient", "function": "",
            "why": "a real case fails: the gradient case is run once every real case passes"} in report.not_checked
    assert "gradient: not checked" in " ".join(plain(render(report, width=100)).split())
    right = grader.grade("masked-mean", HEAD + RIGHT["the reference's route"], "sol.py", seed=5, comments=False)
    assert right.verdict == "pass" and _gradient_cases(right) and not right.not_checked


def test_a_stopped_child_still_has_what_it_printed_read(grader):
    """Stopped at its gradient case, the child's output up to there is read, as at a normal end."""
    printing = HEAD + "    print('the sum of x is', float(x.sum()))\n    return (x * m).sum(1)\n"
    report = grader.grade("masked-mean", printing, "sol.py", seed=5, comments=False)
    assert report.verdict == "wrong" and "the sum of x is" in report.output


ENDINGS = {  # the run ends during the gradient case: every real case answered, so only the case can say it
    "a crash": ("        import os, signal\n        os.kill(os.getpid(), signal.SIGSEGV)\n", "error",
                "the process crashed with"),
    "an exit": ("        import os\n        os._exit(3)\n", "error", "ended the process (exit status 3)"),
    "an endless loop": ("        while True:\n            pass\n", "timeout", "ran longer than"),
}


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_a_run_that_ends_during_the_gradient_case_is_told_on_it(grader, ending):
    from grader.sandbox import Limits

    body, verdict, words = ENDINGS[ending]
    source = HEAD + "    if x.requires_grad:\n" + body + RIGHT["the reference's route"]
    report = grader.grade("masked-mean", source, "<buffer>", seed=5,
                          limits=Limits(case_timeout=1.5, total_timeout=30.0))
    real = [c for c in report.cases if c.kind == CaseKind.CASE]
    assert real and all(c.verdict == "pass" for c in real), report.to_dict()  # the forward is right
    told = [c for c in _gradient_cases(report) if c.verdict != "pass"]
    assert report.verdict == verdict and len(told) == 1, report.to_dict()  # said once, on the case it ran
    assert told[0].message.startswith("gradient case: ") and words in told[0].message, told[0].message
    assert "gradient: " + verdict in plain(render(report, width=100)).splitlines()[0]
