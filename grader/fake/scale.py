"""The device case and memory at scale: arguments at the scale sizes, and the
verdicts drawn from the child's fake runs (grader.fake.checks runs them).

- `scale_sketches(spec, fn, reference, sizes)`: a function's arguments at the
  spec's `scale:` sizes (or others), as shape + dtype sketches (nothing allocated);
  `grown_sizes(spec)`: the scale sizes with each named dimension doubled.
- `judge(plan, runs, outcome)`: CaseResults `device` (per function: the
  solution ran with every tensor input on cuda:0 and returned its tensors
  there, with the reference's shapes and dtypes) and `scale` (every function
  measured: `memory` when its peak grows faster than the reference's in some
  dimension (grader.fake.growth), or passes the spec's `max_bytes`), the
  report's `scale` summary, and notes (the same growth with a larger constant
  is one, never a failure).
"""
from __future__ import annotations

import random
from typing import Any

from grader.dims import name_axis, shape_names, shape_text
from grader.fake import growth
from grader.report import CaseKind, CaseResult, bytes_text, exception_where

FIX = "device=x.device, x.new_zeros(...)/x.new_tensor(...), torch.zeros_like(x), or .to(x)"


class NotChecked(str):
    """A note saying that a fake-tensor check did not run for a function, and why: a
    `str` (the report's notes), which also carries its parts for the JSON `not_checked`."""

    check: str
    function: str
    why: str

    def __new__(cls, check: str, function: str, why: str) -> NotChecked:
        label = "device case" if check == "device" else "scale"
        note = super().__new__(cls, f"{label}: not checked for {function}() \u2014 {why}")
        note.check, note.function, note.why = check, function, why
        return note

    def to_dict(self) -> dict[str, str]:
        return {"check": self.check, "function": self.function, "why": self.why}


# ------------------------------------------------------------ arguments


def grown_sizes(spec: Any) -> dict[str, dict[str, int]]:
    """Each named (not derived) dimension of size >= 1 -> the scale sizes with it doubled,
    the derived dimensions following their formulas."""
    from grader.dims import eval_expr

    base = dict(spec.scale.dims)
    out = {}
    for name, rule in spec.dims.items():
        if rule.derived or base.get(name, 0) < 1:
            continue
        sizes = {k: v for k, v in base.items() if k not in spec.dims or not spec.dims[k].derived}
        sizes[name] = 2 * base[name]
        try:
            for rule2 in spec.dims.values():
                if rule2.derived:
                    sizes[rule2.name] = eval_expr(rule2.expr or "0", sizes)
        except (KeyError, ValueError, ZeroDivisionError):
            continue
        out[name] = sizes
    return out


def scale_sketches(spec: Any, fn: Any, reference: Any, sizes: dict[str, int] | None = None) -> tuple[list[Any] | None, str]:
    """(sketches of fn's arguments at the scale sizes (or `sizes`), "") or (None, why not)."""
    import torch

    from grader.cases import prepare as cases
    from grader.cases import generators
    from grader.fake.checks import Sketch, sketch

    sizes = dict(spec.scale.dims if sizes is None else sizes)
    base = cases._example_case(spec)
    dtype = cases.DTYPES["float32"]
    mask = cases.DTYPES["bool"]
    ctx = generators.Context(torch.Generator().manual_seed(1), random.Random(1), sizes, dtype, mask,
                             base.params, base, {}, {}, reference)
    out: list[Any] = []
    made: dict[str, Any] | None = None
    if _sizes_from_values(fn, sizes):
        try:  # the builder sets the Python values that size the result (a grid's hi from X): build them for real
            made = cases.helper(spec, reference, fn.inputs)(ctx)
        except Exception as exc:  # noqa: BLE001 - an author's generator that cannot scale
            return None, f"the inputs could not be built at the scale sizes ({type(exc).__name__}: {exc})"
    for arg in fn.args:
        if made is not None and not arg.is_tensor and arg.name in made:
            out.append(sketch(made[arg.name]))
            continue
        if arg.is_tensor:
            try:
                shape = tuple(cases.eval_expr(s if not s.isdigit() else int(s), sizes) for s in arg.shape)
            except (KeyError, ValueError) as exc:
                return None, f"argument {arg.name}: cannot size it at the scale sizes ({exc})"
            out.append(Sketch(shape, cases.resolve_dtype(arg.dtype, ctx) or dtype))
            continue
        if arg.gen is None and (fn.inputs is None or arg.param is not None or arg.value is not None):
            try:
                out.append(cases._make_arg(spec, arg, ctx))
            except cases.CaseError as exc:
                return None, f"argument {arg.name}: {exc}"
            continue
        try:  # a Python value built by a generator: build it for real at the scale sizes
            if fn.inputs:
                value = cases.helper(spec, reference, fn.inputs)(ctx)[arg.name]
            else:
                value = cases._make_arg(spec, arg, ctx)
        except Exception as exc:  # noqa: BLE001 - an author's generator that cannot scale
            return None, f"argument {arg.name} could not be built at the scale sizes ({type(exc).__name__}: {exc})"
        out.append(sketch(value))
    return out, ""


