"""The zygote rehearses fake-tensor runs on fake CUDA tensors of plain sizes when it starts, and each
other way a job's fake runs go (on the CPU, with symbolic sizes) once, when a job that runs that way
first asks it for a child (grader.sandbox.rehearse.ways_of, grader.sandbox.zygote._rehearse_ways)."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from grader.fake.checks import FunctionPlan, Plan
from grader.sandbox import rehearse, zygote


def _plan(*functions: FunctionPlan) -> Plan:
    return Plan(None, functions=list(functions))


def _job(plan: Any) -> Any:
    return SimpleNamespace(fake=plan)


def test_the_ways_a_plan_runs_in():
    cuda = FunctionPlan("f", device=True, scale=True)
    cpu_symbolic = FunctionPlan("g", scale=True, shape_env=True)
    idle = FunctionPlan("h", shape_env=True)  # neither the device case nor the scale one: never runs
    assert rehearse.ways_of(_plan(cuda, cpu_symbolic, idle)) == {("cuda", False), ("cpu", True)}
    assert rehearse.ways_of(_plan(idle)) == set()  # not active
    assert rehearse.ways_of(None) == set()
    assert rehearse.ways_of(Plan("fake tensors are not usable here", functions=[cuda])) == set()


def test_the_zygote_rehearses_a_new_way_once(monkeypatch: pytest.MonkeyPatch):
    asked: list[tuple] = []
    monkeypatch.setattr(rehearse, "rehearse", lambda real, gradient, fake, ways=rehearse.WAYS: asked.append(ways))
    monkeypatch.setattr(zygote, "_REHEARSED", set(rehearse.WAYS))
    monkeypatch.setattr(zygote, "_jobs", lambda kwargs: kwargs["jobs"])

    def sent(*plans: Plan) -> Any:
        return SimpleNamespace(kwargs={"jobs": [_job(p) for p in plans]})

    zygote._rehearse_ways(sent(_plan(FunctionPlan("f", device=True, scale=True))))
    assert asked == []  # rehearsed at the start
    zygote._rehearse_ways(sent(_plan(FunctionPlan("f", scale=True)), _plan(FunctionPlan("g", device=True, shape_env=True))))
    assert asked == [(("cpu", False), ("cuda", True))]
    zygote._rehearse_ways(sent(_plan(FunctionPlan("f", scale=True))))
    assert len(asked) == 1  # once each
