"""A mock's follow-up in the real REPL (issue 25): the buffer opens on the person's passing code with
the interviewer's words, the submit is graded under the variant asked for and recorded as kind
'followup' in the drill's sitting, which keeps its one review; no draft is written."""
from __future__ import annotations

from typing import Any

from grader.report import CaseResult, Report
from tests.trainer.repl.test_repl import run_repl, set_text, until
from trainer.clock import FakeClock
from trainer.practice.flows import followup_ask
from trainer.practice.sittings import SittingRecorder
from trainer.repl.app import DrillRepl, ReplOptions
from trainer.repl.drafts import Drafts
from trainer.repl.state import FollowUpAsk
from trainer.store import NewAttempt, open_store
from trainer.text.verdict import plain

PASSING = "def multi_head_attention(Q, K, V, pad_mask, H):\n    keep = pad_mask.bool()\n    return Q\n"


class VariantGrading:
    """Passes a buffer that holds `needle`; records the variant each grade was asked for."""

    def __init__(self, needle: str):
        self.needle = needle
        self.variants: list[Any] = []

    def grade(self, drill_id: str, source: str, filename: str = "<buffer>", seed: int | None = None,
              timeout: float = 120, variant: dict[str, str] | None = None) -> Report:
        self.variants.append(variant)
        verdict = "pass" if self.needle in source else "wrong"
        return Report(drill_id, verdict, [CaseResult("c1", "multi_head_attention", verdict, "values differ")],
                      seed=seed, variant=dict(variant or {}))

    def smallest(self, report: Report, source: str, filename: str = "<buffer>") -> None:
        return None

    def cancel(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_a_follow_up_keeps_the_buffer_is_graded_under_its_variant_and_adds_no_review(catalogue, _drill_home, tmp_path,
                                                                                     monkeypatch):
    monkeypatch.chdir(tmp_path)  # the REPL's history goes to DRILL_HOME, never to the current folder
    mha = catalogue.get("mha-padding")
    clock = FakeClock()
    sitting = SittingRecorder()
    with open_store() as store:
        mock_id = store.start_session("mock", {})
    # the drill itself, passed in this sitting: that pass decides its one review
    sitting(NewAttempt("mha-padding", "mock", clock.now(), 200, "pass", code=PASSING, session_id=mock_id,
                       target_seconds=420))
    ask = followup_ask(mha, {}, {"mask": "pad"})
    grading = VariantGrading("~pad_mask.bool()")

    async def script(repl: DrillRepl, pipe: Any) -> None:
        assert repl.buffer.text == PASSING  # the person's own code, kept
        text = plain(repl.output)
        assert text.startswith("Follow-up\nOne thing changes: mask is now \"1/True = padding\"")
        assert "The prompt now says: pad_mask is (B, S) with 1/True on padding and 0/False on real keys" in " ".join(
            text.split())
        assert "mha-padding" in plain(repl.app.layout.container.children[0].content.text())  # header: the title
        set_text(repl, PASSING.replace("pad_mask.bool()", "~pad_mask.bool()"))
        pipe.send_text(":submit\r")
        await until(lambda: repl.state.results)
        assert "PASS" in plain(repl.output) and "Enter (or ^N): the next item" in plain(repl.output)
        pipe.send_text("\r")

    _, outcome = run_repl(mha.under({"mask": "pad"}), grading, _drill_home, script, clock=clock, record=sitting,
                          options=ReplOptions(mode="mock", deadline=clock.monotonic() + 600, in_flow=True,
                                              flow_id=mock_id, label="mock 1/2 · follow-up",
                                              followup=FollowUpAsk(PASSING, ask)))
    sitting.close("passed")
    assert outcome.status == "passed" and grading.variants == [{"mask": "pad"}]
    with open_store() as store:
        attempts = store.attempts()
        reviews = store.reviews()
        [sitting_row] = store.sittings()
    assert [(a.kind, dict(a.variant), a.verdict) for a in attempts] == [
        ("write", {}, "pass"), ("followup", {"mask": "pad"}, "pass")]
    assert {a.sitting_id for a in attempts} == {sitting_row.id} and attempts[1].session_id == mock_id
    assert len(reviews) == 1 and reviews[0].attempt_id == attempts[0].id  # one review per sitting
    assert not Drafts(_drill_home).path("mha-padding").exists()
    assert (_drill_home / "history" / "mha-padding.txt").exists() and [p for p in tmp_path.iterdir() if p != _drill_home] == []


def test_a_follow_up_left_untouched_at_zero_is_not_graded(catalogue, _drill_home):
    mha = catalogue.get("mha-padding")
    clock = FakeClock()
    grading = VariantGrading("never")

    async def script(repl: DrillRepl, pipe: Any) -> None:
        await until(lambda: "Follow-up" in plain(repl.output))
        clock.advance(61)

    _, outcome = run_repl(mha.under({"layout": "tbd"}), grading, _drill_home, script, clock=clock,
                          options=ReplOptions(mode="mock", deadline=clock.monotonic() + 60, in_flow=True,
                                              followup=FollowUpAsk(PASSING, followup_ask(mha, {}, {"layout": "tbd"}))))
    assert outcome.status == "timeout" and grading.variants == []  # the code as it passed is no new answer


def test_a_follow_up_pass_does_not_tell_the_review_again(catalogue, _drill_home):
    """The drill's pass decided the review and said when it comes back; the follow-up's pass says nothing of it."""
    from datetime import timedelta
    from types import SimpleNamespace

    mha = catalogue.get("mha-padding")
    clock = FakeClock()
    due = SimpleNamespace(due=clock.now() + timedelta(days=8))
    ask = followup_ask(mha, {}, {"mask": "pad"})
    shown: dict[bool, str] = {}

    for follow in (False, True):
        async def script(repl: DrillRepl, pipe: Any, follow: bool = follow) -> None:
            set_text(repl, PASSING.replace("pad_mask.bool()", "~pad_mask.bool()"))
            pipe.send_text(":submit\r")
            await until(lambda: repl.state.results)
            shown[follow] = plain(repl.output)
            pipe.send_text("\r")

        run_repl(mha.under({"mask": "pad"}), VariantGrading("~pad_mask.bool()"), _drill_home, script, clock=clock,
                 record=lambda attempt: due,
                 options=ReplOptions(mode="mock", deadline=clock.monotonic() + 600, in_flow=True, label="mock 1/1",
                                     followup=FollowUpAsk(PASSING, ask) if follow else None))
    assert "Back for review in 8 days" in shown[False] and "Back for review" not in shown[True]
