"""Shape comments (grader.judge.shape_comments) against a trace, and how the verdict shows them."""
from __future__ import annotations

from grader.judge import shape_comments
from grader.report import Report
from trainer.text.verdict import plain, render

SOURCE = '''import torch


def f(Q, H):
    B, T, d = Q.shape  # (B, T, d) is not a tensor this line makes
    # (B, T, H, dh)
    q = Q.view(B, T, H, d // H).transpose(1, 2)
    s = q @ q.transpose(-2, -1)  # (B, H, T, T)
    n = s.sum()  # (2, 4, 3, 3)
    x = "# (B, T) inside a string is no comment"
    return s  # (B, H, Z, T)
'''
TRACE = {"dims": {"B": 2, "T": 3, "H": 4, "dh": 6, "d": 24}, "calls": [{"steps": [
    {"line": 7, "op": ".view", "shape": [2, 3, 4, 6], "names": "(B, T, H, dh)"},
    {"line": 7, "op": ".transpose", "shape": [2, 4, 3, 6], "names": "(B, H, T, dh)"},
    {"line": 8, "op": ".matmul", "shape": [2, 4, 3, 3], "names": "(B, H, T, T)"},
    {"line": 9, "op": ".sum", "shape": [], "names": "()"},
]}]}


def test_comments_on_and_above_a_line_are_found_and_strings_are_not():
    found = shape_comments.comments(SOURCE)
    assert [(line, says) for line, says, _ in found] == [
        (5, "(B, T, d)"), (7, "(B, T, H, dh)"), (8, "(B, H, T, T)"), (9, "(2, 4, 3, 3)"), (11, "(B, H, Z, T)")]
    assert shape_comments.comments("def f(:\n  # (B,)\n") == []  # a file that does not parse has none


def test_each_comment_is_judged_against_the_last_tensor_of_its_line():
    checked = shape_comments.check(SOURCE, TRACE)
    assert checked == [
        {"line": 5, "says": "(B, T, d)", "makes": None, "ok": None},  # no tensor made there: not judged
        {"line": 7, "says": "(B, T, H, dh)", "makes": "(B, H, T, dh)", "ok": False},
        {"line": 8, "says": "(B, H, T, T)", "makes": "(B, H, T, T)", "ok": True},
        {"line": 9, "says": "(2, 4, 3, 3)", "makes": "()", "ok": False},
        {"line": 11, "says": "(B, H, Z, T)", "makes": None, "ok": None},  # Z is no dimension of the drill
    ]
    assert shape_comments.wrong_lines(checked) == ["line 7 says (B, T, H, dh); it makes (B, H, T, dh)",
                                                   "line 9 says (2, 4, 3, 3); it makes ()"]


def test_a_wrong_comment_is_shown_after_a_pass_and_does_not_fail_it():
    report = Report("d", "pass", [], shape_comments=shape_comments.check(SOURCE, TRACE))
    text = plain(render(report, width=100))
    assert text.startswith("PASS")
    assert "shape comments: 2 of 3 wrong on the example inputs (the verdict is the code's)" in text
    assert "line 7 says (B, T, H, dh); it makes (B, H, T, dh)" in text
    assert Report.from_dict(report.to_dict()).shape_comments == report.shape_comments
    assert report.to_dict()["shape_comments"][1] == {"line": 7, "says": "(B, T, H, dh)",
                                                     "makes": "(B, H, T, dh)", "ok": False}
    right = Report("d", "pass", [], shape_comments=[{"line": 8, "says": "(B,)", "makes": "(B,)", "ok": True}])
    assert "shape comments: 1 checked on the example inputs, all right" in plain(render(right, width=100))
