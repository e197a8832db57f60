"""The smallest failing case (grader/judge/smallest.py) on real drills, through the sandbox."""
from __future__ import annotations

import pytest

from grader import sandbox
from grader.authoring.samples import folder
from grader.report import CaseKind
from trainer.text.verdict import plain, render

pytestmark = pytest.mark.slow


def _sample(grader, drill: str, name: str) -> str:
    return (folder(grader.spec(drill)) / name).read_text(encoding="utf-8")


def test_gqa_with_tiled_kv_heads_shrinks_to_distinct_sizes_and_says_what_does_not_matter(grader):
    source = _sample(grader, "gqa", "bad_repeat.py")  # k.repeat(1, G, 1, 1) instead of repeat_interleave
    report = grader.grade("gqa", source, seed=5)
    shown = report.shown_case
    assert report.verdict == "wrong" and shown is not None and shown.kind == CaseKind.CASE
    sandbox.prefork()  # as the worker does after answering: a child waits for the next submission
    waiting = sandbox.STANDBY._waiting
    found = grader.smallest(report, source, budget=60)
    assert sandbox.STANDBY._waiting is waiting  # the search kept it: the next verdict stays warm
    sandbox.STANDBY.discard()
    assert found is not None and found.complete and found.case == shown.name
    sizes = found.sizes
    assert sizes["H"] == sizes["H_kv"] * sizes["G"]  # derived dimensions follow their formula
    assert min(sizes.values()) >= 2 and len(set(sizes.values())) == len(sizes)  # at least 2, each its own
    assert all(sizes[d] <= shown.dims[d] for d in sizes) and sum(sizes.values()) < sum(shown.dims.values())
    rules = grader.spec("gqa").dims  # every size within the spec's ranges (issue 33): B in [2, 5] has no free size
    assert all(rules[d].low <= n <= rules[d].high for d, n in sizes.items() if not rules[d].derived)
    assert found.free == ["T", "S", "dh"]  # the head layout is the bug: the other sizes do not matter
    assert found.passes == {}  # H_kv and G range from 2: size 1 is not theirs to try
    text = plain(render(report.__class__(**{**report.__dict__, "smallest": found}), width=200))
    assert "smallest failing: " + " ".join(f"{k}={v}" for k, v in sizes.items()) in text
    assert "it fails at every size tried of T, S and dh" in text and "passes when" not in text


def test_nothing_is_searched_for_a_pass_or_a_verdict_sizes_cannot_explain(grader):
    ok = _sample(grader, "gqa", "ok_repeat_interleave.py")
    assert grader.smallest(grader.grade("gqa", ok, seed=5), ok) is None
    banned = "import torch.nn.functional as F\n\ndef gqa_attention(q, k, v):\n" \
             "    return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)\n"
    report = grader.grade("gqa", banned, seed=5)
    assert report.verdict == "banned" and grader.smallest(report, banned) is None
