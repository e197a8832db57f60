"""A failure's signature (grader/judge/signature.py, drills/README.md "When a trap is named"):
a trap written another way is named, a near miss is not. Hand-built calls, no sandbox."""
from __future__ import annotations

import types

import torch

from grader.cases.prepare import Call, Prepared
from grader.judge.attribution import match_traps
from grader.judge.signature import dtype_slip, has_signature, same_shapes
from grader.report import CaseResult, TrapMatch
from grader.sandbox.limits import CallOutcome, ChildOutcome
from grader.spec import Tolerance
from grader.spec.records import ArgSpec, CaseSpec, FunctionSpec, ReturnSpec, Trap

TOL = {"float32": Tolerance(1e-5, 1e-4), "float16": Tolerance(2e-3, 1e-2)}
X = ArgSpec("x", ("N",), "float", None, "randn")


def fn(dtype_word: str = "float", *shapes: tuple[str, ...]) -> FunctionSpec:
    rets = tuple(ReturnSpec(s, dtype_word, None) for s in shapes) or (ReturnSpec(("N",), dtype_word, None),)
    return FunctionSpec("f", (X,), rets, tuple_return=len(rets) > 1)


def call(expected, dtype=torch.float32, function: FunctionSpec | None = None, index: int = 0, name: str = "c") -> Call:
    return Call(index, CaseSpec(name), function or fn(), {"N": 6}, [], expected, dtype, torch.bool)


ORACLE = torch.tensor([0.0, 0.0, 0.5, 0.25, 0.0, 1.0])
TRAP = torch.tensor([0.3, -0.2, 0.5, 0.25, 0.7, 1.0])  # wrong at 0, 1, 4


def test_the_same_values_are_the_trap_s():
    assert has_signature(call(ORACLE), TRAP.clone(), TRAP, TOL)


def test_right_where_the_trap_is_degenerate_and_wrong_its_way_elsewhere():
    """`union > 0` against the trap's `union != 0`: the solution is right at one of the trap's
    wrong positions (a degenerate pair) and the trap's value at the others."""
    got = TRAP.clone()
    got[1] = 0.0
    assert has_signature(call(ORACLE), got, TRAP, TOL)


def test_wrong_where_the_trap_is_right_is_a_second_mistake():
    got = TRAP.clone()
    got[2] = 0.9  # the trap is right here
    assert not has_signature(call(ORACLE), got, TRAP, TOL)


def test_wrong_another_way_at_the_trap_s_positions_is_not_the_trap():
    got = TRAP.clone()
    got[4] = 1e9  # a clamp(min=1e-6) blow-up, not the trap's value
    assert not has_signature(call(ORACLE), got, TRAP, TOL)


def test_a_narrower_slip_shows_the_mistake_on_too_few_positions():
    got = ORACLE.clone()
    got[0] = TRAP[0]  # one of the trap's three wrong positions
    assert not has_signature(call(ORACLE), got, TRAP, TOL)


def test_either_dtype_the_contract_accepts():
    """A loss in float32 and returned in the input's fp16, where the trap returns float32."""
    loss = fn("loss", ())
    exp = torch.tensor(2.0, dtype=torch.float64)
    trap = torch.tensor(2.5, dtype=torch.float32)
    c = call(exp, torch.float16, loss)
    assert has_signature(c, trap.to(torch.float16), trap, TOL)
    assert not has_signature(c, trap.to(torch.float64), trap, TOL)  # float64 is not a loss dtype here
    # a contract with one dtype: the trap's own dtype only
    assert not has_signature(call(ORACLE, torch.float16, fn("float")), TRAP.half(), TRAP, TOL)


def test_a_match_check_needs_the_trap_s_shapes():
    """lora_init returning (B, A): A comes back (d_out, r), so it is not zero-a-random-b's result."""
    init = fn("float32", ("r", "d_in"), ("d_out", "r"))
    trap = (torch.zeros(2, 5), torch.randn(7, 2))
    c = call((torch.zeros(2, 5), torch.zeros(7, 2)), function=init)
    assert same_shapes(c, (torch.zeros(2, 5), torch.ones(7, 2)), trap)
    assert not same_shapes(c, (torch.zeros(7, 2), torch.ones(2, 5)), trap)
    assert not same_shapes(c, torch.zeros(2, 5), trap)


