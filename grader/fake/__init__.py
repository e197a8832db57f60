"""Fake tensors and devices: the fake-CUDA device case, memory at scale, and a real GPU when there is one.

Torch-free at this level: the parent's channel (grader.sandbox.channel) reads FAKE_CALL
from here. The sandbox runs these checks, so nothing in this package imports grader.sandbox.
"""

FAKE_CALL = 1_000_000  # the call index the sandbox child announces for the fake-tensor runs
GRADIENT_CALL = 1_000_001  # ... and for the gradient case (grader.cases.gradient), last, after the calls and those
