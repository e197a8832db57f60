"""The parent's strict reading of the result channel (grader.sandbox.channel) and the
shared call arguments (grader.sandbox.inputs), without a sandbox around them."""
from __future__ import annotations

import json
import struct

import pytest
import torch

from grader import transport
from grader.sandbox import channel
from grader.sandbox import inputs
from grader.sandbox import ChildOutcome

CALLS = [(0, "f", ["x"]), (1, "f", ["x"]), (2, "g", ["y"])]


def _feed(frames: list[dict], blobs: dict[int, list[bytes]] | None = None) -> ChildOutcome:
    outcome = ChildOutcome()
    ch = channel.Channel(outcome, CALLS, ["f", "g"])
    for i, frame in enumerate(frames):
        ch.feed(frame, (blobs or {}).get(i, []))
    return outcome


def _value(v) -> tuple[dict, list[bytes]]:
    blobs: list[bytes] = []
    return transport.encode(v, blobs), blobs


OK = {"type": "confined", "enforced": {"processes": "seccomp"}, "missing": {}}


def test_a_whole_run_in_order_is_accepted():
    desc, blobs = _value(torch.ones(2))
    frames = [OK, {"type": "start", "call": -1}, {"type": "loaded"}, {"type": "missing", "names": ["g"]},
              {"type": "start", "call": 0}, {"type": "banned", "name": "torch.einsum"},
              {"type": "result", "call": 0, "status": "ok", "value": desc, "modified": [], "seconds": 0.1},
              {"type": "start", "call": 1},
              {"type": "result", "call": 1, "status": "raised", "exc": {"type": "ValueError", "message": "m",
                                                                        "line": 3, "mro": ["ValueError"]}},
              {"type": "done"}]
    outcome = _feed(frames, {6: blobs})
    assert outcome.finished and outcome.missing == ["g"] and outcome.banned == "torch.einsum"
    assert torch.equal(outcome.calls[0].value, torch.ones(2)) and outcome.calls[1].status == "raised"


@pytest.mark.parametrize("frames,words", [
    ([{"type": "start", "call": -1}], "out of sequence"),  # no confinement report first
    ([OK, {"type": "start", "call": -1}, {"type": "refused"}], "out of sequence"),  # refused after the start
    ([OK, {"type": "start", "call": -1}, {"type": "loaded"}, {"type": "start", "call": 0}, {"type": "done"}],
     "out of sequence"),  # done in the middle of a call
    ([OK, {"type": "start", "call": -1}, {"type": "loaded"}, {"type": "start", "call": 0}, OK],
     "out of sequence"),  # a second confinement report
    ([OK, {"type": "start", "call": -1}, {"type": "loaded"}, {"type": "start", "call": 1},
      {"type": "result", "call": 1, "status": "raised", "exc": {}}, {"type": "start", "call": 0}],
     "out of order"),  # a call started again, backwards
    ([OK, {"type": "start", "call": -1}, {"type": "loaded"}, {"type": "start", "call": 0},
      {"type": "result", "call": 2, "status": "raised", "exc": {}}], "while call 0 runs"),
    ([OK, {"type": "start", "call": "0"}], "not an integer"),
    ([OK, {"type": "start", "call": -1}, {"type": "load_error", "exc": {"type": ["x"]}}], "string"),
    ([OK, {"type": "start", "call": -1}, {"type": "load_error", "exc": {"line": "two"}}], "not an integer"),
    ([OK, {"type": "start", "call": -1}, {"type": "loaded", "extra": 1}], "unknown fields"),
    ([OK, {"type": "start", "call": -1}, {"type": "loaded"}, {"type": "missing", "names": ["os"]}],
     "does not ask for"),
    ([{"type": "confined", "enforced": [], "missing": {}}], "small object"),
    (["not an object"], "not an object"),
    ([OK, {"type": 7}], "without a type"),
])
def test_a_frame_out_of_place_or_ill_typed_is_a_protocol_error(frames, words):
    with pytest.raises(channel.ProtocolError, match=words):
        _feed(frames)


@pytest.mark.parametrize("value", [
    {"t": "tensor", "dtype": "float32", "shape": [-1, -4], "blob": 0},
    {"t": "tensor", "dtype": "object", "shape": [1], "blob": 0},
    {"t": "tensor", "dtype": "float32", "shape": [1], "blob": 5},
    {"t": "tuple", "items": "abc"},
    {"t": "bool", "v": "yes"},
    {"t": "weird"},
    json.loads('{"t": "tuple", "items": [' * 20 + '{"t": "none"}' + ']}' * 20),
])
def test_an_ill_typed_or_too_deep_value_is_a_protocol_error(value):
    frames = [OK, {"type": "start", "call": -1}, {"type": "loaded"}, {"type": "start", "call": 0},
              {"type": "result", "call": 0, "status": "ok", "value": value, "modified": [], "seconds": 0.0}]
    with pytest.raises(channel.ProtocolError):
        _feed(frames, {4: [b"\0" * 16]})


def test_a_header_nested_too_deeply_is_refused_by_the_reader():
    head = b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(ValueError, match="nested too deeply"):
        transport.FrameReader(1 << 30).feed(struct.pack(">I", len(head)) + head)


def test_arguments_live_in_shared_memory_and_the_parent_sees_writes():
    x = torch.arange(6.0).reshape(2, 3).t()  # not contiguous: its strides are kept
    calls = [(0, "f", [x, [torch.ones(2, dtype=torch.bool), 3], torch.ones(2).to_sparse()], ["x", "m", "s"])]
    layout = inputs.Layout(calls)
    arena = layout.arena()
    args = layout.arguments(arena)[0]
    assert torch.equal(args[0], x) and args[0].stride() == x.stride() and args[1][1] == 3
    assert args[2].layout == torch.sparse_coo  # not plain CPU memory: a private copy
    assert layout.modified(arena, 0) == []
    args[1][0].logical_not_()
    assert layout.modified(arena, 0) == ["m"]
    assert torch.equal(x, torch.arange(6.0).reshape(2, 3).t())  # the originals never change
