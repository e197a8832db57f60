"""Shape comments (grader.judge.shape_comments) against a trace, and how the verdict shows them."""
from __future__ import annotations

import sys

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


def test_a_dimension_of_thousands_of_digits_is_read_as_a_wrong_size_not_a_crash():
    long = "9" * 5000  # int() refuses more than 4300 digits (a ValueError before the fix)
    source = f"import torch\n\n\ndef f(Q, H):\n    s = Q.sum(-1)  # (B, {long})\n    return s\n"
    found = shape_comments.comments(source)
    assert [line for line, _, _ in found] == [5]
    checked = shape_comments.check(source, {"dims": {"B": 2}, "calls": [{"steps": [
        {"line": 5, "op": ".sum", "shape": [2, 3], "names": "(B, 3)"}]}]})
    assert checked == [{"line": 5, "says": "(B, 999999...(5000 digits))", "makes": "(B, 3)", "ok": False}]
    assert len(shape_comments.wrong_lines(checked)[0]) < 80
    padded = f"def f(Q):\n    return Q.sum(-1)  # (B, {'0' * 5000}3)\n"
    assert shape_comments.check(padded, {"dims": {"B": 2}, "calls": [{"steps": [
        {"line": 2, "op": ".sum", "shape": [2, 3], "names": "(B, 3)"}]}]})[0]["ok"] is True  # zeros lead: it is 3


def _steps(source: str) -> int:
    """Python lines run inside grader/judge/shape_comments.py while reading `source`'s comments."""
    here, count = shape_comments.__file__, 0

    def tracer(frame, event, arg):  # noqa: ANN001, ANN202
        nonlocal count
        if frame.f_code.co_filename != here:
            return None
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        shape_comments.comments(source)
    finally:
        sys.settrace(None)
    return count


def _comment_block(rows: int) -> str:
    return "def f(x):\n" + "    # (B, T)\n" * rows + "    return x.sum()  # (B,)\n"


def test_forty_thousand_comment_lines_are_read_in_one_pass():
    """Each own-line comment used to scan every following line for its code line: 40,000 comment
    lines in a row made 800 million steps, until the harness killed the run. Counted, not timed:
    four times the lines is about four times the work, not sixteen."""
    small, large = _steps(_comment_block(500)), _steps(_comment_block(2000))
    assert large < 6 * small, (small, large)
    rows = 40_000
    found = shape_comments.comments(_comment_block(rows))
    assert len(found) == rows + 1
    assert {line for line, _, _ in found} == {rows + 2}  # every own-line comment speaks of the code line below


def test_a_comment_after_the_last_code_line_and_form_feeds_keep_their_lines():
    source = "def f(x):\n    y = x.sum()  # (B,)\n\x0c\n    # (T,)\n"
    assert [line for line, _, _ in shape_comments.comments(source)] == [2]


GQA_BTHD = '''import math

import torch


def gqa_attention(q, k, v):
    B, T, H, dh = q.shape
    group = H // k.shape[2]
    # (B, S, H, dh)
    k = k.repeat_interleave(group, dim=2)
    v = v.repeat_interleave(group, dim=2)  # (B, S, H, dh)
    scores = torch.einsum("bthd,bshd->bhts", q, k) / math.sqrt(dh)  # (B, H, T, S)
    w = scores.softmax(dim=-1)  # (B, H, T, S)
    return torch.einsum("bhts,bshd->bthd", w, v)  # (B, T, H, dh)
'''


def test_comments_are_traced_under_the_variant_the_code_was_graded_under(grader):
    """A right flash-attn-layout solution with true comments: traced on the default layout's inputs
    (B, H, T, dh), every comment was called wrong ('it makes (B, H_kv, 0, dh)')."""
    report = grader.grade("gqa", GQA_BTHD, "sol.py", seed=3, variant={"layout": "bthd"})
    assert report.verdict == "pass"
    assert [(c["line"], c["ok"]) for c in report.shape_comments] == [(10, True), (11, True), (12, True),
                                                                     (13, True), (14, True)]
    assert "all right" in plain(render(report, width=100))
    from grader import trace  # `:try` and the mock's narration trace the same way, given the variant

    traced = trace.trace(grader, "gqa", GQA_BTHD, "sol.py", variant={"layout": "bthd"})
    assert all(c["ok"] for c in traced["shape_comments"])
    default = grader.grade("gqa", GQA_BTHD, "sol.py", seed=3)  # the same code under the contract's layout
    assert default.verdict != "pass"


SPEC_ACCEPT_HELPERS = '''import torch


def _row(t, n):
    B, _, V = t.shape
    return t.gather(1, n[:, None, None].expand(B, 1, V)).squeeze(1)


def _first_rejected(draft_tokens, q, p, u):
    K = q.shape[1]
    x = draft_tokens[..., None]
    ratio = p[:, :K].gather(-1, x).squeeze(-1) / q.gather(-1, x).squeeze(-1)
    return (u <= ratio).long().cumprod(dim=-1).sum(dim=-1)


def speculative_accept(draft_tokens, q, p, u):
    B, K, V = q.shape
    n = _first_rejected(draft_tokens, q, p, u)  # (B,)
    p_n = _row(p, n)  # (B, V)
    q_n = _row(q, n.clamp(max=K - 1))  # (B, V)
    residual = (p_n - q_n).clamp_min(0)
    residual = residual / residual.sum(dim=-1, keepdim=True)
    return n, torch.where((n == K)[:, None], p_n, residual)  # (B, V)
'''


