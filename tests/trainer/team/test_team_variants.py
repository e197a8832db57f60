"""A team session may fix a drill's variant for every member (trainer.team.session); without one
it means what it always meant, id included."""
from __future__ import annotations

import pytest

from grader.spec.parse import parse_spec
from tests.paths import REPO
from trainer.team.session import TeamError, new_session, parse_session, session_yaml

SPECS = {"mha-padding": parse_spec(REPO / "drills" / "02-attention" / "mha-padding.yaml")}


def test_a_fixed_variant_goes_in_the_file_and_the_id():
    plain = new_session(["mha-padding"], 30, 7, SPECS)
    fixed = new_session(["mha-padding"], 30, 7, SPECS, variants={"mha-padding": {"mask": "pad", "layout": "btd"}})
    assert plain.variants == {} and plain.variant("mha-padding") == {}
    assert fixed.variant("mha-padding") == {"mask": "pad"}  # a default choice is no choice
    assert fixed.id != plain.id
    again = parse_session(session_yaml(fixed), SPECS)
    assert again.variants == fixed.variants and again.id == fixed.id
    assert parse_session(session_yaml(plain), SPECS).id == plain.id
    assert "variants" not in session_yaml(plain)


@pytest.mark.parametrize("variants, message", [
    ({"gqa": {"layout": "bthd"}}, "is not one of the session's drills"),
    ({"mha-padding": {"mask": "inverted"}}, "its values: keep, pad, additive"),
    ({"mha-padding": {"colour": "red"}}, "no variant axis 'colour'"),
    ({"mha-padding": "mask=pad"}, "variants must map drill ids"),
])
def test_a_bad_variant_is_named(variants, message):
    with pytest.raises(TeamError) as info:
        new_session(["mha-padding"], 30, 7, SPECS, variants=variants)
    assert any(message in p for p in info.value.problems), info.value.problems