def _sizes_from_values(fn: Any, sizes: dict[str, int]) -> bool:
    """The result has a dimension no tensor argument has, and Python arguments come from the
    inputs builder: those values size the result (a grid's lo, hi and cell size make its X)."""
    import re

    if not fn.inputs or all(a.is_tensor or a.value is not None for a in fn.args):
        return False
    names = lambda shapes: {n for shape in shapes for s in shape for n in re.findall(r"[A-Za-z_]\w*", str(s))}  # noqa: E731
    given = names(a.shape for a in fn.args if a.is_tensor)
    made = names(r.shape for r in fn.returns if r.is_tensor)
    return any(sizes.get(n, 0) >= 1 for n in made - given)


# --------------------------------------------------------------- words


def sizes_text(sizes: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sizes.items())


def culprit_text(culprit: list | None, sizes: dict[str, int]) -> str:
    """'an (N, M, d) intermediate' from the largest tensor alive at the peak."""
    if not culprit:
        return ""
    shape = [int(s) for s in culprit[:-2]]
    names = tuple(name_axis(s, sizes) if s >= 0 else "?" for s in shape)
    if not names:
        return ""
    text = shape_names(names) if any(not n.isdigit() for n in names) else shape_text(shape)
    article = "an" if text[1:2].upper() in "AEFHILMNORSX" else "a"
    return f"{article} {text} {culprit[-2]} intermediate of {bytes_text(int(culprit[-1]))}"


# ---------------------------------------------------------------- judging


def judge(plan: Any, runs: list[dict] | None, outcome: Any) -> tuple[list[CaseResult], dict | None, list[str]]:
    """The fake-tensor cases of one submission: (case results, the report's scale summary, notes)."""
    if plan is None:
        return [], None, []
    if plan.problem is not None:
        return [], None, [f"no device/scale check: {plan.problem}"]
    results: list[CaseResult] = []
    notes: list[str] = []
    measured: list[dict[str, Any]] = []
    got = {r.get("function"): r.get("runs") or [] for r in runs or [] if isinstance(r, dict)}
    failed = {r.get("function"): r.get("failed") for r in runs or [] if isinstance(r, dict) and r.get("failed")}
    for fp in plan.functions:
        if not fp.scale and fp.why_no_scale not in _NOT_TENSORS:
            notes.append(f"memory at scale not measured for {fp.name}(): {fp.why_no_scale}")
        if not (fp.device or fp.scale):
            continue
        unrun = _unrun(fp, runs, got, str(failed.get(fp.name) or getattr(outcome, "fake_failed", "")), outcome)
        if unrun is not None:
            results.extend(r for r in unrun if isinstance(r, CaseResult))
            notes.extend(n for n in unrun if isinstance(n, str))
            if runs is None and unrun:
                break
            continue
        fruns = got[fp.name]
        big = next((r for r in fruns if r.get("sizes") == "scale"), None)
        small = next((r for r in fruns if r.get("sizes") == "small"), None)
        if fp.device:
            res, note = _device_case(fp, plan, big if big and big.get("status") != "too_many_ops" else small)
            if res is not None:
                results.append(res)
            if note:
                notes.append(note)
        if fp.scale and big is not None:
            res, row, note = _scale_case(fp, plan, big, [r for r in fruns if r.get("sizes") == "grown"],
                                         [r for r in fruns if r.get("sizes") == "real"])
            if res is not None:
                results.append(res)
            if row is not None:
                measured.append(row)
            if note:
                notes.append(note)
    return results, _summary(plan, measured), notes