def test_a_separate_dtype_reason_and_what_it_says():
    c = call(ORACLE)
    assert dtype_slip(c, TRAP.long(), TRAP, False, TOL) is None  # int64 of the trap's values is not the trap's
    assert dtype_slip(c, (TRAP * 4).round().double(), (TRAP * 4).round(), False, TOL) == (
        "dtype float64, expected float32")
    assert dtype_slip(c, ORACLE.double(), TRAP, True, TOL) == "dtype float64, expected float32"
    assert dtype_slip(c, TRAP.double(), TRAP, True, TOL) is None  # the trap passes here, the values do not
    assert dtype_slip(c, TRAP.clone(), TRAP, False, TOL) is None  # no dtype at fault: nothing to say


def _prep(reference: types.ModuleType, calls: list[Call], *traps: Trap) -> Prepared:
    spec = types.SimpleNamespace(id="toy", traps=traps, tolerance=TOL, invariants=(), call_kwargs={})
    return Prepared(spec, 1, calls, reference)  # type: ignore[arg-type]


def _ok(value) -> CallOutcome:
    return CallOutcome(status="ok", value=value)


def test_match_traps_names_the_trap_and_the_case_that_fails_for_another_reason():
    """No-clip on every case, and one integer case that also comes back in float64."""
    ref = types.ModuleType("ref")
    ref.trap_no_clip = lambda x: x * 0 + TRAP  # type: ignore[attr-defined]
    calls = [call(ORACLE, index=i, name=n, function=fn()) for i, n in enumerate(("a", "b", "integer-wh"))]
    trap = Trap("no-clip", "matches no clip", "trap_no_clip", "f")
    results = [CaseResult(c.name, "f", "wrong") for c in calls]
    outcome = ChildOutcome(calls={0: _ok(TRAP.clone()), 1: _ok(TRAP.clone()), 2: _ok(ORACLE.double())})
    for c in calls:
        c.args.append(torch.zeros(6))
    match = match_traps(_prep(ref, calls, trap), outcome, results)
    assert match is None  # integer-wh: the trap fails there, the solution is right but for its dtype
    outcome.calls[2] = _ok(TRAP.double())
    match = match_traps(_prep(ref, calls, trap), outcome, results)
    assert match is not None and match.id == "no-clip" and match.explains == ("a", "b", "integer-wh")
    assert match.note == ("matches no-clip on 3 of 3 failing cases; integer-wh also fails for another reason: "
                          "dtype float64, expected float32")


def test_a_trap_match_note_survives_the_wire():
    match = TrapMatch("no-clip", "m", "why", explains=("a", "b"), others=(("integer-wh", "dtype int64, expected float32"),))
    assert match.note == ("matches no-clip on 2 of 3 failing cases; integer-wh fails for another reason: "
                          "dtype int64, expected float32")
    data = match.to_dict(wire=True)
    assert data["explains"] == ["a", "b"] and data["note"] == match.note
    assert TrapMatch.from_dict(data) == match
    assert "others" not in TrapMatch("t", "m", explains=("a",)).to_dict()


def test_reading_past_the_index_counts_only_beside_the_trap_s_own_values():
    """A gather along the wrong axis raises where the index runs past that axis; the same mistake
    written with flat offsets returns garbage there instead. That counts only where the trap's values
    show on another case (garbage alone is any mistake)."""
    ref = types.ModuleType("ref")

    def trap_gather_wrong_axis(x):
        if x.numel() == 7:
            raise RuntimeError("index 9 is out of bounds for dimension 1 with size 7")
        return x * 0 + TRAP

    ref.trap_gather_wrong_axis = trap_gather_wrong_axis  # type: ignore[attr-defined]
    trap = Trap("gather-wrong-axis", "matches gathering along time", "trap_gather_wrong_axis", "f")
    fits = call(ORACLE, index=0, name="fits", function=fn())
    past = call(ORACLE, index=1, name="past-the-end", function=fn())
    fits.args.append(torch.zeros(6))
    past.args.append(torch.zeros(7))
    results = [CaseResult("fits", "f", "wrong"), CaseResult("past-the-end", "f", "wrong")]
    garbage = _ok(torch.full((6,), 3.0))
    outcome = ChildOutcome(calls={0: _ok(TRAP.clone()), 1: garbage})
    match = match_traps(_prep(ref, [fits, past], trap), outcome, results)
    assert match is not None and match.id == "gather-wrong-axis"
    alone = ChildOutcome(calls={1: garbage})
    assert match_traps(_prep(ref, [past], trap), alone, results[1:]) is None
    raised = ChildOutcome(calls={0: _ok(TRAP.clone()), 1: CallOutcome(
        status="raised", exc={"type": "IndexError", "message": "index 12 is out of bounds for dimension 1 with size 7"})})
    assert match_traps(_prep(ref, [fits, past], trap), raised, results).id == "gather-wrong-axis"  # indexing's error
    wrong_shape = ChildOutcome(calls={0: _ok(TRAP.clone()), 1: _ok(torch.zeros(6, 1))})
    assert match_traps(_prep(ref, [fits, past], trap), wrong_shape, results) is None


