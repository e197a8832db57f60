"""The mock interview's follow-ups and narrate (issue 25): which variant an interviewer asks, in
whose words, how the score counts them, and the CLI wiring (the REPL and grader replaced by
stand-ins; tests/trainer/repl/test_followup.py drives the real REPL)."""
from __future__ import annotations

from typing import Any

import pytest

from grader.report import CaseResult, Report
from tests.trainer.test_sessions import _cli
from trainer.clock import FakeClock
from trainer.practice.flows import (DrillItem, FollowUp, ItemResult, Mock, MockRow, followup_ask, score,
                                    score_formula)
from trainer.practice.variants import Tried, followup_variant
from trainer.repl.trace_view import unnarrated_lines
from trainer.store import open_store


def _axes(catalogue, drill="mha-padding"):
    return catalogue.get(drill).variants


@pytest.mark.parametrize("passed", [{}, {"mask": "pad"}, {"mask": "additive", "layout": "tbd"}])
def test_a_follow_up_changes_exactly_one_axis(catalogue, passed):
    axes = _axes(catalogue)
    seen = set()
    for seed in range(40):
        v = followup_variant(axes, passed, [], seed)
        full = {a.name: v.get(a.name, a.default) for a in axes}
        was = {a.name: passed.get(a.name, a.default) for a in axes}
        assert sum(full[k] != was[k] for k in full) == 1
        assert all(v[a.name] != a.default for a in axes if a.name in v)  # non-default choices only
        seen.add(tuple(sorted(v.items())))
    assert len(seen) > 1  # the seed draws among them
    assert followup_variant((), {}, [], 1) is None


def test_a_follow_up_prefers_the_value_last_failed(catalogue):
    history = [Tried({}, True), Tried({"mask": "pad"}, True), Tried({"layout": "tbd"}, False)]
    assert {followup_variant(_axes(catalogue), {}, history, s)["layout"] for s in range(10)} == {"tbd"}


def test_the_interviewer_says_what_changed_from_the_values_label_source_and_prompt(catalogue):
    mha = catalogue.get("mha-padding")
    ask = followup_ask(mha, {}, {"mask": "pad"})
    assert ask[0] == ('One thing changes: mask is now "1/True = padding", as in '
                      "nn.MultiheadAttention's key_padding_mask (True = ignore this key).")
    # the whole sentence the edit falls in, never a fragment cut mid-sentence
    assert ask[1] == ("The prompt now says: pad_mask is (B, S) with 1/True on padding and 0/False on real keys, as "
                      "nn.MultiheadAttention's key_padding_mask has it (it may arrive as bool, int64 or float32).")
    back = followup_ask(mha.under({"mask": "pad"}), {"mask": "pad"}, {})
    assert 'mask is now "1/True = real key"' in back[0]
    assert back[1] == ("The prompt now says: pad_mask is (B, S) with 1/True on real keys and 0/False on padding "
                       "(it may arrive as bool, int64 or float32).")
    layout = followup_ask(mha, {}, {"layout": "tbd"})
    assert len(layout) == 3 and "(T, B, d)" in layout[1] and "(T, B, d)" in layout[2]


def _row(status="passed", seconds=100.0, target=420.0, attempts=1, followup=None, wrong=(), unnarrated=()):
    return MockRow("d", status, seconds, target, attempts, (), followup=followup, wrong_comments=tuple(wrong),
                   unnarrated=unnarrated)


def test_the_score_counts_follow_ups_and_narration_as_the_formula_says():
    good = FollowUp("variant", "mask is now ...", "passed", 30)
    bad = FollowUp("question", "shape?", "wrong", 5)
    assert score([_row()]) == 100 and score([_row()], followups=True) == 80  # no follow-up reached: 80%
    assert score([_row(followup=good)], followups=True) == 100
    assert score([_row(followup=bad)], followups=True) == 80
    assert score([_row(followup=good), _row("failed")], followups=True) == 50
    assert score([_row(wrong=["line 2 says (B, T); it makes (T, B)"], unnarrated=(5,))], narrate=True) == 90
    assert score([_row(unnarrated=tuple(range(40)))], narrate=True) == 70  # at most 30% of the share
    assert score([_row(followup=good, unnarrated=(3, 4))], followups=True, narrate=True) == 90
    formula = score_formula(True, True)
    assert "80% of the drill's share and its follow-up for the other 20%" in formula
    assert "takes 5% off the drill's share (at most 30%)" in formula


