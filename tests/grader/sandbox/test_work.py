"""`run_json` (the :try tracer's way into the sandbox) runs on the same supervise
loop as grading: its result comes back as one frame, and a child that runs too
long, prints too much, crashes or writes a forged frame is named in words.
The child's frames are transport's frames, byte for byte."""
from __future__ import annotations

import os
import time

import pytest

from grader import transport
from grader.sandbox import Limits, confine, run_json
from grader.sandbox.wire import RESULT_FD

pytestmark = pytest.mark.skipif(not confine.supported_arch(), reason="the sandbox is Linux x86_64 only")

QUICK = Limits(case_timeout=10.0, total_timeout=30.0)


def test_a_work_result_comes_back_as_it_was_returned():
    result, problem = run_json(lambda: {"calls": [1, 2], "name": "x"}, QUICK)
    assert problem is None
    assert result == {"calls": [1, 2], "name": "x"}


def test_an_exception_in_the_work_comes_back_described():
    def work() -> dict:
        raise ValueError("no good")

    result, problem = run_json(work, QUICK)
    assert problem is None
    assert result["error"]["type"] == "ValueError" and result["error"]["message"] == "no good"


def test_work_that_runs_too_long_is_stopped_after_the_case_timeout():
    def work() -> dict:
        time.sleep(60)
        return {}

    started = time.monotonic()
    result, problem = run_json(work, Limits(case_timeout=1.0, total_timeout=30.0))
    assert result is None and problem == "stopped after 1 s"
    assert time.monotonic() - started < 20


def test_work_that_prints_too_much_is_stopped():
    def work() -> dict:
        while True:
            print("x" * 4096)

    result, problem = run_json(work, Limits(case_timeout=10.0, total_timeout=30.0, output_bytes=64 * 1024))
    assert result is None and problem == "printed too much"


def test_a_child_that_dies_without_a_result_is_named():
    result, problem = run_json(lambda: os._exit(3), QUICK)
    assert result is None and problem == "the child ended without a result"


def test_a_forged_frame_breaks_the_channel():
    def work() -> dict:
        transport.write_all(RESULT_FD, transport.frame({"type": "result", "call": 0}))
        return {}

    result, problem = run_json(work, QUICK)
    assert result is None and problem.startswith("the result channel broke (")


def test_a_frame_is_the_bytes_write_frame_writes():
    header, blobs = {"type": "result", "call": 2, "value": {"t": "none"}}, [b"abc", b"", b"\x00" * 9]
    r, w = os.pipe()
    try:
        transport.write_frame(w, header, blobs)
        os.close(w)
        written = os.read(r, 1 << 16)
    finally:
        os.close(r)
    assert transport.frame(header, blobs) == written
    assert transport.FrameReader(1 << 20).feed(written) == [({**header, "blob_sizes": [3, 0, 9]}, blobs)]