_NOT_TENSORS = ("it takes no tensors", "no case runs it", "")


def not_applicable(plan: Any) -> list[dict[str, str]]:
    """The device and scale checks that do not apply to a function at all, and why (the report's
    `not_applicable`): it takes no tensors, the spec opts out of the device case, or declares no
    production sizes. A check that applies but could not run is `not_checked`, never this."""
    if plan is None or plan.problem is not None:
        return []
    out = []
    for fp in plan.functions:
        for check, ran, why_not in (("device", fp.device, fp.why_no_device), ("scale", fp.scale, fp.why_no_scale)):
            why = why_not[len(_OPTED_OUT):] if why_not.startswith(_OPTED_OUT) else _INAPPLICABLE.get(why_not, "")
            if not ran and why:
                out.append({"check": check, "function": fp.name, "why": why})
    return out


# the plan's reasons (grader.fake.checks.plan) that make a check inapplicable, as the report says them
_INAPPLICABLE = {"it takes no tensors": "no argument is a tensor",
                 "the spec declares no scale: sizes": "the drill declares no production sizes"}
_OPTED_OUT = "opted out: "  # the spec's own reason follows (no_device_case)


def _unrun(fp: Any, runs: list[dict] | None, got: dict, why_failed: str, outcome: Any) -> list | None:
    """For a function whose fake runs did not come back whole: its notes and error cases
    (a list, maybe empty); None when they did. The parent asked for these runs, so it
    knows what must come back: a report without them, or an impossible one, is `error`."""
    if outcome is None:  # judged without a child's outcome (the :try trace): nothing to say beyond the runs
        return None if fp.name in got else []
    checks = [c for c, on in (("device", fp.device), ("scale", fp.scale)) if on]
    if _solution_missing(fp.name, outcome):
        return []  # its real cases say `missing` or the load error
    if why_failed:
        return [NotChecked(c, fp.name, f"the fake-tensor run itself failed ({why_failed})") for c in checks]
    if fp.name not in got:
        # the child ended earlier (its real cases say how), or was stopped during the fake runs
        # themselves (a note: fake tensors have limits); a report that came without it is forged
        if runs is None:
            if getattr(outcome, "protocol_error", ""):
                return [NotChecked(c, fp.name, "the solution broke the result channel (its error says how)")
                        for c in checks]
            return [NotChecked(c, fp.name, f"not finished: {_how_stopped(outcome)}") for c in checks] \
                if _fake_run_stopped(outcome) else []
        return [_forged(fp.name, "has no run of it")]
    impossible = _impossible(fp, got[fp.name])
    return [_forged(fp.name, impossible)] if impossible else None


def _forged(name: str, what: str) -> CaseResult:
    """A fake-tensor report the trusted child could not have sent: the solution wrote it (or broke the meter)."""
    return CaseResult("(run)", name, "error", kind=CaseKind.RUN, message=
                      f"the fake-tensor report for {name}() {what}: the solution wrote on the grader's result "
                      "channel or patched its meter, so its device and memory checks cannot be trusted")


def _impossible(fp: Any, fruns: list[dict]) -> str:
    """What makes a function's runs impossible for the trusted child (grader.fake.checks.run_plan), or ""."""
    fruns = [r for r in fruns if r.get("sizes") not in ("grown", "real")]  # those carry only their peak
    sizes = [r.get("sizes") for r in fruns]
    big = next((r for r in fruns if r.get("sizes") == "scale"), None)
    if fp.scale and big is None:
        return "has no run at the scale sizes"
    if fp.device and "small" not in sizes and (big is None or big.get("status") == "too_many_ops"):
        return "has no run at the small sizes"
    if any(r.get("device") != fp.run_device for r in fruns):
        return "ran on another device than the grader asked for"
    for run in fruns:
        if run.get("status") != "ok":
            continue
        fresh = run.get("fresh_bytes")
        if fresh is None:
            return "lacks the size of its result"
        if not run.get("unknown_bytes") and int(run.get("peak") or 0) < int(fresh):
            return (f"gives a peak of {bytes_text(int(run.get('peak') or 0))}, below the "
                    f"{bytes_text(int(fresh))} its own result holds")
    return ""


