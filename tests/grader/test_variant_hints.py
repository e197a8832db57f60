"""A variant value's `hints:` fragments (grader.spec.variants): applied under the value, checked to
occur in some hint, and the default's hints left as written."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.spec import SpecError
from grader.spec.parse import parse_spec
from tests.paths import REPO

GRPO = REPO / "drills" / "06-einsum-and-rest" / "grpo-advantages.yaml"


def test_hints_follow_the_value_and_the_default_keeps_its_own():
    spec = parse_spec(GRPO)
    none = spec.under({"scale": "none"})
    assert any("adv = r - mean" in h for h in none.hints)
    assert not any("std + eps" in h for h in none.hints)
    assert spec.under({}).hints == spec.hints and any("std + eps" in h for h in spec.hints)
    assert len(none.hints) == len(spec.hints)


def test_a_hint_fragment_that_is_in_no_hint_is_a_problem(tmp_path: Path):
    folder = tmp_path / "06-einsum-and-rest"
    folder.mkdir()
    text = GRPO.read_text()
    old = '          - from: "adv = (r - mean) / (std + eps), then"'
    assert old in text
    (folder / GRPO.name).write_text(text.replace(old, '          - from: "adv = (r - mean) / (std - eps), then"'))
    shutil.copy(GRPO.with_suffix(".py"), folder / GRPO.with_suffix(".py").name)
    with pytest.raises(SpecError) as info:
        parse_spec(folder / GRPO.name)
    assert any("variants.scale.values.none.hints[1].from: " in p and "is not in any hint" in p
               for p in info.value.problems), info.value.problems