# A mask turned around: rows 0 and 2 attend to the padding (the trap's values), row 1 had no padding,
# so every key was hidden. The trap (finfo.min fill) spreads that row evenly; -inf makes it NaN.
ROW_ORACLE = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]])
ROW_TRAP = torch.tensor([[1.1, 1.2, 1.3], [0.5, 0.5, 0.6], [1.7, 1.8, 1.9]])  # row 1: even spread, close at [1, 2]


def row_call(expected=ROW_ORACLE) -> Call:
    function = FunctionSpec("f", (X,), (ReturnSpec(("N", "N"), "float", None),), tuple_return=False)
    return Call(0, CaseSpec("c"), function, {"N": 3}, [], expected, torch.float32, torch.bool)


def test_nan_in_the_trap_s_wrong_rows_is_the_same_mistake_with_another_fill():
    from grader.judge.signature import shows_finite_values

    got = ROW_TRAP.clone()
    got[1] = float("nan")  # the whole row, even where the trap's spread value is close to the oracle
    assert has_signature(row_call(), got, ROW_TRAP, TOL, nonfinite=True)
    assert not has_signature(row_call(), got, ROW_TRAP, TOL)  # read so only when asked (no trap matches strictly)
    assert shows_finite_values(row_call(), got, ROW_TRAP, TOL)
    only_nan = ROW_TRAP.clone()
    only_nan[:] = float("nan")
    assert has_signature(row_call(), only_nan, ROW_TRAP, TOL, nonfinite=True)  # the case fits ...
    assert not shows_finite_values(row_call(), only_nan, ROW_TRAP, TOL)  # ... but shows nothing of the trap's


def test_nan_in_a_row_the_trap_gets_right_is_a_second_mistake():
    trap = ROW_TRAP.clone()
    trap[1] = ROW_ORACLE[1]  # the trap is right on row 1
    got = trap.clone()
    got[1, 0] = float("nan")
    assert not has_signature(row_call(), got, trap, TOL, nonfinite=True)


def test_a_trap_that_makes_the_nan_itself_is_named_before_one_read_through_the_nan():
    """mask-value's lesson is -inf against -1e9: a solution with the -inf trap's NaN is named as
    that trap, not as the -1e9 trap listed before it, whose finite wrong rows the NaN would fit."""
    from grader.judge.attribution import TrapResult

    spread, neg_inf = Trap("spread", "matches -1e9", "trap_spread", "f"), Trap("neg-inf", "matches -inf", "trap_inf", "f")
    nan_row = ROW_TRAP.clone()
    nan_row[1] = float("nan")
    calls = [Call(0, CaseSpec("c0"), row_call().function, {"N": 3}, [], ROW_ORACLE, torch.float32, torch.bool)]
    prep = types.SimpleNamespace(spec=types.SimpleNamespace(traps=(spread, neg_inf), tolerance=TOL), calls=calls,
                                 fake=None, reference=None, trap_results={
                                     ("spread", 0): TrapResult(value=ROW_TRAP, passes=False),
                                     ("neg-inf", 0): TrapResult(value=nan_row, passes=False)})
    outcome = types.SimpleNamespace(calls={0: types.SimpleNamespace(status="ok", value=nan_row.clone(), exc=None)})
    named = match_traps(prep, outcome, [CaseResult("c0", "f", "wrong")])  # type: ignore[arg-type]
    assert named is not None and named.id == "neg-inf"