def _solution_missing(name: str, outcome: Any) -> bool:
    return bool(outcome.load_error) or name in (outcome.missing or [])


def _fake_run_stopped(outcome: Any) -> bool:
    """The child was stopped or died during the fake runs, after every real call had its result:
    a limit of fake tensors more likely than the person's fault, so a note, not a verdict."""
    from grader.fake.checks import FAKE_CALL

    return outcome.timeout_call == FAKE_CALL or outcome.running_call == FAKE_CALL


def _how_stopped(outcome: Any) -> str:
    """How the child's fake-tensor phase ended early: its runs on fake tensors, or the memory runs on real
    tensors at reduced sizes that follow them where fake tensors could not follow the code (grader.fake.real)."""
    if outcome.timeout_call is not None:
        return (f"the runs on fake tensors (and any on real ones at reduced sizes) took longer than "
                f"{outcome.timeout_seconds:g} s (fake tensors make some code slow)")
    if outcome.memory_killed:
        return "the runs on fake tensors (and any on real ones at reduced sizes) used too much memory and were stopped"
    return "the runs on fake tensors (and any on real ones at reduced sizes) ended the process"


def _device_case(fp: Any, plan: Any, run: dict | None) -> tuple[CaseResult | None, str]:
    if run is None:
        return None, ""
    at_scale = run.get("sizes") == "scale"
    sizes = dict(plan.sizes) if at_scale else dict(getattr(fp, "small_sizes", {}) or {})
    res = CaseResult("device", fp.name, "pass", dims=sizes, kind=CaseKind.DEVICE)
    status = run.get("status")
    if status == "too_many_ops":
        return None, NotChecked("device", fp.name, "more than the tensor-operation limit even at small sizes")
    if run.get("data_moved") and (status == "raised" and (run.get("exc") or {}).get("device_mix") or status == "ok"):
        return None, NotChecked("device", fp.name, _data_moved(run))
    if status == "raised":
        exc = run.get("exc") or {}
        first = str(exc.get("message", "")).strip().splitlines()[0][:200].rstrip("!.") if exc.get("message") else ""
        if exc.get("device_mix"):
            res.verdict = "error"
            made = run.get("made_at")
            res.line = made[0] if made else exc.get("line")  # where the fix goes: the line that made the CPU tensor
            where = exception_where(exc)
            text = "with its inputs on a GPU (cuda:0) it mixes devices"
            text += f" at {where}" if where else ""
            text += f": {first}."
            if made and made[0] != exc.get("line"):
                text += f" The CPU tensor is made at line {made[0]}" + (f" ({made[1]})" if made[1] else "") + "."
            text += f" Make new tensors on the inputs' device: {FIX}."
            res.message = text
            return res, ""
        if exc.get("type") in ("BannedCall", "CallCount"):
            return None, ""  # the run-level verdict says it
        if exc.get("needs_values"):
            from grader.fake.checks import value_reader

            what = value_reader(f"{exc.get('type')}: {exc.get('message', '')}")
            where = exception_where(exc)
            return None, NotChecked("device", fp.name, (
                f"it reads tensor values ({what if len(what) < 90 else exc.get('type')}"
                f"{', ' + where if where else ''}), which fake tensors do not have"))
        # any other raise: the real cases show whether the code runs; fake tensors have limits of their own
        where = exception_where(exc)
        return None, NotChecked("device", fp.name, f"on fake CUDA tensors at {sizes_text(sizes)} it raised "
                                f"{exc.get('type', 'Exception')}: {first}" + (f" at {where}" if where else ""))
    outputs = run.get("outputs") or []
    expected = (fp.expected_scale if at_scale else fp.expected_small) or []
    for i, out in enumerate(outputs):
        dev = str(out.get("device", ""))
        if "shape" in out and not dev.startswith("cuda"):
            res.verdict = "error"
            which = f"output {i}" if len(outputs) > 1 else "its result"
            made = run.get("made_at")
            res.line = made[0] if made else None
            res.message = (f"with its inputs on a GPU (cuda:0) it returns {which} on the {dev.upper() or 'CPU'}: "
                           "a tensor made without the inputs' device"
                           + (f" (at line {made[0]}" + (f": {made[1]}" if made[1] else "") + ")" if made else "")
                           + f". Make it with {FIX}.")
            return res, ""
    problem = _shape_problem(fp, outputs, expected, sizes)
    if problem:
        res.verdict = "wrong"
        res.message = f"with fake CUDA inputs at {sizes_text(sizes)}: {problem}"
    return res, ""