def test_unnarrated_lines_are_the_lines_making_a_tensor_without_a_shape_comment():
    code = "def f(x):\n    # (B, T)\n    y = x.t()\n    z = y * 2  # (T, B)\n    w = z + 1\n    return w\n"
    trace = {"calls": [{"steps": [{"line": 3}, {"line": 4}, {"line": 5}, {"line": 5}]}]}
    assert unnarrated_lines(code, trace) == (5,)


def test_the_summary_counts_follow_ups_and_wrong_shape_comments():
    clock = FakeClock()
    flow = Mock(["mha-padding", "bev-scatter"], 10, 5, clock, followups=True, narrate=True)
    flow.queue.next()
    follow = FollowUp("variant", 'One thing changes: mask is now "1/True = padding", as in x.',
                      "failed", 40, {"mask": "pad"}, 1, "wrong", ("WRONG  2/9 cases passed",), "x\n    y = ~x\n")
    flow.queue.add(ItemResult(DrillItem("mha-padding", "mock"), "passed", 100, 1, verdict="pass", code="x",
                              followup=follow, shape_comments=({"line": 9, "says": "(B, T, H, dh)",
                                                                "makes": "(B, H, T, dh)", "ok": False},),
                              unnarrated=(4, 5)))
    flow.queue.next()
    flow.queue.add(ItemResult(DrillItem("bev-scatter", "mock"), "passed", 100, 1, verdict="pass", code="y",
                              followup=FollowUp("question", "What shape?", "right", 6, given="(H, W, 4)",
                                                answer="(H, W, 4)")))
    report = flow.report({"mha-padding": 420, "bev-scatter": 300})
    text = "\n".join(report.lines(100))
    assert "    follow-up (variant mask=pad): failed in 0:40" in text
    assert "    follow-up (question): right in 0:06" in text
    assert "  follow-ups: 1/2 passed or answered right" in text
    assert "  narrate: 1 shape comment wrong, 2 lines making a tensor without one" in text
    assert "  shape comment: line 9 says (B, T, H, dh); it makes (B, H, T, dh)" in text
    flat = " ".join(text.split())  # the formula is folded to the width
    assert "Score: each drill is worth" in flat and "with follow-ups" in flat and "with narrate" in flat
    assert "    answered (H, W, 4): right" in text
    assert "    code submitted, as changed from your passing code:\n      | +     y = ~x" in text
    assert "  no shape comment on lines 4, 5, which make a tensor" in text
    data = report.to_dict()
    assert (data["followups_passed"], data["followups_asked"], data["shape_comments_wrong"],
            data["shape_comments_missing"]) == (1, 2, 1, 2)
    assert data["drills"][0]["followup"]["variant"] == {"mask": "pad"} and data["score_formula"] == report.formula
    # mha-padding: 80% of a full pass, nothing for the failed follow-up, less 3 misses * 5%; bev-scatter: 100%
    assert report.score == round(100 * ((0.8 - 0.15) + 1.0) / 2)


# ---------------------------------------------------------------- the CLI


class _TraceGrading:
    def __init__(self, steps: dict[str, list[int]] | None = None):
        self.steps = steps or {}
        self.traced: list[tuple[str, Any]] = []

    def trace(self, drill_id: str, source: str, filename: str = "<buffer>", **kw: Any) -> dict[str, Any]:
        self.traced.append((drill_id, kw.get("variant")))
        return {"calls": [{"steps": [{"line": n} for n in self.steps.get(drill_id, [])]}]}

    def close(self) -> None:
        pass


def _mock_cli(monkeypatch, drills, followup_status="passed", grading=None):
    from trainer.cli import practice
    from trainer.repl import grading as repl_grading
    from trainer.repl.app import DrillOutcome

    runner, app, seen = _cli(monkeypatch, {})
    calls: list[tuple[Any, Any, Any]] = []

    def fake_drill(spec, grading_, options, sitting=None, **_):
        calls.append((spec, options, sitting))
        if options.followup is not None:
            return DrillOutcome(spec.id, followup_status, "pass" if followup_status == "passed" else "wrong", 30.0, 1,
                                code=options.followup.code + "# adapted\n")
        report = Report(spec.id, "pass", [CaseResult("c1", "f", "pass")],
                        shape_comments=[{"line": 2, "says": "(B, T)", "makes": "(T, B)", "ok": False}])
        return DrillOutcome(spec.id, "passed", "pass", 100.0, 1, report=report,
                            code=f"def f(x):\n    y = x.t()  # (B, T)\n    return y  # {spec.id}\n")

    monkeypatch.setattr(practice, "_run_drill", fake_drill)
    monkeypatch.setattr(practice, "choose_mock_drills", lambda *a: list(drills))
    if grading is not None:
        monkeypatch.setattr(repl_grading, "open_grading", lambda: grading)
    return runner, app, calls


