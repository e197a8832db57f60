"""Nothing the grader runs in its own process is unbounded (issue 33): drill content run first
in a forked child stopped at a deadline in its CPU time (grader/cases/bounded.py), the
smallest-case search and `drill validate` built on it, and a built-in reference that imports
whatever the machine's load."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from grader.cases import bounded

pytestmark = pytest.mark.slow  # every test here forks

LIMIT = bounded.Limit(cpu=0.3, wall=30.0)


def _loop() -> None:
    while True:
        pass


def _raise() -> None:
    raise ValueError("no")


def test_a_job_that_never_returns_is_stopped_and_the_next_one_still_runs():
    ran = bounded.each([lambda: None, _loop, _raise, lambda: os._exit(3), lambda: None], LIMIT)
    assert [r.done for r in ran] == [True, False, False, False, True]
    assert ran[1].stopped and "did not finish within 0.3 s of CPU time" in ran[1].why
    assert ran[2] == bounded.Ran(False, "raised ValueError") and not ran[3].stopped
    assert "ended the process" in ran[3].why


def test_waiting_is_not_work_a_loaded_machine_fails_no_job():
    """A job that waits 0.6 s (as one does when the CPUs are busy elsewhere) uses no CPU time:
    a CPU limit of 0.1 s does not stop it; only the wall-clock cap stops a job that waits for ever."""
    ran = bounded.each([lambda: time.sleep(0.6)], bounded.Limit(cpu=0.1, wall=30.0))
    assert ran == [bounded.Ran(True)]
    ran = bounded.each([lambda: time.sleep(60)], bounded.Limit(cpu=0.1, wall=0.5))
    assert ran[0].stopped and "did not finish within 0.5 s" in ran[0].why


def test_the_callers_time_stops_everything_and_says_so():
    ran = bounded.each([_loop, lambda: None], bounded.Limit(cpu=30.0, wall=30.0), until=time.monotonic() + 0.3)
    assert all(r.stopped and r.late for r in ran)


# ---------------------------------------------------------------- a DRILL_PATH drill whose builder loops

TOY_SPEC = """id: loopy-sum
number: 901
title: Row sums, with a builder that never returns at N = 2
topic: broadcasting
target_seconds: 60
prompt: |
  Return the sum of each row of x (N, M): shape (N,).
dims:
  N: [2, 9]
  M: [10, 14]
example: {N: 3, M: 10}
functions:
  row_sums:
    args:
      x: {shape: [N, M], gen: "py:make_x"}
    returns: {shape: [N], dtype: float}
cases:
  - {name: fp32, dtype: float32}
tolerance:
  float32: {atol: 1.0e-5, rtol: 1.0e-4}
traps:
  - {id: plus-one, function: trap_plus_one, message: matches the row sums plus one, why: nothing is added}
hints: ["x.sum(1)"]
quiz:
  - {q: "shape of x.sum(1) for x (N, M)?", a: "(N,)"}
  - {q: "shape of x.sum(0) for x (N, M)?", a: "(M,)"}
"""

TOY_REFERENCE = """import torch


def row_sums(x):
    return x.sum(1)


def make_x(ctx, shape, dtype):
    while ctx.sizes["N"] == 2:  # never returns at the floor of N's range
        pass
    return torch.randn(shape, generator=ctx.gen).to(dtype)


def trap_plus_one(x):
    return x.sum(1) + 1
