"""Variants (grader.spec.variants): the spec section's problems, `under()`, `--variant` arguments
and the random draw. Torch-free; the grading side is in tests/grader/test_variant_grading.py."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.errors import UsageError
from grader.spec import SpecError
from grader.spec.parse import parse_spec
from grader.spec.variants import combinations, describe, parse_variant_args
from tests.paths import REPO

EXAMPLE = REPO / "drills" / "02-attention" / "mha-padding.yaml"


def _write(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "99-test"
    folder.mkdir(exist_ok=True)
    spec = folder / "mha-padding.yaml"
    spec.write_text(text)
    shutil.copy(EXAMPLE.with_suffix(".py"), folder / "mha-padding.py")
    return spec


def _problems(tmp_path: Path, old: str, new: str) -> list[str]:
    text = EXAMPLE.read_text()
    assert old in text
    with pytest.raises(SpecError) as info:
        parse_spec(_write(tmp_path, text.replace(old, new, 1)))
    return info.value.problems


def test_axes_parse_in_spec_order_with_their_default():
    spec = parse_spec(EXAMPLE)
    assert [(a.name, a.default, list(a.values)) for a in spec.variants] == [
        ("mask", "keep", ["keep", "pad", "additive"]), ("layout", "btd", ["btd", "tbd"])]
    assert spec.variant == {} and spec.call_kwargs == {}
    assert all(v.source and v.label for a in spec.variants for v in a.values.values())


@pytest.mark.parametrize("old, new, message", [
    ("    default: keep\n", "    default: kept\n", "variants.mask.default: 'kept' is not one of its values"),
    ("          - from: \"with 1/True on real keys", "          - from: \"with 1/True on REAL keys",
     "variants.mask.values.pad.prompt[0].from: "),
    ("        gen: {pad_mask: {true_means: pad}}", "        gen: {pad_mask: {true_mean: pad}}",
     "generator 'padding_mask' has no option 'true_mean'"),
    ("        gen: {pad_mask: {true_means: pad}}", "        gen: {mask: {true_means: pad}}",
     "no function takes an argument 'mask'"),
    ("          add: [keep-convention]\n          messages:\n            keep-convention: \"matches keeping",
     "          add: [keep-conventions]\n          messages:\n            keep-convention: \"matches keeping",
     "'keep-conventions' is not a trap of this drill"),
    ("        returns: {shape: [T, B, d]}", "        returns: {shape: [T, B, q]}", "unknown dimension 'q'"),
    ("        args: {pad_mask: {dtype: float}}", "        args: {pad_mask: {dtype: half}}", "'half' is not one of"),
    ("        args: {pad_mask: {dtype: float}}", "        args: {H: {dtype: float}}", "H is not a tensor argument"),
    ("        label: \"1/True = padding\"\n", "", "variants.mask.values.pad.label: missing required field"),
    ("      keep:\n        label: \"1/True = real key\"\n",
     "      keep:\n        label: \"1/True = real key\"\n        kwargs: {mask: keep}\n",
     "the default value 'keep' is the contract as written"),
    ("        kwargs: {layout: tbd}", "        kwargs: {mask: tbd}", "is already the axis 'mask''s"),
    ("  layout:\n    default: btd", "  Layout:\n    default: btd", "an axis name is lower-case"),
    ("        cases: {fp32-int-mask: fp32-second-additive-mask}", "        cases: {fp32-no-such: fp32-other}",
     "variants.mask.values.additive.cases.fp32-no-such: no case is named 'fp32-no-such'"),
    ("        cases: {fp32-int-mask: fp32-second-additive-mask}", "        cases: {fp32-int-mask: batch-1}",
     "'batch-1' would name two cases under this value"),
    ("        cases: {fp32-int-mask: fp32-second-additive-mask}", "        cases: {fp32-int-mask: Bad Name}",
     "a case's new name is lower-case words joined by '-'"),
])
def test_problems_name_the_field(tmp_path, old, new, message):
    problems = _problems(tmp_path, old, new)
    assert any(message in p for p in problems), problems
    assert all(p.startswith(str(tmp_path)) for p in problems)


def test_prompt_match_ignores_whitespace_and_under_applies_everything():
    spec = parse_spec(EXAMPLE)
    both = spec.under({"mask": "pad", "layout": "tbd"})
    assert both.variant == {"mask": "pad", "layout": "tbd"}
    assert both.call_kwargs == {"mask": "pad", "layout": "tbd"}
    assert "1/True on padding" in both.prompt and "1/True on real keys" not in both.prompt
    assert "Q is (T, B, d)" in both.prompt
    fn = both.functions[0]
    assert [a.shape for a in fn.args[:3]] == [("T", "B", "d"), ("S", "B", "d"), ("S", "B", "d")]
    assert fn.args[3].options == {"true_means": "pad"} and fn.returns[0].shape == ("T", "B", "d")
    assert "# Q: (T, B, d)" in both.skeleton()
    assert "keep-convention" in [t.id for t in both.traps]
    assert "keep-convention" not in [t.id for t in spec.traps]  # only the values that add it
    flipped = next(t for t in both.traps if t.id == "keep-convention")
    assert "key_padding_mask" in flipped.message
    additive = spec.under({"mask": "additive"})
    assert additive.functions[0].args[3].dtype == "float"
    # the default's cases keep their ids; a variant's cases are new cases
    assert [c.id for c in spec.under({}).cases] == [c.id for c in spec.cases]
    assert all(a.id != b.id for a, b in zip(both.cases, spec.cases))
    # under() starts from the spec as written, and a default choice is no choice
    assert both.under({"mask": "keep"}).variant == {}
    assert both.under({"layout": "tbd"}).functions[0].args[3].options == {}
    assert spec.under({"mask": "keep"}) is spec


def test_a_value_renames_the_cases_whose_name_says_the_other_convention():
    """fp32-int-mask under mask=additive has no int64 mask: its name under that value says what it is,
    and its id (name@hash) follows the name."""
    spec = parse_spec(EXAMPLE)
    additive = spec.under({"mask": "additive"})
    names = [c.name for c in additive.cases]
    assert "fp32-int-mask" not in names and "fp32-second-additive-mask" in names
    assert all(c.id.startswith(c.name + "@") for c in additive.cases)
    assert "fp32-int-mask" in [c.name for c in spec.under({"mask": "pad"}).cases]  # int64 still there


def test_unknown_axis_or_value_is_a_usage_error_naming_the_choices():
    spec = parse_spec(EXAMPLE)
    with pytest.raises(UsageError, match="its axes: mask, layout"):
        spec.under({"polarity": "pad"})
    with pytest.raises(UsageError, match="its values: keep, pad, additive"):
        spec.under({"mask": "inverted"})
    for bad in (["mask"], ["=pad"], ["random", "mask=pad"], ["mask=pad", "mask=additive"]):
        with pytest.raises(UsageError):
            parse_variant_args(spec, bad, 1)


def test_variant_args_and_describe():
    spec = parse_spec(EXAMPLE)
    assert parse_variant_args(spec, ["mask=pad", "layout=btd"], 1) == {"mask": "pad"}
    assert parse_variant_args(spec, ["layout=tbd mask=additive"], 1) == {"mask": "additive", "layout": "tbd"}
    assert parse_variant_args(spec, [], 1) == {}
    assert describe({}) == "default" and describe({"mask": "pad", "layout": "tbd"}) == "mask=pad layout=tbd"


def test_random_draws_from_the_seed_a_combination_other_than_the_default():
    spec = parse_spec(EXAMPLE)
    assert len(combinations(spec)) == 3 * 2 - 1
    draws = [parse_variant_args(spec, ["random"], seed) for seed in range(40)]
    assert all(d for d in draws)  # never the default
    assert draws == [parse_variant_args(spec, ["random"], seed) for seed in range(40)]  # the seed decides
    assert len({describe(d) for d in draws}) == 5  # and every combination comes up


def test_a_drill_without_variants_has_nothing_to_draw(tmp_path):
    text = EXAMPLE.read_text()
    text = text[:text.index("variants:\n")] + text[text.index("hints:\n"):]
    text = text.replace("      add: [keep-convention]", "")
    spec = parse_spec(_write(tmp_path, text))
    assert spec.variants == () and "keep-convention" in [t.id for t in spec.traps]
    with pytest.raises(UsageError, match="has no variants"):
        parse_variant_args(spec, ["random"], 1)
    with pytest.raises(UsageError, match="no variant axis"):
        parse_variant_args(spec, ["mask=pad"], 1)


# ------------------------------------------------------------------ grading (sandbox: marked slow by conftest)


def test_the_default_answer_fails_a_variant_and_the_report_says_which(grader):
    reference = EXAMPLE.with_suffix(".py").read_text()
    default = grader.grade("mha-padding", reference, "ref.py", seed=3)
    assert default.verdict == "pass" and default.variant == {} and default.to_dict()["variant"] == {}
    report = grader.grade("mha-padding", reference, "ref.py", seed=3, variant={"mask": "pad"})
    assert report.verdict == "wrong" and report.variant == {"mask": "pad"}
    assert report.trap is not None and report.trap.id == "keep-convention"
    assert "key_padding_mask" in report.trap.message  # the message flipped for this value
    data = report.to_dict()
    assert data["variant"] == {"mask": "pad"}
    from grader.report import Report

    assert Report.from_dict(data).variant == {"mask": "pad"}
    tbd = grader.grade("mha-padding", reference, "ref.py", seed=3, variant={"layout": "tbd"})
    assert tbd.verdict != "pass" and tbd.trap is None  # no trap says what a batch-first answer does


def test_the_case_hash_includes_the_variant(grader):
    from grader.cases.case_hash import case_hash

    spec = grader.spec("mha-padding")
    plain = case_hash(grader.prepared(spec, 5))
    assert case_hash(grader.prepared(spec.under({}), 5)) == plain
    hashes = {case_hash(grader.prepared(spec.under(v), 5)) for v in ({"mask": "pad"}, {"mask": "additive"},
                                                                    {"layout": "tbd"})}
    assert len(hashes) == 3 and plain not in hashes


def test_oracle_and_traps_get_only_the_keywords_they_take(grader):
    from grader.cases.prepare import with_kwargs

    def takes(x, *, mask="keep"):
        return mask

    def plain(x):
        return "none"

    assert with_kwargs(takes, {"mask": "pad", "layout": "tbd"})(1) == "pad"
    assert with_kwargs(plain, {"mask": "pad"})(1) == "none"
    prep = grader.prepared(grader.spec("mha-padding", {"mask": "pad"}), 2)
    ones = [c for c in prep.calls if c.case.name == "no-padding"]
    assert ones and all(not c.args[3].bool().any() for c in ones)  # no padding: every key False under pad


def test_the_inputs_builder_and_checker_get_the_keywords_they_take(grader):
    # mask-value builds keep in its inputs: builder and judges with its own checker; both read the convention
    default = grader.prepared(grader.spec("mask-value"), 2)
    pad = grader.prepared(grader.spec("mask-value", {"mask": "pad"}), 2)
    assert len(default.calls) == len(pad.calls)
    for a, b in zip(default.calls, pad.calls):
        assert (a.args[1].bool() == ~b.args[1].bool()).all()  # the same mask, written True = masked out
    reference = (REPO / "drills" / "02-attention" / "mask-value.py").read_text()
    report = grader.grade("mask-value", reference, "ref.py", seed=3, variant={"dead": "zeros"})
    assert report.verdict == "wrong"  # its uniform rows pass only a checker that was not told dead=zeros
    assert report.trap is not None and report.trap.id == "uniform-dead-rows"


def test_validate_names_a_value_that_does_not_change_the_answer(grader, tmp_path):
    from grader.authoring.validation import validate_spec

    text = EXAMPLE.read_text().replace(
        "      tbd:\n", "      same:\n        label: \"the same\"\n        source: \"nobody\"\n      tbd:\n", 1)
    spec = parse_spec(_write(tmp_path, text))
    problems = validate_spec(grader, spec, 1)
    assert any("variants.layout=same: the reference's default answer" in p for p in problems), problems
    assert not any("mask=pad" in p for p in problems), problems


def _forty_axes(tmp_path: Path) -> Path:
    """mha-padding with 40 more two-valued axes: 3 * 2 * 2**40 combinations."""
    text = EXAMPLE.read_text()
    axes = "".join(f"  flag{i}:\n    default: plain\n    values:\n      plain: {{label: plain, source: a test}}\n"
                   f"      flipped: {{label: flipped, source: a test, kwargs: {{flag{i}: flipped}}}}\n" for i in range(40))
    return _write(tmp_path, text.replace("variants:\n", "variants:\n" + axes, 1))


def test_random_draws_from_forty_axes_without_listing_them(tmp_path):
    """Issue 33: 40 two-valued axes hung `--variant random` (every combination listed before one was drawn)."""
    spec = parse_spec(_forty_axes(tmp_path))
    assert len(spec.variants) == 42
    draws = [parse_variant_args(spec, ["random"], seed) for seed in range(20)]
    assert all(draws) and draws == [parse_variant_args(spec, ["random"], seed) for seed in range(20)]
    assert len({describe(d) for d in draws}) == 20  # spread over the 2**42-odd combinations
    assert all(set(d) <= {a.name for a in spec.variants} for d in draws)
    assert all(d[k] != next(a.default for a in spec.variants if a.name == k) for d in draws for k in d)


def test_random_draws_what_it_drew_when_the_combinations_were_listed():
    """The same seed draws the same combination as rng.choice over the listed combinations did."""
    import random

    spec = parse_spec(EXAMPLE)
    listed = combinations(spec)
    assert [parse_variant_args(spec, ["random"], seed) for seed in range(60)] == \
        [random.Random(seed).choice(listed) for seed in range(60)]
