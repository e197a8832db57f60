"""In a sandbox child the drill's own modules are gone: the reference and the oracle file, imported
by the grader under private names (grader.cases.prepare.DRILL_MODULES), are dropped from sys.modules
and emptied before the solution runs (grader.sandbox.prepare.forget_references)."""
from __future__ import annotations

import pytest

from grader.sandbox import confine

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not confine.supported_arch(), reason="the sandbox confinement is Linux x86_64 only")]

# pairwise-sqdist has both a reference and an oracle file (drills/01-broadcasting/pairwise-sqdist.oracle.py)
SEEKER = '''import sys
import torch

FOUND = sorted(k for k in sys.modules if k.startswith(("_drill_ref_", "_drill_oracle_")))


def pairwise_sq_dists(X, Y):
    for name in FOUND:
        module = sys.modules.get(name)
        for fn in ("cdist_squared", "pairwise_sq_dists"):
            if module is not None and callable(getattr(module, fn, None)):
                return getattr(module, fn)(X, Y).to(X.dtype)
    raise LookupError(f"no drill module to borrow from: {FOUND}")
'''


def test_neither_the_reference_nor_the_oracle_module_can_be_borrowed(grader):
    report = grader.grade("pairwise-sqdist", SEEKER, "<seeker>")
    assert report.verdict == "error", report.verdict
    text = " | ".join([report.message] + [c.message for c in report.cases])
    assert "no drill module to borrow from: []" in text, text