def test_a_solution_nan_everywhere_is_named_for_no_trap():
    """A trap wrong everywhere would fit every case of a solution that is NaN everywhere: the
    attribution names it only beside a case that shows the trap's finite values."""
    trap = Trap("spread", "matches spreading", "trap_spread", "f")
    calls = [row_call() for _ in range(2)]
    calls = [Call(i, CaseSpec(f"c{i}"), c.function, c.sizes, [], c.expected, c.dtype, c.mask_dtype)
             for i, c in enumerate(calls)]
    spec = types.SimpleNamespace(traps=(trap,), tolerance=TOL)
    nan = torch.full((3, 3), float("nan"))

    def graded(values):
        from grader.judge.attribution import TrapResult

        prep = types.SimpleNamespace(spec=spec, calls=calls, trap_results={
            ("spread", c.index): TrapResult(value=ROW_TRAP, passes=False) for c in calls}, fake=None, reference=None)
        outcome = types.SimpleNamespace(calls={c.index: types.SimpleNamespace(status="ok", value=v, exc=None)
                                               for c, v in zip(calls, values)})
        results = [CaseResult(c.case.name, "f", "wrong") for c in calls]
        return match_traps(prep, outcome, results)  # type: ignore[arg-type]

    assert graded([nan, nan]) is None
    shown = ROW_TRAP.clone()
    shown[1] = float("nan")
    named = graded([shown, nan])
    assert named is not None and named.id == "spread"


def _graded_partly(values, results_verdicts, trap_values, trap_passes):
    """partial_trap on hand-built cases: the trap's outputs and the solution's, case by case."""
    from grader.judge.attribution import TrapResult, partial_trap

    trap = Trap("triple", "matches tripling", "trap_triple", "f")
    calls = [Call(i, CaseSpec(f"c{i}"), fn(), {"N": 6}, [], ORACLE, torch.float32, torch.bool)
             for i in range(len(values))]
    spec = types.SimpleNamespace(traps=(trap,), tolerance=TOL)
    prep = types.SimpleNamespace(spec=spec, calls=calls, fake=None, reference=None, trap_results={
        ("triple", c.index): TrapResult(value=t, passes=p) for c, t, p in zip(calls, trap_values, trap_passes)})
    outcome = types.SimpleNamespace(calls={c.index: types.SimpleNamespace(status="ok", value=v, exc=None)
                                           for c, v in zip(calls, values)})
    results = [CaseResult(c.case.name, "f", v) for c, v in zip(calls, results_verdicts)]
    return partial_trap(prep, outcome, results)  # type: ignore[arg-type]


def test_a_second_mistake_does_not_hide_the_first_it_is_reported_as_partial():
    other = ORACLE.clone()
    other[2] = 9.0  # wrong where the trap is right: another mistake
    part = _graded_partly([TRAP, TRAP, other, ORACLE], ["wrong", "wrong", "wrong", "pass"],
                          [TRAP, TRAP, ORACLE, ORACLE], [False, False, True, True])
    assert part is not None and part.id == "triple"
    assert part.explains == ("c0", "c1") and part.unexplained == ("c2",)
    assert part.note == "matches triple on 2 of 3 failing cases; c2 fails another way, which triple does not explain"


def test_no_partial_match_where_the_trap_s_mistake_is_absent_or_explains_too_little():
    other = ORACLE.clone()
    other[2] = 9.0
    # the solution passes a case the trap fails: it does not make the trap's mistake
    assert _graded_partly([TRAP, ORACLE, other], ["wrong", "pass", "wrong"],
                          [TRAP, TRAP, ORACLE], [False, False, True]) is None
    # half the failing cases is not most of them
    assert _graded_partly([TRAP, other], ["wrong", "wrong"], [TRAP, ORACLE], [False, True]) is None
    # every failing case explained is a named trap's business, not a partial one's
    assert _graded_partly([TRAP, TRAP], ["wrong", "wrong"], [TRAP, TRAP], [False, False]) is None
    # a ban, a timeout or a missing function is no trap's to explain, even in part
    assert _graded_partly([TRAP, TRAP, other], ["wrong", "wrong", "timeout"],
                          [TRAP, TRAP, ORACLE], [False, False, True]) is None


def test_a_partial_match_names_a_case_by_its_function_where_two_functions_share_the_case():
    from grader.judge.attribution import _labels

    shared = [CaseResult("pad-id-zero", "pad_batch", "wrong"), CaseResult("pad-id-zero", "last_hidden", "wrong"),
              CaseResult("two-rows", "pad_batch", "wrong")]
    assert _labels(shared) == ["pad-id-zero (pad_batch)", "pad-id-zero (last_hidden)", "two-rows"]