"""


def _toy(tmp_path: Path) -> Path:
    root = tmp_path / "drills"
    root.mkdir()
    (root / "loopy-sum.yaml").write_text(TOY_SPEC)
    (root / "loopy-sum.py").write_text(TOY_REFERENCE)
    return root


def _seed_drawing_n_above_2(spec) -> int:
    """A seed whose case does not itself sit at N = 2 (where building it would loop)."""
    import random

    from grader.cases.prepare import case_seed
    from grader.dims import assign_sizes

    case = spec.cases[0]
    return next(s for s in range(1, 100) if assign_sizes(spec.dims, case, random.Random(case_seed(s, case.name)))["N"] > 3)


def test_drill_check_answers_when_a_builder_never_returns_at_a_size_the_search_tries(tmp_path, monkeypatch):
    from grader.judge import smallest
    from grader.spec.parse import parse_spec
    from trainer.cli import _register, app

    root = _toy(tmp_path)
    monkeypatch.setenv("DRILL_PATH", str(root))
    monkeypatch.setattr(smallest, "BUDGET", 600.0)  # only the build's own deadline can end it: no race with the budget
    seed = _seed_drawing_n_above_2(parse_spec(root / "loopy-sum.yaml"))
    answer = tmp_path / "answer.py"
    answer.write_text("def row_sums(x):\n    return x.sum(1) + 1\n")
    _register()
    result = CliRunner().invoke(app, ["check", "loopy-sum", str(answer), "--seed", str(seed), "--json"])
    import json

    report = json.loads(result.stdout)
    assert report["verdict"] == "wrong", result.output
    found = report["smallest"]
    assert found["complete"] and found["sizes"]["N"] == 3  # N = 2 could not be built; N = 3 is the smallest
    assert {"N": 2, "M": found["sizes"]["M"]} in found["unbuilt"] or any(u["N"] == 2 for u in found["unbuilt"])


def test_validate_fails_a_builder_that_loops_at_the_floor_of_its_range(tmp_path):
    from grader.authoring.builders import builder_problems
    from grader.cases.prepare import prepare
    from grader.spec.parse import parse_spec

    root = _toy(tmp_path)
    spec = parse_spec(root / "loopy-sum.yaml")
    seed = _seed_drawing_n_above_2(spec)
    problems = builder_problems(prepare(spec, seed), lambda needle: 1)  # not the grader's cache: another toy may be there
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{root / 'loopy-sum.yaml'}:1: cases.fp32 (row_sums): built at N=2, ")
    assert "it does not finish: did not finish within 1 s of CPU time (a loop in an input builder" in problems[0]


def test_every_builtin_builder_finishes_at_every_size_the_search_may_try(grader):
    """grpo-advantages' make_rewards looped for ever at G = 1 (issue 33); now the search never asks
    for G = 1 (G's range is [3, 8]) and make_rewards cannot loop at G >= 2."""
    from grader.authoring.builders import builder_problems

    spec = grader.spec("grpo-advantages")
    assert builder_problems(grader.prepared(spec, 1), lambda needle: 1) == []


def test_make_rewards_never_loops_and_refuses_a_group_of_one():
    import importlib.util

    import torch

    from grader.cases.generators import Context
    from tests.paths import REPO

    path = REPO / "drills" / "06-einsum-and-rest" / "grpo-advantages.py"
    module_spec = importlib.util.spec_from_file_location("_grpo_ref_test", path)
    ref = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(ref)

    def ctx(P, G, style):
        return Context(torch.Generator().manual_seed(0), None, {"P": P, "G": G}, torch.float32, torch.bool,
                       {"style": style}, None, {}, {}, ref)

    ran = bounded.each([lambda: ref.make_rewards(ctx(3, 1, "continuous"), (3,), torch.float32)],
                       bounded.Limit(cpu=5.0, wall=60.0))
    assert ran == [bounded.Ran(False, "raised ValueError")]  # the old code looped for ever here
    for G in range(2, 17):
        for _ in range(20):
            assert float(ref._spread(G, torch.Generator().manual_seed(G)).std(unbiased=False)) >= 0.2
    r = ref.make_rewards(ctx(4, 2, "continuous"), (8,), torch.float32).reshape(4, 2)
    assert bool((r.std(1, unbiased=False) >= 0.2).all())


# ---------------------------------------------------------------- item 8: a built-in reference under load


def test_a_builtin_reference_has_no_wall_clock_import_deadline(monkeypatch, grader):
    """On a loaded machine a built-in drill's reference missed the 10 s import deadline and the verdict
    was `internal` (issue 33). A deadline far too small for any import still loads it."""
    import grader.cases.prepare as cases

    spec = grader.spec("grpo-advantages")
    monkeypatch.setattr(cases, "REFERENCE_IMPORT_SECONDS", 1e-6)
    for name in [n for n, m in sys.modules.items() if getattr(m, "__file__", None) == str(spec.reference_path)]:
        monkeypatch.delitem(sys.modules, name)
    module = cases.load_reference(spec)
    assert callable(module.group_advantages)


def test_a_drill_check_that_never_returns_is_internal_not_a_hang(tmp_path, monkeypatch):
    """The drill's own invariants, checker and traps judge a run in the grader's process: one that
    loops is stopped at engine.JUDGE_SECONDS of CPU time, and the verdict says whose fault it is."""
    import json

    from grader import engine
    from trainer.cli import _register, app

    root = _toy(tmp_path)
    spec = (root / "loopy-sum.yaml").read_text().replace("tolerance:", 'invariants:\n  - {kind: "py:never_done"}\ntolerance:')
    (root / "loopy-sum.yaml").write_text(spec)
    loop = '    while ctx.sizes["N"] == 2:  # never returns at the floor of N\'s range\n        pass\n'
    assert loop in TOY_REFERENCE
    reference = TOY_REFERENCE.replace(loop, "")
    (root / "loopy-sum.py").write_text(reference + "\n\ndef never_done(call, got, options):\n    while True:\n        pass\n")
    monkeypatch.setenv("DRILL_PATH", str(root))
    monkeypatch.setattr(engine, "JUDGE_SECONDS", 0.5)
    answer = tmp_path / "answer.py"
    answer.write_text("def row_sums(x):\n    return x.sum(1)\n")
    _register()
    result = CliRunner().invoke(app, ["check", "loopy-sum", str(answer), "--seed", "1", "--json"])
    report = json.loads(result.stdout)
    assert report["verdict"] == "internal", result.output
    assert "the drill's own checks (invariants, checker, traps) did not finish within 0.5 s of CPU time" in report["message"]


def test_validate_stops_a_trap_that_never_returns(tmp_path, monkeypatch):
    """`drill validate` judges the traps in its own process (grader/authoring/trusted.py): a trap
    that loops is stopped at engine.JUDGE_SECONDS of CPU time and reported, not waited for."""
    from grader import engine
    from grader.authoring.trusted import grade_trusted, trap_functions
    from grader.cases.prepare import prepare
    from grader.spec.parse import parse_spec

    root = _toy(tmp_path)
    loop = '    while ctx.sizes["N"] == 2:  # never returns at the floor of N\'s range\n        pass\n'
    looping_trap = TOY_REFERENCE.replace(loop, "").replace("    return x.sum(1) + 1\n", "    while True:\n        pass\n")
    (root / "loopy-sum.py").write_text(looping_trap)
    monkeypatch.setattr(engine, "JUDGE_SECONDS", 0.5)
    prep = prepare(parse_spec(root / "loopy-sum.yaml"), 1)  # not the grader's cache: another toy may be there
    report = grade_trusted(prep, trap_functions(prep, {"row_sums": "trap_plus_one"}), "<trap plus-one>")
    assert report.verdict == "internal"
    assert "<trap plus-one> did not finish its cases and their judging within 0.5 s of CPU time" in report.message
