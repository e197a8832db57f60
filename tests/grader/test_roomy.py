"""grader.roomy.call: fn's own result, arguments and errors, with room on the frame stack, so that
deep calls do not map and unmap a stack chunk each time (a page fault each) whatever depth they start at."""
from __future__ import annotations

import resource

import pytest

from grader import roomy


def _deep(n: int) -> int:
    return 0 if n == 0 else 1 + _deep(n - 1)


def _at(depth: int, fn, *args):  # noqa: ANN001, ANN002, ANN202
    return fn(*args) if depth == 0 else _at(depth - 1, fn, *args)


def _faults_of(work) -> int:  # noqa: ANN001
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    work()
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def test_call_passes_arguments_and_returns_the_result():
    assert roomy.call(lambda a, b=2: (a, b), 1, b=5) == (1, 5)
    assert roomy.call(_deep, 500) == 500


def test_call_lets_errors_through():
    def boom() -> None:
        raise KeyError("x")

    with pytest.raises(KeyError):
        roomy.call(boom)
    with pytest.raises(RecursionError):  # the recursion limit still holds inside
        roomy.call(_deep, 10**6)


def test_deep_calls_under_call_fault_no_pages_at_any_starting_depth():
    # 300 calls 40 frames deep, started at each depth from 0 to 150 frames: a plain call crosses a
    # 16 KB chunk's end at some of them (CPython 3.11+), mapping a fresh chunk, a page fault, every time
    def work(depth: int) -> None:
        for _ in range(300):
            _at(depth, _deep, 40)

    roomy.call(work, 0)  # the room's own first pages
    worst = max((_faults_of(lambda d=depth: roomy.call(work, d)), depth) for depth in range(0, 151, 3))
    assert worst[0] < 100, f"{worst[0]} page faults for 300 calls started {worst[1]} frames deep"