def _data_moved(run: dict) -> str:
    """Why a device case cannot be judged: a `.data` assignment across devices (grader.fake.meter.watch_data)."""
    line, text = (run.get("data_moved") or [0, ""])[:2]
    at = f" at line {line}" + (f" ({text})" if text else "") if line else ""
    return (f"it assigns a tensor on another device to a tensor's .data{at}; on a GPU that moves the tensor "
            "(as torch's Module.to does), but fake tensors leave it on the CPU, so they cannot tell where it runs")


def _missing_result(outputs: list[dict], expected: list[dict]) -> str:
    """What is missing from a run's result against the reference's: fewer values, or no tensor where
    the reference returns one (None from a stub); "" when nothing is. A wrong shape or dtype is still
    memory the code made, and the scale case compares it."""
    if len(outputs) < len(expected):
        return f"returns {len(outputs)} value(s) where the reference returns {len(expected)}"
    for i, (got, want) in enumerate(zip(outputs, expected)):
        if "shape" in want and "shape" not in got:
            which = f"value {i} is" if len(expected) > 1 else "returns"
            return f"{which} {_python(got)} where the reference returns a tensor"
    return ""


def _python(value: dict) -> str:
    """A returned non-tensor in words: None, an int, a list."""
    kind = str(value.get("python") or "")
    if kind == "NoneType":
        return "None"
    return (f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}") if kind else "no tensor"


def _shape_problem(fp: Any, outputs: list[dict], expected: list[dict], sizes: dict[str, int]) -> str:
    if len(outputs) != len(expected):
        return f"returned {len(outputs)} value(s) where the reference returns {len(expected)}"
    for i, (got, want) in enumerate(zip(outputs, expected)):
        if ("shape" in got) != ("shape" in want):
            return f"value {i} is {'a tensor' if 'shape' in got else _python(got)} where the reference returns " \
                   f"{'a tensor' if 'shape' in want else _python(want)}"
        if "shape" not in got:
            continue
        g, w = got["shape"], want["shape"]
        if len(g) != len(w) or any(a is not None and b is not None and a != b for a, b in zip(g, w)):
            return f"value {i} has shape {_shape(g, sizes)} where the reference's is {_shape(w, sizes)}"
        if got.get("dtype") != want.get("dtype"):
            return f"value {i} is {got.get('dtype')} where the reference's is {want.get('dtype')}"
    return ""


