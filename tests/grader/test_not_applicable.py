"""Checks that do not apply to a drill at all are said to be "not applicable", with a reason, never
left unsaid nor called "not checked" (issue 39: attention-bias takes only integers)."""
from __future__ import annotations

from grader.report import Report
from tests.conftest import reference_source
from trainer.text.verdict import plain, render


def test_a_drill_without_tensor_arguments_says_why_device_scale_and_gradient_do_not_apply(grader):
    spec = grader.catalogue.get("attention-bias")
    report = grader.grade("attention-bias", reference_source(spec), "ref.py", seed=3, comments=False)
    assert report.verdict == "pass"
    got = {(n["check"], n["function"]) for n in report.not_applicable}
    assert got == {("device", "sliding_window_keep"), ("scale", "sliding_window_keep"), ("device", "alibi_bias"),
                   ("scale", "alibi_bias"), ("gradient", "")}
    assert all(n["why"] for n in report.not_applicable) and not report.not_checked
    text = " ".join(plain(render(report, width=100)).split())
    assert "· device: not applicable · scale: not applicable · gradient: not applicable" in text
    assert "device case and scale: not applicable to sliding_window_keep(), alibi_bias() — no argument is a tensor" in text
    assert "gradient case: not applicable — no argument is a floating-point tensor to differentiate" in text
    assert Report.from_dict(report.to_dict()).not_applicable == report.not_applicable


def test_an_opt_out_is_not_applicable_with_the_spec_reason_and_a_checked_drill_has_none(grader):
    spec = grader.catalogue.get("layer-norm-backward")
    report = grader.grade(spec.id, reference_source(spec), "ref.py", seed=3, comments=False)
    assert report.verdict == "pass"
    [gradient] = [n for n in report.not_applicable if n["check"] == "gradient"]
    assert gradient["why"] == spec.no_gradient_case
    mha = grader.catalogue.get("mha-padding")
    checked = grader.grade("mha-padding", reference_source(mha), "ref.py", seed=3, comments=False)
    assert checked.not_applicable == [] and "not applicable" not in plain(render(checked, width=100))
    assert "not_applicable" not in checked.to_dict()


def test_a_check_that_ran_for_one_function_is_not_called_not_applicable_in_the_text(grader):
    """kv-cache's kv_cache_bytes() takes integers; its other function has the device case: the headline
    says the device case passed, with no line about the integer one (--json lists it)."""
    spec = grader.catalogue.get("kv-cache")
    report = grader.grade(spec.id, reference_source(spec), "ref.py", seed=3, comments=False)
    assert {(n["check"], n["function"]) for n in report.not_applicable} == {("device", "kv_cache_bytes"),
                                                                            ("scale", "kv_cache_bytes")}
    text = plain(render(report, width=100))
    assert "device: pass" in text and "not applicable" not in text
