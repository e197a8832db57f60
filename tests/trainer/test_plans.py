"""The shipped study plan and the choice of new drills under the daily limit."""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from trainer.schedule.plans import PlanError, available_plans, load_plan, next_new_drills, parse_plan
from trainer.store import NewAttempt, open_store

# The 52 ids of docs/DRILLS.md, in catalogue order.
DRILL_IDS = [
    "broadcast-rule", "outer-typo", "pairwise-sqdist", "reduction-axes",
    "head-split", "mha-padding", "causal-padding-mask", "mask-value", "cross-attention", "gqa", "kv-cache",
    "masked-mean", "token-vs-seq-loss", "ragged-to-padded", "packing-mask", "top-p",
    "token-logprobs", "label-shift", "moe-routing", "one-hot-counts", "class-aware-nms",
    "patchify", "unpatchify", "im2col", "pairwise-iou", "anchor-grid", "bev-scatter",
    "einsum-read", "lora", "grpo-advantages", "detr-matching", "conv-output-size",
    "rms-norm", "layer-norm-backward", "cross-entropy", "batch-norm", "clip-loss", "dpo-loss", "ppo-clip",
    "kl-distill", "moe-aux-loss", "grad-accumulation", "rope", "attention-bias", "tiled-attention", "paged-kv",
    "sampling-filter", "beam-step", "speculative-accept", "attention-backward", "conv2d-groups", "roi-align",
]


def test_the_default_plan_covers_every_drill_once():
    plan = load_plan()
    assert "default" in available_plans()
    assert sorted(plan.order) == sorted(DRILL_IDS) and len(plan.order) == 52
    assert plan.repeat_from_week == 6 and plan.weeks[-1].repeat_all


def test_week_one_is_broadcasting_and_attention_basics():
    plan = load_plan()
    week1 = set(plan.weeks[0].drills)
    assert {"broadcast-rule", "outer-typo", "pairwise-sqdist", "reduction-axes"} <= week1
    assert {"head-split", "mha-padding", "causal-padding-mask", "mask-value"} <= week1
    assert len(week1) == 10 and plan.week_of("detr-matching") == 3


def test_the_plan_holds_every_built_in_drill_once():
    from tests.builtin import builtin_catalogue

    order = load_plan().order
    assert len(order) == len(set(order)) and set(order) == set(builtin_catalogue().specs)


def test_next_new_drills_follow_the_plan_under_the_daily_limit(monkeypatch, tmp_path):
    plan = load_plan()
    day = date(2025, 3, 3)
    assert next_new_drills(plan, {}, day, 3) == list(plan.order[:3])
    t0 = datetime(2025, 3, 3, 9, 0, tzinfo=timezone.utc)
    with open_store(tmp_path / "h", clock=lambda: t0) as store:
        store.record_attempt(NewAttempt(plan.order[0], "solve", t0, 30, "pass"))
        store.record_attempt(NewAttempt(plan.order[1], "solve", t0 - timedelta(days=1), 30, "wrong"))
        summaries = store.drill_summaries()
    assert next_new_drills(plan, summaries, day, 3) == list(plan.order[2:4])  # one slot used today
    assert next_new_drills(plan, summaries, day + timedelta(days=1), 3) == list(plan.order[2:5])
    assert next_new_drills(plan, summaries, day, 1) == []
    assert next_new_drills(plan, summaries, day, 0) == []


def test_known_ids_drop_missing_drills_and_append_user_drills():
    plan = load_plan()
    known = ["my-own-drill", *reversed(plan.order[1:])]
    assert next_new_drills(plan, {}, date(2025, 1, 1), 100, known=known) == [*plan.order[1:], "my-own-drill"]


def test_bad_plans_are_refused():
    with pytest.raises(PlanError, match="no study plan"):
        load_plan("nope")
    with pytest.raises(PlanError, match="repeats drill"):
        parse_plan({"weeks": [{"week": 1, "drills": ["a", "a"]}]}, "x")
    with pytest.raises(PlanError, match="list of weeks"):
        parse_plan(["a"], "x")
