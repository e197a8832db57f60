"""Family "a solution crashes the CLI": every field of a fake-tensor report is typed and
ranged by the parent's channel (grader.sandbox.channel), and whatever a report holds ends
as the solution's `error` in one JSON object, never a traceback."""
from __future__ import annotations

from tests.paths import TESTS

import json

import pytest

from grader.fake import FAKE_CALL
from grader.sandbox import ChildOutcome, channel

FN = "pairwise_sq_dists"
RUN = {"sizes": "scale", "device": "cuda", "status": "ok", "peak": 10, "culprit": [2, 3, "float32", 24], "ops": 1,
       "outputs": [{"shape": [2, 3], "dtype": "float32", "device": "cuda:0"}], "unknown_bytes": False,
       "upper_bound": False, "fresh_bytes": 8}


def _fake_frame(runs: list) -> None:
    """Feed a run that reaches the fake-tensor report, then the report itself."""
    ch = channel.Channel(ChildOutcome(), [(0, FN, ["A", "B"])], [FN], fake=True)
    for frame in ({"type": "confined", "enforced": {}, "missing": {}}, {"type": "start", "call": -1},
                  {"type": "loaded"}, {"type": "start", "call": FAKE_CALL}, {"type": "fake", "runs": runs}):
        ch.feed(frame, [])


def test_a_well_formed_report_is_accepted():
    _fake_frame([{"function": FN, "runs": [RUN]}])


@pytest.mark.parametrize("field, value", [
    ("peak", 10**400), ("peak", -1), ("fresh_bytes", 10**400), ("ops", 1.5),
    ("culprit", [10**400, 3, "float32", 24]), ("culprit", [2, 3, "float32", 10**400]), ("culprit", "x"),
    ("outputs", [{"shape": [10**400], "dtype": "float32", "device": "cuda:0"}]), ("status", "passed"),
    ("unknown_bytes", 0), ("extra", 1),
])
def test_every_field_is_typed_and_ranged(field, value):
    with pytest.raises(channel.ProtocolError):
        _fake_frame([{"function": FN, "runs": [dict(RUN, **{field: value})]}])


def test_a_report_for_a_function_not_asked_for_is_refused():
    with pytest.raises(channel.ProtocolError):
        _fake_frame([{"function": "other", "runs": [RUN]}])


def test_done_without_the_report_the_parent_asked_for_is_refused():
    ch = channel.Channel(ChildOutcome(), [(0, FN, ["A", "B"])], [FN], fake=True)
    for frame in ({"type": "confined", "enforced": {}, "missing": {}}, {"type": "start", "call": -1},
                  {"type": "loaded"}):
        ch.feed(frame, [])
    with pytest.raises(channel.ProtocolError, match="fake-tensor report"):
        ch.feed({"type": "done"}, [])


@pytest.mark.slow  # grades a real drill through the sandbox
def test_a_400_digit_peak_is_the_solutions_error_in_one_json_object(grader):
    from typer.testing import CliRunner

    from trainer.cli import _register, app

    _register()
    result = CliRunner().invoke(app, ["check", "pairwise-sqdist", str(TESTS / "hostile" / "forge_fake_bigint.py"),
                                      "--json", "--seed", "3"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "OverflowError" not in result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "error"
    assert any("result channel" in c["message"] and "out of range" in c["message"] for c in data["cases"])