def test_a_line_is_judged_by_what_the_persons_own_helper_returns_to_it(grader):
    """`q_n = _row(q, n.clamp(max=K - 1))  # (B, V)` is true: the last op called on the line is the
    clamp, (B,), but the helper's return, made after it, is what the line makes. A line whose only
    tensor comes from a helper (`p_n = _row(p, n)`) is judged too, and :try shows the helper's step."""
    from grader import trace

    traced = trace.trace(grader, "speculative-accept", SPEC_ACCEPT_HELPERS, "sol.py")
    assert traced["error"] is None, traced["error"]
    assert [(c["line"], c["makes"], c["ok"]) for c in traced["shape_comments"]] == [
        (18, "(B,)", True), (19, "(B, V)", True), (20, "(B, V)", True), (23, "(B, V)", True)]
    steps = traced["calls"][0]["steps"]
    assert any(s["line"] == 20 and s["op"] == "_row()" and s["names"] == "(B, V)" for s in steps)
    assert any(s["line"] == 20 and s["op"] == ".clamp" and s["names"] == "(B,)" for s in steps)  # still shown


RULES_SOURCE = '''def f(A, B, pool, table):
    a2 = (A * A).sum(1, keepdim=True)  # (N, 1)
    d2 = a2 - 2.0 * (A @ B.T)  # (N, 1) + (N, M) -> (N, M)
    x, y = A, B  # (N, d), (M, d)
    g = pool[table].reshape(2, -1)  # (B, M*P)
    for b in range(3):
        s = A @ B[b]  # (N, blk)
    keep = A.argmax(0)  # (n_keep,)
    bad = (A * A).sum(1, keepdim=True)  # (N,) -> (M, N)
'''
RULES_TRACE = {"dims": {"N": 5, "M": 7, "d": 3, "B": 2, "P": 4, "blk": 6, "n_keep": 0}, "calls": [{"steps": [
    {"line": 2, "op": ".sum", "shape": [5, 1], "names": "(N, 1)"},
    {"line": 3, "op": ".matmul", "shape": [5, 7], "names": "(N, M)"},
    {"line": 3, "op": ".__rsub__", "shape": [5, 7], "names": "(N, M)"},
    {"line": 5, "op": ".__getitem__", "shape": [2, 3, 4], "names": "(B, 3, P)"},
    {"line": 5, "op": ".reshape", "shape": [2, 12], "names": "(B, 12)"},
    {"line": 7, "op": ".matmul", "shape": [5, 6], "names": "(N, blk)"},
    {"line": 7, "op": ".matmul", "shape": [5, 2], "names": "(N, B)"},  # the shorter last block
    {"line": 8, "op": ".argmax", "shape": [3], "names": "(d,)"},
    {"line": 9, "op": ".sum", "shape": [5, 1], "names": "(N, 1)"},
]}]}


def test_an_arrow_a_product_a_loop_and_a_size_the_data_decides():
    checked = {c["line"]: c for c in shape_comments.check(RULES_SOURCE, RULES_TRACE)}
    assert checked[2]["ok"] is True
    assert checked[3]["ok"] is True and checked[3]["says"] == "(N, M)"  # what follows the arrow
    assert checked[4]["ok"] is None  # two shapes and no arrow: a tuple, not judged
    assert checked[5]["ok"] is False and checked[5]["says"] == "(B, M*P)"  # 2 x 28 is not what it makes
    assert checked[7]["ok"] is True  # right for every block but the shorter last one
    assert checked[8]["ok"] is None  # n_keep is declared 0: the data decides it
    assert checked[9]["ok"] is False and checked[9]["says"] == "(M, N)" and checked[9]["makes"] == "(N, 1)"
    right = dict(RULES_TRACE, dims={**RULES_TRACE["dims"], "M": 3})  # M*P = 12 now
    assert {c["line"]: c for c in shape_comments.check(RULES_SOURCE, right)}[5]["ok"] is True


def test_a_comment_claims_its_opening_shapes_and_its_prose_claims_nothing():
    source = "\n".join([
        "z = a / t[:, None]  # (B, V): (B,) -> (B, 1), one per row",
        "d = x - y  # (N, 1) + (N, M) + (M,) -> (N, M)",
        "a, b = f(x)  # (N, 4), (M, 4) as corners",
        "h = g(x)  # (B, T, H, dh), or (T, B, H, dh) under tbd",
        "s = q @ k  # (B, H, T, dh) x (B, H, dh, S) -> (B, H, T, S)",
        "r = q.sum()  # (B, T) -> done",
    ]) + "\n"
    assert [dims for _, _, dims in shape_comments.comments(source)] == [
        ("B", "V"), ("N", "M"), (), (), ("B", "H", "T", "S"), ("B", "T")]