def test_the_mock_asks_a_variant_follow_up_on_the_persons_code_and_a_question_for_a_drill_without(monkeypatch):
    runner, app, calls = _mock_cli(monkeypatch, ["mha-padding", "bev-scatter"])
    result = runner.invoke(app, ["mock", "--count", "2", "--minutes", "20", "--seed", "5"])
    assert result.exit_code == 0, result.output
    main, follow = calls[0], calls[1]
    assert main[1].followup is None and follow[1].followup is not None
    assert (main[1].next_text, follow[1].next_text) == ("the follow-up", "")  # what Enter goes on to after a pass
    assert follow[2] is main[2]  # the follow-up goes into the drill's own sitting
    assert follow[1].followup.code == "def f(x):\n    y = x.t()  # (B, T)\n    return y  # mha-padding\n"
    assert follow[0].id == "mha-padding" and len(follow[0].variant) == 1 and follow[0].base is not None
    assert follow[1].followup.ask[0].startswith("One thing changes: ")
    assert follow[1].label == "mock 1/2 · follow-up" and follow[1].locked == main[1].locked
    assert [c[0].id for c in calls] == ["mha-padding", "mha-padding", "bev-scatter"]  # bev-scatter: a question
    out = result.output
    assert "Follow-up on bev-scatter, answered the quick-fire way:" in out
    assert "follow-ups: 2/2 passed or answered right" in out and "with follow-ups" in " ".join(out.split())
    with open_store() as store:
        [session] = store.sessions()
    summary = session.summary
    assert summary["followups_asked"] == 2 and summary["drills"][1]["followup"]["kind"] == "question"
    assert summary["drills"][0]["followup"]["variant"] == dict(follow[0].variant)


def test_a_failed_follow_up_costs_a_fifth_of_the_drills_share(monkeypatch):
    runner, app, _ = _mock_cli(monkeypatch, ["mha-padding"], followup_status="failed")
    result = runner.invoke(app, ["mock", "--count", "1", "--minutes", "20", "--seed", "5"])
    assert result.exit_code == 0, result.output
    assert "Mock interview: 1/1 passed, score 80/100" in result.output
    assert "follow-ups: 0/1 passed or answered right" in result.output


def test_no_followups_turns_them_off(monkeypatch):
    from trainer.repl import quickfire

    asked = []
    runner, app, calls = _mock_cli(monkeypatch, ["mha-padding", "bev-scatter"])
    monkeypatch.setattr(quickfire, "ask", lambda *a, **k: asked.append(a))
    result = runner.invoke(app, ["mock", "--count", "2", "--minutes", "20", "--seed", "5", "--no-followups"])
    assert result.exit_code == 0, result.output
    assert [c[1].followup for c in calls] == [None, None] and asked == []
    assert [(c[1].next_text, c[1].last) for c in calls] == [("", False), ("", True)]
    assert "follow-up" not in result.output and "score 100/100" in result.output
    assert "shape comment: line 2" not in result.output  # the verdict's note only: without narrate it scores nothing


def test_narrate_counts_wrong_and_missing_shape_comments(monkeypatch):
    grading = _TraceGrading({"bev-scatter": [2, 3]})
    runner, app, calls = _mock_cli(monkeypatch, ["bev-scatter"], grading=grading)
    result = runner.invoke(app, ["mock", "--count", "1", "--minutes", "20", "--seed", "5", "--narrate",
                                 "--no-followups"])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())  # wrapped at the runner's terminal width
    assert calls[0][1].label == "mock 1/1 · narrate" and "Narrate: write the shape" in out
    assert grading.traced == [("bev-scatter", None)]  # once, after the clock stopped
    assert "narrate: 1 shape comment wrong, 1 line making a tensor without one" in out  # line 3: `return y`
    assert "shape comment: line 2 says (B, T); it makes (T, B)" in out and "score 90/100" in out
    assert "no shape comment on line 3, which makes a tensor" in out


def test_the_progress_report_states_the_whole_formula():
    from trainer.reports import MOCK_SCORE_FORMULA

    assert "score out of 100: " + score_formula(True, True) == MOCK_SCORE_FORMULA


def test_a_question_follow_up_is_one_that_can_be_asked_alone(catalogue):
    from trainer.practice.flows import standalone

    asked = standalone(catalogue.get("bev-scatter").quiz)
    assert asked and all("that result" not in q.q for q in asked)
    assert standalone(catalogue.get("bev-scatter").quiz[1:2]) == list(catalogue.get("bev-scatter").quiz[1:2])
