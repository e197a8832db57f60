"""Every drill is valid by the one definition `drill validate` runs
(grader.authoring.validation): the coverage rules hold, the reference passes its oracle
on every case, the empty skeleton fails, and each trap is rejected and named.
One test per drill, so a failure names the drill; new drills are picked up
automatically. Their sample solutions are tests/drills/test_solutions.py."""
from __future__ import annotations

import pytest

from tests.builtin import builtin_catalogue
from grader.authoring.validation import reference_problems, validate_spec
from tests.conftest import reference_source

CATALOGUE = builtin_catalogue()
SPECS = list(CATALOGUE.specs.values())
SEEDS = (11, 29)


def test_catalogue_has_no_errors():
    assert CATALOGUE.errors == []


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_drill_validates(grader, spec):
    """What `drill validate` proves about the spec, on the first seed."""
    assert validate_spec(grader, spec, SEEDS[0]) == []


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_reference_passes_on_another_seed(grader, spec):
    """validate builds the cases from one seed; the reference must pass on any other too."""
    assert reference_problems(grader, grader.prepared(spec, SEEDS[1]), reference_source(spec)) == []


@pytest.mark.parametrize("spec", [s for s in SPECS if s.example], ids=lambda s: s.id)
def test_example_sizes_are_distinct(spec):
    """:try names axes by size, so the example sizes must not collide."""
    from grader.spec import eval_expr

    sizes = dict(spec.example)
    aliases = {r.name for r in spec.dims.values() if r.derived and (r.expr or "").isidentifier()}  # Y: X, a square grid
    for rule in spec.dims.values():
        if rule.derived and rule.name not in sizes and rule.name not in aliases:
            try:
                sizes[rule.name] = eval_expr(rule.expr or "0", sizes)
            except KeyError:  # it follows a dimension the example leaves to the generator
                continue
    big = [v for v in sizes.values() if v > 1]
    assert len(big) == len(set(big)), sizes
