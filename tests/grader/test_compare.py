from __future__ import annotations

import torch

from grader.cases.prepare import Call
from grader.judge.compare import compare_call
from grader.spec import ArgSpec, CaseSpec, FunctionSpec, ReturnSpec, Tolerance
from grader.transport import Foreign

TOL = {"float32": Tolerance(1e-5, 1e-4), "float16": Tolerance(2e-3, 1e-2)}


def _call(expected, dtype=torch.float32, shape=("B", "T"), rdtype="float"):
    fn = FunctionSpec("f", (ArgSpec("x", shape, "float", None, "randn"),), (ReturnSpec(shape, rdtype, None),), False)
    return Call(0, CaseSpec("c"), fn, {"B": 2, "T": 3}, [], expected, dtype, torch.bool)


def test_exact_match_passes():
    e = torch.randn(2, 3, dtype=torch.float64)
    assert compare_call(_call(e), e.float(), TOL).verdict == "pass"


def test_nan_where_finite_expected():
    e = torch.zeros(2, 3, dtype=torch.float64)
    got = torch.zeros(2, 3)
    got[1, 2] = float("nan")
    v = compare_call(_call(e), got, TOL)
    assert v.verdict == "wrong" and "NaN at 1 of 6 positions" in v.message and "[1, 2]" in v.message


def test_value_diff_reports_count_worst_and_where():
    e = torch.zeros(2, 3, dtype=torch.float64)
    got = torch.zeros(2, 3)
    got[0, 1] = 0.5
    got[1, 0] = 0.25
    v = compare_call(_call(e), got, TOL)
    assert "values differ at 2 of 6 positions" in v.message
    assert "max abs error 0.5 at [0, 1]" in v.message


def test_within_tolerance_passes_and_fp16_tolerance_is_looser():
    e = torch.ones(2, 3, dtype=torch.float64)
    assert compare_call(_call(e), (e + 5e-6).float(), TOL).verdict == "pass"
    assert compare_call(_call(e), (e + 1e-3).float(), TOL).verdict == "wrong"
    assert compare_call(_call(e, torch.float16), (e + 1e-3).half(), TOL).verdict == "pass"


def test_never_broadcasts_to_fit():
    e = torch.zeros(2, 3, dtype=torch.float64)
    v = compare_call(_call(e), torch.zeros(2, 1), TOL)
    assert v.verdict == "wrong" and v.message.startswith("shape:")
    v = compare_call(_call(e), torch.zeros(1, 2, 3), TOL)
    assert v.verdict == "wrong" and "extra axis of size 1" in v.message


def test_dtype_fp16_in_fp16_out():
    e = torch.zeros(2, 3, dtype=torch.float64)
    v = compare_call(_call(e, torch.float16), torch.zeros(2, 3), TOL)
    assert v.verdict == "wrong" and "expected float16 (fp16 in, fp16 out), got float32" in v.message


def test_loss_dtype_accepts_float32_for_fp16():
    e = torch.tensor(1.0, dtype=torch.float64)
    c = _call(e, torch.float16, shape=(), rdtype="loss")
    assert compare_call(c, torch.tensor(1.0), TOL).verdict == "pass"
    assert compare_call(c, torch.tensor(1.0, dtype=torch.float16), TOL).verdict == "pass"
    assert "0-d tensor" in compare_call(c, 1.0, TOL).message


def test_integer_outputs_exact():
    e = torch.tensor([[1, 2, 3], [4, 5, 6]])
    c = _call(e, rdtype="int64")
    assert compare_call(c, e.clone(), TOL).verdict == "pass"
    got = e.clone()
    got[1, 1] = 0
    v = compare_call(c, got, TOL)
    assert "values differ at 1 of 6 positions; first at [1, 1]: expected 5, got 0" in v.message
    assert "int64" in compare_call(c, e.float(), TOL).message


def test_numpy_and_none_are_wrong_with_advice():
    e = torch.zeros(2, 3, dtype=torch.float64)
    v = compare_call(_call(e), Foreign("numpy.ndarray", shape=(2, 3)), TOL)
    assert "numpy array" in v.message and "torch.from_numpy" in v.message
    assert "forget to return" in compare_call(_call(e), None, TOL).message
