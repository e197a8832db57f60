"""Judging the drill's own code in this process: the reference, its traps and the empty
skeleton are the author's (or the grader's) code, not a person's, so `drill validate` runs
them here, with the variant's keyword arguments (grader.cases.prepare.with_kwargs), and
judges their results with the same judge as a sandboxed solution (grader.engine.judge).
Only the sample solutions go through the sandbox: they are written the way people write.

What is left out against a sandboxed run: the bans, the input-modification check and the
fake-tensor checks (device case, memory at scale), which speak about a solution; the
reference's device run is proved when its plan is made (grader.fake.checks.plan), and the
reference file itself is still graded once through the sandbox (grader.authoring.validation).
"""
from __future__ import annotations

import dataclasses
import logging
import time
import warnings
from typing import Any, Callable

import torch

from grader.cases.prepare import CaseError, Prepared, deadline, fresh, kwargs_taken, with_kwargs
from grader.judge.attribution import decoded_form
from grader.report import Report
from grader import sandbox
from grader.fake import checks as fake
from grader.sandbox import CallOutcome, ChildOutcome, Limits, describe_exception
from grader.sandbox.solution import new_module, run_source


def outcome_of(prep: Prepared, functions: dict[str, Callable[..., Any]], filename: str) -> ChildOutcome:
    """What a sandbox run of these functions would report on every call of `prep`, run here."""
    out = ChildOutcome(finished=True)
    out.fake = []  # not asked for: nothing is missing (grader.engine.judge)
    out.missing = sorted({c.function.name for c in prep.calls if c.function.name not in functions})
    for call in prep.calls:
        func = functions.get(call.function.name)
        if func is None:
            continue
        try:
            with torch.no_grad():
                value = func(*fresh(call.args))
        except Exception as exc:  # noqa: BLE001 - the code under judgement may raise on purpose
            out.calls[call.index] = CallOutcome("raised", exc=describe_exception(exc, filename))
        else:
            out.calls[call.index] = CallOutcome("ok", decoded_form(value))
    return out


def grade_trusted(prep: Prepared, functions: dict[str, Callable[..., Any]], filename: str) -> Report:
    from grader.engine import single_threaded_autograd

    with single_threaded_autograd():
        return _grade_trusted(prep, functions, filename)


def _grade_trusted(prep: Prepared, functions: dict[str, Callable[..., Any]], filename: str) -> Report:
    """The report these functions would get as a solution of `prep`, judged here."""
    from grader import engine

    try:  # the drill's own code, run here: a loop in it is stopped in CPU time, and said
        with deadline(engine.JUDGE_SECONDS, f"{filename} did not finish its cases and their judging within "
                                            f"{engine.JUDGE_SECONDS:g} s of CPU time (a loop?)", cpu=True):
            # the fake-tensor checks speak about a solution, not asked for here (module docstring): no plan to judge
            report = engine.judge(dataclasses.replace(prep, fake=None), outcome_of(prep, functions, filename), Limits())
    except CaseError as exc:
        report = Report(prep.spec.id, "internal", [], seed=prep.seed, message=f"{prep.spec.path}: {exc}")
    report.variant = dict(prep.spec.variant)
    return report


def reference_functions(prep: Prepared, kwargs: bool = True) -> dict[str, Callable[..., Any]]:
    """The reference's contract functions, given the variant's keyword arguments (or, with
    `kwargs` False, as a person's memorised default answer: called without them)."""
    out = {}
    for fn in prep.spec.functions:
        func = getattr(prep.reference, fn.name, None)
        if callable(func):
            out[fn.name] = with_kwargs(func, prep.spec.call_kwargs) if kwargs else func
    return out


def trap_functions(prep: Prepared, swapped: dict[str, str]) -> dict[str, Callable[..., Any]]:
    """The reference's functions with some swapped for a trap's (drill function -> trap function:
    Trap.functions), all under the variant."""
    out = reference_functions(prep)
    for replaces, trap_function in swapped.items():
        func = getattr(prep.reference, trap_function, None)
        if callable(func):
            out[replaces] = with_kwargs(func, prep.spec.call_kwargs)
        else:
            out.pop(replaces, None)
    return out


def skeleton_functions(prep: Prepared) -> dict[str, Callable[..., Any]]:
    """The empty skeleton's functions (Spec.skeleton): each returns None."""
    return {fn.name: (lambda *args: None) for fn in prep.spec.functions}


def bound_source(prep: Prepared, source: str, names: dict[str, str]) -> str:
    """`source` with each contract function `name` rebound to `target` given the variant's keyword
    arguments it takes (names: name -> target, a trap's function or the name itself), for the
    sandbox, which calls a solution with no keywords. Plain Python, no import: a child may import
    only what the drill allows."""
    lines = [source, ""]
    for name, target in names.items():
        func = getattr(prep.reference, target, None)
        given = kwargs_taken(func, prep.spec.call_kwargs) if callable(func) else {}
        if given:
            lines.append(f"{name} = (lambda _f: (lambda *a: _f(*a, **{given!r})))({target})")
        elif name != target:
            lines.append(f"{name} = {target}")
    return "\n".join(lines) + "\n"


def grade_source(prep: Prepared, source: str, filename: str = "<trusted>") -> Report:
    """The report the sandbox would give `source` (drill content: a debug round's planted code)
    on `prep`'s cases, heavy cases aside (built to exhaust memory, which a sandbox child may do
    and this process must not); the device case and memory at scale run on fake tensors here too."""
    from grader.engine import judge

    light = dataclasses.replace(prep, calls=[c for c in prep.calls if not c.case.heavy])
    outcome = sandbox.ChildOutcome()
    t0 = time.monotonic()
    module = new_module(source, filename)
    try:
        run_source(module, source, filename)
    except BaseException as exc:  # noqa: BLE001 - a broken round is reported, not raised
        outcome.load_error = describe_exception(exc, filename)
        outcome.fake = []
        return judge(light, outcome, sandbox.Limits())
    names = [f.name for f in prep.spec.functions]
    outcome.missing = [n for n in names if not callable(module.__dict__.get(n))]
    for call in light.calls:
        func = module.__dict__.get(call.function.name)
        if not callable(func):
            continue
        try:
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch's notes on a planted bug are not validate's output
                value = func(*fresh(call.args))
        except Exception as exc:  # noqa: BLE001 - a planted bug may raise on purpose
            outcome.calls[call.index] = sandbox.CallOutcome("raised", exc=describe_exception(exc, filename))
            continue
        outcome.calls[call.index] = sandbox.CallOutcome("ok", value=decoded_form(value))
    plan = light.fake
    if plan is not None and plan.active:
        quiet = logging.getLogger("torch._subclasses.fake_tensor")  # a meta failure is the verdict's, not a log's
        level = quiet.level
        quiet.setLevel(logging.CRITICAL)
        try:
            outcome.fake = fake.run_plan(plan, module, filename, describe_exception)
        finally:
            quiet.setLevel(level)
    else:
        outcome.fake = []
    outcome.finished = True
    outcome.elapsed = time.monotonic() - t0
    return judge(light, outcome, sandbox.Limits())