def _shape(shape: list, sizes: dict[str, int]) -> str:
    names = tuple(name_axis(s, sizes) if s is not None else "?" for s in shape)
    nums = "(" + ", ".join("?" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
    if names and any(not n.isdigit() and n != "?" for n in names):
        return f"{shape_names(names)} = {nums}"
    return nums


def _scale_case(fp: Any, plan: Any, run: dict, grown: list[dict],
                real: list[dict] | None = None) -> tuple[CaseResult | None, dict | None, str]:
    """The scale case of one function: `memory` when its peak grows faster than the larger of the reference's
    peak and its inputs' bytes in some dimension, or passes the spec's max_bytes; the same growth with a larger
    constant is a note. Where fake tensors could not follow the code, the growth measured on real CPU tensors
    at reduced sizes (grader.fake.real) is judged the same way."""
    where = sizes_text(plan.sizes)
    if run.get("status") == "too_many_ops":
        from grader.fake.checks import MAX_OPS, MAX_SECONDS

        return None, None, NotChecked("scale", fp.name, f"more than {MAX_OPS} tensor operations (or {MAX_SECONDS:g} s) "
                                      f"at {where} (a Python loop over a production-size dimension?)")
    lost = _fake_lost(fp, run, where)
    if lost is not None:
        if not isinstance(lost, NotChecked):
            return None, None, ""  # the run-level verdict, or the device case's error, says it
        if real and getattr(fp, "real", None) is not None:
            return _real_scale_case(fp, real, lost.why)
        if getattr(fp, "why_no_real", ""):  # the plan could not build real inputs to measure it on instead
            return None, None, NotChecked("scale", fp.name, f"{lost.why}; nor on real tensors: {fp.why_no_real}")
        return None, None, lost
    missing = _missing_result(run.get("outputs") or [], fp.expected_scale or [])
    if missing:  # a stub's `pass`: its peak is no memory to compare, and a pass would say it is fine
        return None, None, NotChecked("scale", fp.name, f"at {where} it {missing}: no memory to compare")
    peak, ref = int(run.get("peak") or 0), int(fp.reference_peak or 0)
    reference = growth.exponents(ref, dict(fp.reference_grown))
    inputs = int(getattr(fp, "input_bytes", 0) or 0)
    base, base_grown = growth.floor(ref, dict(fp.reference_grown), inputs, dict(getattr(fp, "input_grown", {}) or {}))
    floor = growth.exponents(base, base_grown)  # the larger of the reference's peak and the inputs' own bytes
    measured = {str(r.get("dim")): int(r.get("peak") or 0) for r in grown
                if r.get("status") == "ok" and not r.get("unknown_bytes") and r.get("dim") in reference}
    mine = growth.exponents(peak, measured)
    row: dict[str, Any] = {
        "peak_bytes": peak, "reference_peak_bytes": ref, "ratio": round(peak / ref, 2) if ref else None,
        "input_bytes": inputs, "measured": "fake",
        "upper_bound": bool(run.get("upper_bound") or getattr(fp, "reference_upper_bound", False)),
        "growth": {d: {"solution": mine.get(d), "reference": e} for d, e in reference.items()},
        "reference_grows_as": growth.monomial(reference)}
    res = CaseResult("scale", fp.name, "pass", dims=dict(plan.sizes), kind=CaseKind.SCALE)
    note = ""
    if mine and len(mine) == len(reference):
        row["grows_as"] = growth.monomial(mine)
    elif reference:
        row["growth_note"] = _unmeasured(fp, grown, peak, ref)
    fast = growth.faster(mine, floor)  # faster than the reference's peak and than the inputs' own size
    past_ref = growth.faster(mine, reference)
    row["faster_in"] = fast
    res.growth = mine
    figures = f"at {where} that is {bytes_text(peak)} against {bytes_text(ref)}"
    held = f" (its inputs hold {bytes_text(inputs)})" if inputs else ""
    if fast:
        res.verdict = "memory"
        culprit = culprit_text(run.get("culprit"), plan.sizes)
        dims = " and ".join(fast) if len(fast) < 3 else ", ".join(fast[:-1]) + " and " + fast[-1]
        res.message = (f"its peak memory grows faster in {dims}: it grows as {growth.monomial(mine)}; "
                       f"the reference's as {growth.monomial(reference)}; {figures}{held}"
                       + (f" (the largest tensor: {culprit})" if culprit else "")
                       + "; measured on fake tensors, nothing allocated")
    elif plan.max_bytes is not None and peak > plan.max_bytes:
        res.verdict = "memory"
        culprit = culprit_text(run.get("culprit"), plan.sizes)
        res.message = (f"peak {bytes_text(peak)} at {where}, more than this drill allows ({bytes_text(plan.max_bytes)}); "
                       f"the reference peaks at {bytes_text(ref)}" + (f": {culprit}" if culprit else "")
                       + " (measured on fake tensors, nothing allocated)")
    elif past_ref:
        dims = " and ".join(past_ref)
        note = (f"{fp.name}(): memory grows faster than the reference's in {dims} (as {growth.monomial(mine)} against "
                f"{growth.monomial(reference)}), but no faster than its inputs' own size: {figures}, and its inputs "
                f"hold {bytes_text(inputs)}; not a failure")
    elif ref and peak >= NOTE_RATIO * ref and mine and growth.same_order(mine, reference):
        note = (f"{fp.name}(): memory grows as the reference's ({growth.monomial(reference)}) with a larger constant: "
                f"{figures} ({peak / ref:.1f}x); not a failure")
    return res, {"function": fp.name, **row}, note


def _fake_lost(fp: Any, run: dict, where: str) -> NotChecked | str | None:
    """Why fake tensors could not measure this run (a NotChecked), "" when another verdict says why
    (a ban, the code's own device mix), None when they could."""
    if run.get("data_moved") and run.get("status") == "raised":
        return NotChecked("scale", fp.name, _data_moved(run))
    if run.get("status") != "ok":
        exc = run.get("exc") or {}
        if exc.get("type") in ("BannedCall", "CallCount") or exc.get("device_mix"):
            return ""
        if exc.get("needs_values"):
            from grader.fake.checks import value_reader

            what = value_reader(f"{exc.get('type')}: {exc.get('message', '')}")
            why = f"it reads tensor values ({what if len(what) < 90 else exc.get('type')}), which fake tensors do not have"
        else:
            first = str(exc.get("message", "")).strip().splitlines()[0][:200] if exc.get("message") else ""
            why = f"at {where} on fake tensors it raised {exc.get('type', 'Exception')}" + (f": {first}" if first else "")
        return NotChecked("scale", fp.name, why)
    if run.get("unknown_bytes"):
        return NotChecked("scale", fp.name, "it makes tensors whose sizes depend on the values with no upper bound, "
                          "which fake tensors cannot count")
    return None


def _real_scale_case(fp: Any, real: list[dict], why: str) -> tuple[CaseResult | None, dict | None, str]:
    """The scale case from the runs on real CPU tensors at reduced sizes (grader.fake.real), judged as a fake run is."""
    probe = fp.real
    at = sizes_text(probe.sizes)
    how = f"measured on real CPU tensors at {at} and with each dimension doubled, as fake tensors cannot follow the code ({why})"
    first = next((r for r in real if r.get("dim") == ""), None)
    if first is None or first.get("status") != "ok":
        did = "ran past its operation or time limit" if first and first.get("status") == "too_many_ops" else "raised"
        return None, None, NotChecked("scale", fp.name, f"{why}; on real CPU tensors at {at} it {did} too")
    peak, ref = int(first.get("peak") or 0), int(probe.reference_peak)
    reference = growth.exponents(ref, dict(probe.reference_grown))
    base, base_grown = growth.floor(ref, dict(probe.reference_grown), probe.input_bytes, dict(probe.input_grown))
    measured = {str(r.get("dim")): int(r.get("peak") or 0) for r in real
                if r.get("dim") in reference and r.get("status") == "ok"}
    mine = growth.exponents(peak, measured)
    from grader.fake.checks import GROWTH_BAND

    # at reduced sizes terms of lower order still weigh, so a growth is judged only where the peak there is already
    # clearly above the reference's and the inputs' (as a fake run is run at doubled sizes only above GROWTH_BAND)
    fast = growth.faster(mine, growth.exponents(base, base_grown)) if peak > GROWTH_BAND * base else []
    row: dict[str, Any] = {
        "peak_bytes": peak, "reference_peak_bytes": ref, "ratio": round(peak / ref, 2) if ref else None,
        "input_bytes": probe.input_bytes, "upper_bound": False, "measured": "real", "measured_sizes": dict(probe.sizes),
        "growth": {d: {"solution": mine.get(d), "reference": e} for d, e in reference.items()},
        "reference_grows_as": growth.monomial(reference), "faster_in": fast}
    if mine and len(mine) == len(reference):
        row["grows_as"] = growth.monomial(mine)
    elif reference:
        row["growth_note"] = "not measured on real tensors with " + ", ".join(d for d in reference if d not in mine) + " doubled"
    res = CaseResult("scale", fp.name, "pass", dims=dict(probe.sizes), kind=CaseKind.SCALE)
    res.growth = mine
    figures = f"there that is {bytes_text(peak)} against {bytes_text(ref)} (its inputs hold {bytes_text(probe.input_bytes)})"
    if fast:
        dims = " and ".join(fast) if len(fast) < 3 else ", ".join(fast[:-1]) + " and " + fast[-1]
        res.verdict = "memory"
        res.message = (f"its peak memory grows faster in {dims}: it grows as {growth.monomial(mine)}; the reference's as "
                       f"{growth.monomial(reference)}; {how}; {figures}")
    else:
        res.message = f"{how}; {figures}"
    return res, {"function": fp.name, **row}, ""


NOTE_RATIO = 2.0  # the same growth at this many times the reference's peak or more is worth a note


def _unmeasured(fp: Any, grown: list[dict], peak: int, ref: int) -> str:
    from grader.fake.checks import GROWTH_BAND

    if not grown:
        return (f"not measured at doubled sizes: the peak is within {GROWTH_BAND:g}x of the reference's"
                if peak <= GROWTH_BAND * ref else "not measured at doubled sizes")
    late = [str(r.get("dim")) for r in grown if r.get("status") != "ok" or r.get("unknown_bytes")]
    return f"not measured with {', '.join(late)} doubled (too many tensor operations or too slow there)"


def _summary(plan: Any, measured: list[dict[str, Any]]) -> dict | None:
    if not measured:
        return None
    parts = []
    for row in measured:
        ratio = f"{row['ratio']:.1f}x the reference" if row["ratio"] is not None else "the reference allocates nothing"
        head = f"{row['function']}(): " if len(measured) > 1 else ""
        bound = ", counting data-dependent sizes at their upper bound" if row.get("upper_bound") else ""
        grows = ""
        if row.get("grows_as"):
            same = row["grows_as"] == row["reference_grows_as"]
            grows = (f", growing as {row['grows_as']} like the reference" if same
                     else f", growing as {row['grows_as']} against the reference's {row['reference_grows_as']}")
            if not same and not row.get("faster_in") and row.get("input_bytes"):
                grows += f" but no faster than its inputs ({bytes_text(row['input_bytes'])})"
        if row.get("measured") == "real":
            head += f"on real CPU tensors at {sizes_text(row['measured_sizes'])} (fake tensors cannot follow the code), "
        parts.append(f"{head}{ratio} ({bytes_text(row['peak_bytes'])} vs {bytes_text(row['reference_peak_bytes'])}"
                     f"{bound}){grows}")
    functions = {row["function"]: {k: v for k, v in row.items() if k != "function"} for row in measured}
    return {"sizes": dict(plan.sizes), "max_bytes": plan.max_bytes, "functions": functions,
            "text": f"memory at scale ({sizes_text(plan.sizes)}): " + "; ".join(parts)}


# ------------------------------------------------------------- validate


def applies(plan: Any) -> list[str]:
    """One line per function for `drill validate`: whether the device case and the scale check apply, and why not."""
    if plan is None:
        return []
    if plan.problem is not None:
        return [f"no device/scale check on this machine: {plan.problem}"]
    lines = []
    for fp in plan.functions:
        device = "device case: yes" if fp.device else f"device case: no ({fp.why_no_device})"
        if fp.scale:
            ref = bytes_text(fp.reference_peak or 0)
            grows = growth.monomial(growth.exponents(fp.reference_peak or 0, dict(fp.reference_grown)))
            extra = f", at most {bytes_text(plan.max_bytes)}" if plan.max_bytes else ""
            extra += ", data-dependent sizes at their upper bound" if fp.reference_upper_bound else ""
            scale = f"scale: yes (reference peak {ref} at {sizes_text(plan.sizes)}, growing as {grows}{extra})"
        else:
            scale = f"scale: no ({fp.why_no_scale})"
        lines.append(f"{fp.name}(): {device}; {scale}")
    return lines


# ------------------------------------------------------------ the plan


def plan_for(spec: Any, prep: Any) -> Any:
    """The drill's fake-tensor plan (grader.fake.checks.plan), never raising: a failure is the plan's problem."""
    try:
        from grader.fake import checks as fake
    except Exception as exc:  # noqa: BLE001 - torch without the private API
        return _NoPlan(f"fake tensors are not importable ({type(exc).__name__}: {exc})")
    try:
        grown = grown_sizes(spec) if getattr(spec, "scale", None) else {}
        return fake.plan(spec, prep, lambda fn, sizes: scale_sketches(spec, fn, prep.reference, sizes), grown)
    except Exception as exc:  # noqa: BLE001 - a private API: degrade, never crash grading
        return fake.Plan(f"the fake-tensor plan failed ({type(exc).__name__}: {str(exc)[:160]})")


class _NoPlan:
    def __init__(self, problem: str):
        self.problem = problem
        self.functions: list[Any] = []
        self.active = False


def warm(prep: Any) -> None:
    """Run the reference's fake checks once (in a standby child, before it forgets the reference),
    so the pages and caches the solution's fake run touches are already this process's own."""
    from grader.fake import checks as fake

    if prep.reference is not None and prep.fake is not None and prep.fake.active:
        fake.run_plan(prep.fake, prep.reference, str(prep.spec.reference_path))
