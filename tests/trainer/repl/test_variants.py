"""A sitting under a variant: the scheduler serves it once the default is passed, the header
and skeleton show it, the grade asks for it and the attempt records it. A fake grader keeps
this fast; tests/trainer/tmux drives the real thing."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from grader.report import CaseResult, Report
from tests.trainer.repl.test_repl import CTRL_S, run_repl, set_text, store_recorder, until
from trainer.catalogue_cache import load_catalogue
from trainer.practice.variants import served
from trainer.repl.header import title_fragments
from trainer.store import NewAttempt, open_store
from trainer.text.verdict import plain

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)


class AskedGrading:
    """Fails every grade, keeping the keyword arguments each was asked with."""

    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []

    def grade(self, drill_id: str, source: str, filename: str = "<buffer>", seed: int | None = None,
              timeout: float = 120, **kw: Any) -> Report:
        self.asked.append(kw)
        return Report(drill_id, "wrong", [CaseResult("c1", "multi_head_attention", "wrong", "values differ")],
                      seed=seed, variant=dict(kw.get("variant") or {}))  # as grader.engine says what it graded

    def trace(self, *a: Any, **kw: Any) -> dict[str, Any]:
        return {"dims": {}, "calls": []}

    def cancel(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_a_review_after_the_default_passed_serves_a_variant_and_records_it(_drill_home):
    spec = load_catalogue().get("mha-padding")
    assert spec.variants  # the drill's axes (drills/02-attention/mha-padding.yaml)
    with open_store() as store:
        assert served(spec, store.attempts(drill=spec.id), seed=1) is spec  # a first meeting: the default
        store.record_attempt(NewAttempt(spec.id, "solve", T0, 200, "pass", target_seconds=420))
        drawn = served(spec, store.attempts(drill=spec.id), seed=1)
    assert drawn.variant and drawn.id == spec.id
    assert "variant " + " ".join(f"{k}={v}" for k, v in drawn.variant.items()) in plain(title_fragments(drawn, 100))
    assert " ".join(f"{k}={v}" for k, v in drawn.variant.items()) in plain(title_fragments(drawn, 60))
    assert "variant" not in plain(title_fragments(spec, 100))

    grading = AskedGrading()

    async def script(repl: Any, pipe: Any) -> None:
        assert repl.skeleton == drawn.skeleton()
        set_text(repl, "x = 1\n")
        pipe.send_text(CTRL_S)
        await until(lambda: len(repl.state.results) == 1)
        pipe.send_text(":quit\r")
        await until(lambda: repl.question is not None or not repl.app.is_running)
        if repl.question is not None:
            pipe.send_text("y")

    run_repl(drawn, grading, _drill_home, script, record=store_recorder())
    assert grading.asked == [{"variant": drawn.variant}]
    with open_store() as store:
        assert [a.variant for a in store.attempts(drill=spec.id)] == [{}, drawn.variant]
        assert store.card(spec.id).reps == 2  # one card: the variant's fail is a review of the drill


def test_a_sitting_of_the_default_asks_the_grader_as_before(_drill_home):
    spec = load_catalogue().get("mha-padding")
    grading = AskedGrading()

    async def script(repl: Any, pipe: Any) -> None:
        set_text(repl, "x = 1\n")
        pipe.send_text(CTRL_S)
        await until(lambda: len(repl.state.results) == 1)
        pipe.send_text(":quit\r")
        await until(lambda: repl.question is not None or not repl.app.is_running)
        if repl.question is not None:
            pipe.send_text("y")

    run_repl(spec, grading, _drill_home, script, record=store_recorder())
    assert grading.asked == [{}]


def test_a_narrow_header_keeps_the_variant_and_the_target_without_a_dangling_separator():
    spec = load_catalogue().get("mha-padding").under({"mask": "additive", "layout": "tbd"})
    wide = "".join(text for _, text in title_fragments(spec, 100))
    narrow = "".join(text for _, text in title_fragments(spec, 60))
    assert "variant mask=additive layout=tbd" in wide and "Multi-head" in wide
    assert narrow == " mha-padding  mask=additive layout=tbd  target 7:00"
