"""The trap-attribution rule (drills/README.md, grader/judge/attribution.py), one rule at a
time, on a toy drill whose traps are easy to imitate exactly or almost."""
from __future__ import annotations

from tests.paths import TESTS


import pytest

from grader.judge.attribution import normalise_message

TOY = TESTS / "fixtures" / "attribution"
NEGATE = "\n\ndef negate(x):\n    return -x\n"


@pytest.fixture(scope="module")
def toy_grader():
    from grader.engine import Grader
    from grader.catalogue import load_catalogue

    return Grader(load_catalogue([TOY]))


def grade(grader, body: str, negate: str = NEGATE):
    return grader.grade("attribution-toy", "import torch\n\n" + body + negate, "<test>", seed=3)


def test_the_trap_itself_is_named(toy_grader):
    report = grade(toy_grader, "def double(x):\n    return 3 * x\n")
    assert report.verdict == "wrong" and report.trap is not None and report.trap.id == "triple"
    assert all(c.trap == "triple" for c in report.failing)


def test_rule_1_values_must_match_on_every_failing_case(toy_grader):
    # 3x on fp32, 4x on fp16: every case fails, but the fp16 ones are not the trap's output
    body = "def double(x):\n    return (4 if x.dtype == torch.float16 else 3) * x\n"
    report = grade(toy_grader, body)
    assert report.verdict == "wrong" and report.trap is None


def test_rule_1_a_separate_dtype_slip_is_named_and_said(toy_grader):
    # the trap's values, but float32 on fp16 cases (the contract wants fp16): the trap explains
    # every case, and the fp16 ones also fail for a separate, visible reason the report names
    body = "def double(x):\n    return (3 * x).float()\n"
    report = grade(toy_grader, body)
    assert report.verdict == "wrong" and report.trap is not None and report.trap.id == "triple"
    assert report.trap.note == ("matches triple on 4 of 4 failing cases; fp16-a and fp16-b also fail for "
                                "another reason: dtype float32, expected float16")
    assert report.to_dict()["trap"]["others"] == [{"case": "fp16-a", "reason": "dtype float32, expected float16"},
                                                  {"case": "fp16-b", "reason": "dtype float32, expected float16"}]
    # the dtype slip alone, where the trap is right: the fp32-out trap, not triple with a note
    assert grade(toy_grader, "def double(x):\n    return (2 * x).float()\n").trap.id == "fp32-out"


def test_rule_2_a_failure_where_the_trap_is_right_is_another_mistake(toy_grader):
    # fp32 out for fp16 (the fp32-out trap) and also wrong on fp32-b, where that trap is right
    body = ("def double(x):\n    if x.dtype == torch.float16:\n        return (2 * x).float()\n"
            "    return 2 * x + 1\n")
    report = grade(toy_grader, body)
    fp32 = {c.name: c.verdict for c in report.cases if c.function == "double" and c.name.startswith("fp32")}
    assert "wrong" in fp32.values()  # the setup holds: an fp32 case fails too
    assert report.trap is None
    plain = grade(toy_grader, "def double(x):\n    return (2 * x).float()\n")
    assert plain.trap is not None and plain.trap.id == "fp32-out"


def test_rule_1_raising_needs_the_same_normalised_message(toy_grader):
    same = "def double(x):\n    return 2 * x + torch.zeros(x.shape[-1] + 1, dtype=x.dtype)\n"
    assert grade(toy_grader, same).trap.id == "broadcast-error"
    other_sizes = "def double(x):\n    return 2 * x + torch.zeros(x.shape[-1] + 2, dtype=x.dtype)\n"
    assert grade(toy_grader, other_sizes).trap.id == "broadcast-error"  # numbers are stripped
    other_error = "def double(x):\n    return (2 * x).t().view(-1, x.shape[0] * 7)\n"
    report = grade(toy_grader, other_error)
    assert report.verdict == "error" and report.trap is None  # a RuntimeError, but not that one


def test_rule_3_a_failing_case_of_another_function_is_not_explained(toy_grader):
    body = "def double(x):\n    return 3 * x\n"
    report = grade(toy_grader, body, negate="\n\ndef negate(x):\n    return x\n")
    assert report.verdict == "wrong" and report.trap is None


def test_rule_3_a_missing_function_names_no_trap(toy_grader):
    report = grade(toy_grader, "def double(x):\n    return 3 * x\n", negate="")
    assert report.verdict == "missing" and report.trap is None


def test_normalised_messages_strip_numbers_and_quoted_names():
    a = "The size of tensor a (5) must match the size of tensor b (7) at non-singleton dimension 1"
    b = "The size of tensor a (12) must match the size of tensor b (3) at non-singleton dimension 0"
    assert normalise_message(a) == normalise_message(b)
    assert normalise_message("name 'foo' is not defined") == normalise_message("name 'bar' is not defined")
    assert normalise_message("value cannot be converted to type at::Half without overflow") != normalise_message(a)
