"""grader.trace, the child side of :try: shapes and lines only, from the person's file."""
from __future__ import annotations

import json

from grader.trace import trace


def test_records_each_op_on_the_persons_lines(grader):
    src = ("import torch\n\n"
           "def masked_mean(x, mask):\n"
           "    m = mask.float()[..., None]\n"
           "    total = (x * m).sum(1)\n"
           "    for _ in range(3):\n"
           "        n = m.sum(1).clamp(min=1)\n"
           "    return (total / n).to(x.dtype)\n")
    out = trace(grader, "masked-mean", src)
    json.dumps(out)  # plain data only
    assert out["error"] is None and out["dims"] == {"B": 2, "T": 3, "d": 4}
    [call] = out["calls"]
    assert call["function"] == "masked_mean"
    assert [a["names"] for a in call["args"]] == ["(B, T, d)", "(B, T)"]
    steps = {(s["line"], s["op"]): s for s in call["steps"]}
    assert steps[(4, "[...]")]["names"] == "(B, T, 1)"
    assert steps[(5, ".mul")]["names"] == "(B, T, d)"
    assert steps[(5, ".sum")]["names"] == "(B, d)"
    assert steps[(7, ".clamp")]["count"] == 3  # a loop shows its pattern once, with a count
    assert steps[(7, ".clamp")]["text"] == "n = m.sum(1).clamp(min=1)"
    assert call["returns"] == [{"name": "return", "shape": [2, 4], "names": "(B, d)", "dtype": "float32"}]
    assert all(s["line"] >= 4 for s in call["steps"])  # nothing from torch's own files


def test_an_error_names_its_line_and_keeps_the_steps_before_it(grader):
    src = "def masked_mean(x, mask):\n    y = x.sum(-1)\n    return y @ mask\n"
    [call] = trace(grader, "masked-mean", src)["calls"]
    assert [s["op"] for s in call["steps"]] == [".sum"]
    assert "line 3" in call["error"] and "return y @ mask" in call["error"]


def test_a_broken_file_and_an_endless_loop_come_back_as_errors(grader):
    assert "SyntaxError" in trace(grader, "masked-mean", "def masked_mean(:\n")["error"]
    out = trace(grader, "masked-mean", "def masked_mean(x, mask):\n    while True:\n        pass\n", timeout=1.0)
    assert out["error"] and "did not finish" in out["error"]
