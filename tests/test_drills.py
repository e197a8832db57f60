"""Every drill, three ways: the reference passes, the skeleton fails, and each
trap is rejected and named. New drills are picked up automatically."""
from __future__ import annotations

import pytest

from grader.spec import load_catalogue
from tests.conftest import reference_source, trap_source

CATALOGUE = load_catalogue()
SPECS = list(CATALOGUE.specs.values())
TRAPS = [(s, t) for s in SPECS for t in s.traps]
SEEDS = (11, 29)


def test_catalogue_has_no_errors():
    assert CATALOGUE.errors == []


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
@pytest.mark.parametrize("seed", SEEDS)
def test_reference_passes(grader, spec, seed):
    report = grader.grade(spec.id, reference_source(spec), str(spec.reference_path), seed=seed)
    failures = [(c.name, c.function, c.verdict, c.message) for c in report.cases if c.verdict != "pass"]
    assert report.verdict == "pass", failures
    assert report.total == len(report.cases) > 0


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_skeleton_fails(grader, spec):
    report = grader.grade(spec.id, spec.skeleton(), "<skeleton>", seed=SEEDS[0])
    assert report.verdict != "pass"
    assert report.passed < report.total


@pytest.mark.parametrize("spec,trap", TRAPS, ids=lambda x: getattr(x, "id", ""))
def test_trap_rejected_and_named(grader, spec, trap):
    report = grader.grade(spec.id, trap_source(spec, trap), str(spec.reference_path), seed=SEEDS[0])
    assert report.verdict != "pass", f"trap {trap.id} passed"
    assert report.trap is not None and report.trap.id == trap.id, (
        f"trap {trap.id} was rejected but named {report.trap and report.trap.id}; "
        f"first failure: {report.first_failure and report.first_failure.message}"
    )


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_spec_minimums(spec):
    assert len(spec.quiz) >= 2
    assert spec.hints and spec.target_seconds > 0
    names = {c.name for c in spec.cases}
    assert len(names) == len(spec.cases)
    if "B" in spec.dims:
        assert any(c.dims.get("B") == 1 for c in spec.cases), "needs a batch-1 case"
    floating = any(r.dtype in ("float", "loss") for f in spec.functions for r in f.returns if r.is_tensor)
    if floating:
        assert {"float32", "float16"} <= {c.dtype for c in spec.cases}, "floating maths needs fp32 and fp16 cases"
    mask_args = [a for f in spec.functions for a in f.args if a.dtype == "mask"]
    if mask_args:
        assert {"bool", "int64", "float32"} <= {c.mask for c in spec.cases}, "masks must come as bool, int64 and float32"


@pytest.mark.parametrize("spec", [s for s in SPECS if s.example], ids=lambda s: s.id)
def test_example_sizes_are_distinct(spec):
    """:try names axes by size, so the example sizes must not collide."""
    from grader.spec import eval_expr

    sizes = dict(spec.example)
    for rule in spec.dims.values():
        if rule.derived and rule.name not in sizes:
            sizes[rule.name] = eval_expr(rule.expr or "0", sizes)
    big = [v for v in sizes.values() if v > 1]
    assert len(big) == len(set(big)), sizes
