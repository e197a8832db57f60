"""Grading trusted code in this process, without the sandbox.

For drill content only (a debug round's planted code, like the reference and its
traps, is the author's and is imported in-process anyway): the source is run as a
module here, each prepared call made on fresh copies of its inputs, and the
outcome judged by the one judge (grader.engine.judge), so the verdict, the cases
and the trap named are those a sandboxed grade gives. The device case and memory
at scale run on fake tensors here too (grader.fake.checks). Heavy cases are left
out: they are built to exhaust memory, which a sandbox child may do and this
process must not. No fork and no confinement per file: a few times faster, which is
what lets `drill validate` and a test grade every debug round of every drill.
"""
from __future__ import annotations

import dataclasses
import logging
import time

import torch

from grader import sandbox
from grader.cases.prepare import Prepared, fresh
from grader.engine import judge
from grader.fake import checks as fake
from grader.judge.attribution import decoded_form
from grader.report import Report
from grader.sandbox.solution import describe_exception, new_module, run_source


def grade_trusted(prep: Prepared, source: str, filename: str = "<trusted>") -> Report:
    """The report the sandbox would give `source` on `prep`'s cases, heavy cases aside."""
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
            with torch.no_grad():
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
