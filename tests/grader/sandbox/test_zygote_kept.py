"""The zygote keeps the fake-tensor plans it was sent (grader.sandbox.zygote._Kept): a plan goes whole
the first time and as its key after, and the children forked from it still run the fake checks."""
from __future__ import annotations

from typing import Any

import pytest

from grader import sandbox
from grader.sandbox import zygote
from tests.conftest import reference_source


def _sent_plans(monkeypatch: pytest.MonkeyPatch) -> list[list[Any]]:
    """The _Kept of each job in each body sent to the zygote, one list per fork."""
    seen: list[list[Any]] = []
    portable = zygote._portable

    def spy(body: Any, kept: dict) -> Any:
        sent = portable(body, kept)
        seen.append([job.fake for job in zygote._jobs(sent.kwargs)])
        return sent

    monkeypatch.setattr(zygote, "_portable", spy)
    return seen


def _fresh_grade(grader: Any, drill: str, seed: int = 5) -> Any:
    sandbox.STANDBY.discard()  # a fresh fork each time, through the zygote
    spec = grader.catalogue.get(drill)
    return grader.grade(drill, reference_source(spec), "ref.py", seed=seed, comments=False)


def _fake_ran(report: Any) -> bool:
    return report.verdict == "pass" and not any(n.get("check") in ("device", "scale") for n in report.not_checked)


def test_a_plan_is_sent_once_then_by_its_key(grader, monkeypatch):
    if sandbox.ZYGOTE.pid is None:
        pytest.skip(f"no zygote here: {sandbox.ZYGOTE.why_not}")
    seen = _sent_plans(monkeypatch)
    first = _fresh_grade(grader, "mha-padding")
    second = _fresh_grade(grader, "mha-padding")
    kept = [k for fork in seen for k in fork if isinstance(k, zygote._Kept)]
    assert len(kept) == 2 and kept[0].key == kept[1].key
    assert kept[1].plan is None  # the zygote holds it from the first fork (or from before this test)
    assert _fake_ran(first) and _fake_ran(second)
    assert first.scale is not None and second.scale is not None


def test_a_plan_the_zygote_dropped_is_sent_whole_again(grader, monkeypatch):
    if sandbox.ZYGOTE.pid is None:
        pytest.skip(f"no zygote here: {sandbox.ZYGOTE.why_not}")
    monkeypatch.setattr(zygote, "KEPT_PLANS", 1)
    seen = _sent_plans(monkeypatch)
    reports = [_fresh_grade(grader, drill) for drill in ("mha-padding", "pairwise-sqdist", "mha-padding")]
    kept = [k for fork in seen for k in fork if isinstance(k, zygote._Kept)]
    assert len(kept) == 3
    assert kept[1].plan is not None and kept[2].plan is not None  # each pushed the other out
    assert all(_fake_ran(r) for r in reports), [r.not_checked for r in reports]


def test_a_child_first_run_after_its_intermediate_process_ended_goes_on():
    """zygote._fork's grandchild waits for its re-parenting given the intermediate process's pid,
    read before the fork: on a loaded machine the grandchild can first run after that process has
    exited, and one that read its parent only then waited on a change already made (every fifty
    verdicts or so under load, a 5 s "did not finish loading")."""
    import os
    import select
    import signal
    import time

    r, w = os.pipe()
    middle = os.fork()
    if middle == 0:
        me = os.getpid()
        if os.fork() == 0:
            try:
                os.close(r)
                time.sleep(0.3)  # first runs late: the intermediate process has exited by now
                signal.alarm(3)  # a grandchild still waiting then is killed and writes nothing
                zygote._reparented(me)
                os.write(w, b"ok")
            finally:
                os._exit(0)
        os._exit(0)
    os.close(w)
    os.waitpid(middle, 0)
    try:
        ready, _, _ = select.select([r], [], [], 10)
        assert ready and os.read(r, 2) == b"ok"
    finally:
        os.close(r)
