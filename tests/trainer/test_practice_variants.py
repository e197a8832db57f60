"""The variant a practice sitting serves (trainer.practice.variants): the default until it
is passed, then a draw that favours failed and unpassed values, never the combination passed last."""
from __future__ import annotations

from dataclasses import dataclass, field

from trainer.practice.variants import Tried, _need, choose_variant, combinations, history_of, standings


@dataclass(frozen=True)
class Axis:
    name: str
    default: str
    values: dict[str, object] = field(default_factory=dict)


MASK = Axis("mask", "keep", {"keep": None, "pad": None, "additive": None})
LAYOUT = Axis("layout", "bthd", {"bthd": None, "bhtd": None})
AXES = (MASK, LAYOUT)


def _passed(v=None):
    return Tried(dict(v or {}), True)


def _failed(v=None):
    return Tried(dict(v or {}), False)


def test_the_combinations_are_every_product_with_the_default_first():
    combos = combinations(AXES)
    assert combos[0] == {} and len(combos) == 6
    assert {"mask": "pad", "layout": "bhtd"} in combos and {"mask": "keep"} not in combos


def test_a_first_meeting_and_every_sitting_until_the_default_passes_is_the_default():
    assert choose_variant(AXES, [], seed=1) == {}
    assert choose_variant(AXES, [_failed(), _failed()], seed=2) == {}
    # a pass of another variant (given by `--variant`) is not a pass of the default
    assert choose_variant(AXES, [_failed(), _passed({"mask": "pad"})], seed=3) == {}
    assert choose_variant((), [_passed()], seed=4) == {}  # a drill without axes has only the default


def test_after_the_default_passes_a_review_draws_another_combination():
    for seed in range(30):
        assert choose_variant(AXES, [_failed(), _passed()], seed) != {}


def test_never_the_combination_passed_last():
    history = [_passed(), _passed({"mask": "pad"}), _passed({"layout": "bhtd"})]
    for seed in range(40):
        assert choose_variant(AXES, history, seed) != {"layout": "bhtd"}
    one = (Axis("side", "right", {"right": None, "left": None}),)
    assert choose_variant(one, [_passed()], seed=0) == {"side": "left"}
    assert choose_variant(one, [_passed(), _passed({"side": "left"})], seed=0) == {}


def test_a_failed_value_comes_back_first():
    history = [_passed(), _failed({"mask": "additive"}), _passed({"mask": "pad", "layout": "bhtd"})]
    for seed in range(20):
        assert choose_variant(AXES, history, seed).get("mask") == "additive"


def test_values_not_passed_recently_are_preferred_over_recent_ones():
    history = [_passed(), _passed({"mask": "pad"}), _passed({"mask": "additive", "layout": "bhtd"}),
               _passed({"layout": "bhtd"})]
    # keep was passed by the last attempt, additive one before it, pad two before: pad is the oldest,
    # and the default layout (two attempts ago) beats bhtd (the last)
    for seed in range(20):
        assert choose_variant(AXES, history, seed) == {"mask": "pad"}


def test_the_same_history_and_seed_give_the_same_variant_and_seeds_spread():
    history = [_passed()]
    drawn = {tuple(sorted(choose_variant(AXES, history, s).items())) for s in range(40)}
    assert all(choose_variant(AXES, history, s) == choose_variant(AXES, history, s) for s in range(5))
    assert len(drawn) >= 2  # never passed: every non-default value ties, the seed chooses


def test_standings_count_a_fail_against_the_non_default_values_only():
    history = [_passed(), _failed({"mask": "pad"}), _passed({"mask": "pad"}), _failed({"layout": "bhtd"})]
    by = {s.label: s for s in standings(AXES, history)}
    assert (by["mask=pad"].passes, by["mask=pad"].fails, by["mask=pad"].last) == (1, 1, "pass")
    assert (by["layout=bhtd"].fails, by["layout=bhtd"].last, by["layout=bhtd"].since_pass) == (1, "fail", None)
    assert by["mask=keep"].fails == 0 and by["mask=keep"].passes == 1 and by["mask=keep"].since_pass == 3
    assert by["layout=bthd"].passes == 2 and by["layout=bthd"].default
    assert by["mask=additive"].last is None and by["mask=additive"].since_pass is None


