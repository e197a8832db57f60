"""Family "in-place changes": an argument changed in place is seen even when the
solution puts its bytes back later (here, at the start of the next call)."""
from __future__ import annotations

from tests.paths import TESTS

import pytest

pytestmark = pytest.mark.slow  # grades through the sandbox


def test_an_in_place_change_undone_by_the_next_call_is_seen():
    from grader.catalogue import load_catalogue
    from grader.engine import Grader

    toy = Grader(load_catalogue([TESTS / "fixtures" / "drills"]))
    path = TESTS / "hostile" / "inplace_undone.py"
    report = toy.grade("sandbox-toy", path.read_text(), str(path), seed=7)
    assert report.verdict == "wrong"
    assert [c.name for c in report.cases if "modified its input x in place" in c.message] == \
        ["small", "small-fp16", "large"]
