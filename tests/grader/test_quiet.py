"""The grader's own logging never reaches "it printed" (grader/sandbox/quiet.py)."""
from __future__ import annotations

import logging
import warnings

import pytest

from grader.sandbox import quiet


def test_machinery_holds_back_log_records_and_warnings_then_restores(caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("torch._subclasses.fake_tensor")
    with caplog.at_level(logging.DEBUG):
        with quiet.machinery(), warnings.catch_warnings(record=True) as seen:
            log.exception("failed while attempting to run meta for %s", "aten.div.Tensor")
            warnings.warn("a fake-kernel note", UserWarning, stacklevel=1)
        assert not caplog.records and not seen
        log.error("after")
    assert [r.getMessage() for r in caplog.records] == ["after"]


@pytest.mark.slow
def test_a_shape_error_on_fake_tensors_prints_no_torch_log_line(grader) -> None:
    source = "def masked_mean(x, mask):\n    return (x * mask[..., None]).sum(1) / mask.sum(1)\n"
    report = grader.grade("masked-mean", source, seed=5)
    assert report.verdict == "error"
    assert "fake_tensor" not in report.output and "aten." not in report.output
    noisy = "import sys\n\ndef masked_mean(x, mask):\n    print('mine', file=sys.stderr)\n    return x.mean(1)\n"
    assert "mine" in grader.grade("masked-mean", noisy, seed=5).output  # the solution's own output still shows