def test_a_variant_the_drill_no_longer_has_is_left_out():
    history = [_passed(), _failed({"mask": "gone"}), _failed({"colour": "red"})]
    by = {s.label: s for s in standings(AXES, history)}
    assert sum(s.fails for s in by.values()) == 0
    assert choose_variant(AXES, history, seed=0) != {}


def test_history_of_attempt_records_skips_the_graders_own_failures_and_reveals():
    @dataclass
    class Rec:
        verdict: str
        variant: dict
        revealed: bool = False

    rows = [Rec("pass", {}), Rec("internal", {"mask": "pad"}), Rec("pass", {"mask": "pad"}, revealed=True),
            Rec("wrong", {"layout": "bhtd"})]
    assert history_of(rows) == [_passed(), _failed({"mask": "pad"}), _failed({"layout": "bhtd"})]


FORTY = tuple(Axis(f"flag{i}", "off", {"off": None, "on": None}) for i in range(40))


def test_forty_axes_are_chosen_among_without_listing_them():
    """Issue 33: the practice flows listed every combination (2**40 here) before choosing one."""
    everything_on = {a.name: "on" for a in FORTY}
    # the default passed, one value failed since: every "on" is never passed (need 2), "flag7=on" failed (3)
    history = [_passed(), _failed({"flag7": "on"})]
    assert choose_variant(FORTY, history, seed=1) == everything_on  # the one best combination
    # passed, then failed: every "on" wants practice most again, but that combination was passed last,
    # so the next best is served: one axis back to "off" (each loses the same), the seed draws which
    history = [_passed(), _passed(everything_on), _failed(everything_on)]
    chosen = [choose_variant(FORTY, history, seed=s) for s in range(30)]
    assert all(len(c) == 39 and set(c.values()) == {"on"} for c in chosen)
    assert len({tuple(sorted(c)) for c in chosen}) > 1
    assert chosen == [choose_variant(FORTY, history, seed=s) for s in range(30)]


def _listed_choice(axes, history, seed):
    """The choice as it was made when every combination was listed: the best-scoring ones, the
    one passed last left out, drawn among by rng.choice (the old trainer/practice/variants.py)."""
    import random

    needs = {(s.axis, s.value): _need(s) for s in standings(axes, history)}
    last = next((dict(t.variant) for t in reversed(history) if t.passed), None)
    candidates = [c for c in combinations(axes) if c != last]
    score = {i: sum(needs[(a.name, c.get(a.name, a.default))] for a in axes) for i, c in enumerate(candidates)}
    best = max(score.values())
    return random.Random(f"variant:{seed}").choice([c for i, c in enumerate(candidates) if score[i] >= best - 1e-9])


def test_the_choice_is_the_one_it_was_when_the_combinations_were_listed():
    """The same axes, history and seed choose what rng.choice over the listed best combinations chose."""
    histories = [
        [_passed(), _failed({"mask": "pad"}), _passed({"layout": "bhtd"})],
        [_passed(), _passed({"mask": "pad", "layout": "bhtd"})],
        [_passed(), _passed({"mask": "additive"}), _failed({"mask": "pad", "layout": "bhtd"}), _passed({"mask": "pad"})],
        [_passed(), _passed({"mask": "pad", "layout": "bhtd"}), _failed({"mask": "pad", "layout": "bhtd"})],
        [_passed(), _passed({"mask": "pad"}), _passed({"mask": "additive"}), _passed({"layout": "bhtd"}),
         _passed({"mask": "pad", "layout": "bhtd"}), _passed({"mask": "additive", "layout": "bhtd"})],
    ]
    for history in histories:
        for seed in range(40):
            assert choose_variant(AXES, history, seed) == _listed_choice(AXES, history, seed)
