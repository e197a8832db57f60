"""The grader's own logging kept out of what the solution printed.

A sandbox child's stdout and stderr are the solution's output ("it printed"). The
grader's machinery that runs in the child, the fake-tensor runs above all
(grader.fake.checks), makes torch log on its own: FakeTensorMode writes
`E... torch/_subclasses/fake_tensor.py:...] failed while attempting to run meta for
aten.div.Tensor` with a traceback to stderr whenever an op raises on fake tensors,
and symbolic shapes warn. `machinery()` holds every log record and warning back
while the grader's own work runs; the solution's real calls run outside it, so what
they print or warn is still theirs.
"""
from __future__ import annotations

import logging
import warnings
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def machinery() -> Iterator[None]:
    """No log record (any logger, any level) and no warning escapes the block."""
    before = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logging.disable(before)
