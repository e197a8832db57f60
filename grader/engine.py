"""The grader: prepare cases, run a submission in the sandbox, judge every call.

`Grader` is the in-process engine used by `drill check`, `drill validate`
and the worker. It caches prepared cases per (drill, seed) and the
banned-call locations per drill, so a warm grader only forks and compares.
"""
from __future__ import annotations

import dataclasses
import re
import time
from collections import OrderedDict
from typing import Any, Mapping

import torch


from grader import sandbox
from grader.bans import trace as ban_trace
from grader.bans import calls as bans
from grader.fake import GRADIENT_CALL, scale
from grader.fake.checks import settle_autograd
from grader.judge import endings
from grader.judge import gradient as gradient_judge
from grader.cases.gradient import SERVER as GRADIENT_SERVER, GradientUnavailable, plan as gradient_plan
from grader.cases.gradient import not_applicable as gradient_not_applicable
from grader.judge import smallest as smallest_case
from grader.judge.attribution import match_traps, partial_trap
from grader.cases.prepare import (PREPARE_SECONDS, CaseError, Call, ExpectedRaise, Prepared, deadline, helper, new_seed,
                                  prepare)
from grader.judge.compare import Verdict, compare_call
from grader.dims import confirmed_labels, explain_shape
from grader.judge.invariants import first_problem
from grader.judge import shape_comments
from grader.report import CaseKind, CaseResult, Report, Smallest, bytes_text, decide, exception_text
from grader.catalogue import Catalogue, load_catalogue
from grader.spec import Spec
from grader.spec.variants import describe

_ALLOC = re.compile(r"tried to allocate (\d+) bytes")
_SKIPPED = "a real case fails: the gradient case is run once every real case passes"
JUDGE_SECONDS = 60.0  # CPU seconds for the drill's own code that judges one run (invariants, checker, traps)


def single_threaded_autograd() -> Any:
    """A context in which a backward run here (a drill's oracle that differentiates, as a backward drill's
    does) stays on the calling thread: a multithreaded backward starts autograd's device threads, after
    which no process forked from this one can run a backward at all (grader.cases.gradient computes the
    reference's gradients in a forked child). The setting is per thread, so every entry into drill code
    in this process (building cases, judging) takes it."""
    return torch.autograd.set_multithreading_enabled(False)


class Grader:
    def __init__(self, catalogue: Catalogue | None = None, limits: sandbox.Limits | None = None, cache_size: int = 16,
                 device: str = "cpu"):
        self.catalogue = catalogue or load_catalogue()
        self.device = device  # "cuda": the calls run on the GPU (grader.fake.cuda; `drill check --device cuda`)
        self.limits = limits or sandbox.Limits()
        self._prepared: OrderedDict[tuple[str, int, bool, str], Prepared] = OrderedDict()
        self._ban_places: dict[str, list[tuple[str, str, str]]] = {}
        self._count_places: dict[str, list[tuple[str, str, str]]] = {}
        self._fake_plans: dict[tuple[str, str], Any] = {}  # (drill id, variant) -> grader.fake.checks.Plan
        self._cache_size = cache_size
        self.hidden = self.catalogue.hidden()  # what a sandbox child may not read (Limits.hidden)
        settle_autograd()  # before any fake device is seen here, and before the forks below (grader.fake.checks)
        GRADIENT_SERVER.start()  # before any drill code runs here (grader.cases.gradient)
        single_threaded_autograd().__enter__()  # this thread's own setting (it is per thread), for good
        sandbox.ZYGOTE.start()  # the children's clean parent imports torch meanwhile (grader.sandbox.zygote)

    # ------------------------------------------------------------ caches

    def spec(self, drill_id: str, variant: Mapping[str, str] | None = None) -> Spec:
        """The drill's spec, under `variant` (axis -> value; a UsageError for an unknown one)."""
        spec = self.catalogue.get(drill_id)
        return spec.under(variant) if variant else spec

    def prepared(self, spec: Spec, seed: int, example: bool = False) -> Prepared:
        """The drill's cases for this seed, under the variant the spec is under (Spec.under)."""
        with single_threaded_autograd():
            return self._prepared_now(spec, seed, example)

    def _prepared_now(self, spec: Spec, seed: int, example: bool) -> Prepared:
        variant = describe(spec.variant)
        key = (spec.id, seed, example, variant)
        if key in self._prepared:
            self._prepared.move_to_end(key)
            return self._prepared[key]
        prep = prepare(spec, seed, example=example)
        if not example and self.device == "cpu":  # a CUDA grader's process must never touch CUDA, even fake
            if (spec.id, variant) not in self._fake_plans:
                with deadline(PREPARE_SECONDS, f"{spec.path}: the reference did not finish its fake-tensor runs within "
                                               f"{PREPARE_SECONDS:g} s of CPU time", cpu=True):
                    self._fake_plans[spec.id, variant] = scale.plan_for(spec, prep)
            prep.fake = self._fake_plans[spec.id, variant]
        if not example:  # the reference's input gradients: once per drill, seed and variant, like its outputs
            try:
                with deadline(PREPARE_SECONDS, f"{spec.path}: the reference's gradients did not finish within "
                                               f"{PREPARE_SECONDS:g} s of CPU time", cpu=True):
                    prep.gradient = gradient_plan(prep)
            except GradientUnavailable as exc:  # said on every report of this drill, never a silent pass
                prep.gradient_unavailable = str(exc)
        self._prepared[key] = prep
        while len(self._prepared) > self._cache_size:
            self._prepared.popitem(last=False)
        return prep

    def ban_places(self, spec: Spec) -> list[tuple[str, str, str]]:
        if spec.id not in self._ban_places:  # imports nothing: a name not imported yet is guarded at its import
            self._ban_places[spec.id] = bans.locations(spec.banned, with_helpers=True)
        return self._ban_places[spec.id]

    def count_places(self, spec: Spec) -> list[tuple[str, str, str]]:
        """Module attributes holding a `must_call` object, wrapped with call counters in the child."""
        if spec.id not in self._count_places:
            self._count_places[spec.id] = bans.locations(tuple(spec.must_call))
        return self._count_places[spec.id]

    # ----------------------------------------------------------- grading

    def grade(self, drill_id: str, source: str, filename: str = "<buffer>", seed: int | None = None,
              limits: sandbox.Limits | None = None, variant: Mapping[str, str] | None = None,
              comments: bool = True) -> Report:
        """Grade `source` on the drill's cases for `seed`, under `variant` (the contract when None or {}).
        `comments=False` leaves the shape comments out (a traced run of its own): the REPL shows the
        verdict first and asks for them after (`shape_comments`); `drill check` waits for them."""
        spec = self.spec(drill_id, variant)
        seed = seed if seed is not None else new_seed()
        t0 = time.monotonic()
        try:
            prep = self.prepared(spec, seed)
        except Exception as exc:  # noqa: BLE001 - our fault, never the person's
            return Report(spec.id, "internal", [], time.monotonic() - t0, seed=seed,
                          message=f"the grader could not build the cases: {exc}", variant=dict(spec.variant))
        report = self.grade_prepared(prep, source, filename, limits)
        if comments:
            report.shape_comments = self._shape_comments(spec, source, filename, seed)
        report.seconds = time.monotonic() - t0
        return report

    def shape_comments(self, drill_id: str, source: str, filename: str = "<buffer>", seed: int = 1,
                       variant: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
        """What `grade` puts in a report's shape_comments, on its own: asked for after the verdict."""
        return self._shape_comments(self.spec(drill_id, variant), source, filename, seed)

    def _shape_comments(self, spec: Spec, source: str, filename: str, seed: int) -> list[dict[str, Any]]:
        """The solution's shape comments against its `:try` trace on the example inputs of the variant
        it was graded under (`spec` is Spec.under it: its arguments' shapes); [] (and no run) without any."""
        if not shape_comments.comments(source):
            return []
        from grader import trace

        return shape_comments.check(source, trace.trace(self, spec.id, source, filename, seed=seed,
                                                        variant=dict(spec.variant) or None, gpu=False))

    def grade_prepared(self, prep: Prepared, source: str, filename: str = "<buffer>",
                       limits: sandbox.Limits | None = None, known_fake: list[dict] | None = None) -> Report:
        """`known_fake`: the fake-tensor runs of this very code, already known (the reference's, from its
        plan: grader.fake.checks.reference_results): the child does not repeat them."""
        spec = prep.spec
        job, limits = self.job_for(prep, source, filename, limits, fake=known_fake is None)
        on_gpu = self.device != "cpu"
        compared: dict[tuple[int, int], Verdict] = {}  # each returned value's comparison, made once (_judge_call)
        moot = (lambda o: _forward_fails(prep, o, limits, compared)) if job.gradient else None
        try:
            outcome = sandbox.run(job, limits, moot)
        except OSError as exc:
            return Report(spec.id, "internal", [], seed=prep.seed, message=f"could not start the sandbox: {exc}",
                          variant=dict(spec.variant))
        if known_fake is not None and outcome.finished and not outcome.load_error and not outcome.refused:
            outcome.fake = known_fake
        if job.fake is None and outcome.fake is None:
            outcome.fake = []  # none were asked for: nothing is missing
        try:  # the drill's own invariants, checker and traps run here: a loop in them is the drill's fault
            with deadline(JUDGE_SECONDS, f"the drill's own checks (invariants, checker, traps) did not finish within "
                                         f"{JUDGE_SECONDS:g} s of CPU time", cpu=True):
                with single_threaded_autograd():
                    report = judge(prep, outcome, limits, compared)
        except CaseError as exc:
            return Report(spec.id, "internal", [], outcome.elapsed, seed=prep.seed, message=f"{spec.path}: {exc}",
                          variant=dict(spec.variant))
        report.variant = dict(spec.variant)
        if on_gpu:
            from grader.fake import cuda

            report.notes.append(f"ran on {self.device}; relaxed for the CUDA child: " + "; ".join(cuda.RELAXED))
        return report

    def job_for(self, prep: Prepared, source: str = "", filename: str = "<buffer>",
                limits: sandbox.Limits | None = None, fake: bool = True) -> tuple[sandbox.Job, sandbox.Limits]:
        """The sandbox job grading `source` on `prep`'s cases, and its limits (`fake`: with the device
        case and memory at scale, where the plan has them and the device is the CPU)."""
        spec = prep.spec
        limits = limits or self._limits_for(spec)
        if not limits.hidden:
            limits = dataclasses.replace(limits, hidden=self.hidden)
        on_gpu = self.device != "cpu"
        if on_gpu:
            from grader.fake import cuda

            limits = cuda.limits_for(limits)
        job = sandbox.Job(
            source=source,
            filename=filename,
            functions=[f.name for f in spec.functions],
            calls=[(c.index, c.function.name, c.args, [a.name for a in c.function.args]) for c in prep.calls],
            banned=spec.banned,
            ban_places=self.ban_places(spec) if spec.banned else [],
            ban_kernels=ban_trace.kernels(prep) if spec.banned else {},
            must_call=dict(spec.must_call),
            count_places=self.count_places(spec) if spec.must_call else [],
            forget=self._forget_answers,
            fake=prep.fake if prep.fake is not None and prep.fake.active and not on_gpu and fake else None,
            device=self.device,
            gradient=[g.for_child() for g in prep.gradient] if not on_gpu else [],
        )
        if job.fake is not None:
            job.warm = lambda: scale.warm(prep)
        return job, limits

    def smallest(self, report: Report, source: str, filename: str = "<buffer>",
                 budget: float | None = None) -> Smallest | None:
        """The smallest failing sizes of the case `report` shows (grader.judge.smallest), searched
        in this warm grader; the standby child waiting for the next submission is kept aside."""
        with sandbox.STANDBY.aside():
            return smallest_case.for_report(self, report, source, filename,
                                            smallest_case.BUDGET if budget is None else budget)

    def _forget_answers(self) -> None:
        """Run in the sandbox child only (its copy of memory): drop the expected
        outputs and reference modules, so a solution walking frames cannot find them."""
        for prep in self._prepared.values():
            prep.reference = None  # type: ignore[assignment]
            for call in prep.calls:
                call.expected = None
            prep.trap_results.clear()

    def _limits_for(self, spec: Spec) -> sandbox.Limits:
        base = self.limits
        case_timeout = max([base.case_timeout, spec.timeout] + [c.timeout or 0 for c in spec.cases])
        return dataclasses.replace(base, case_timeout=case_timeout,
                                   total_timeout=max(base.total_timeout, case_timeout * 2))


# --------------------------------------------------------------- judging


def judge(prep: Prepared, outcome: sandbox.ChildOutcome, limits: sandbox.Limits,
          compared: dict[tuple[int, int], Verdict] | None = None) -> Report:
    """The report of a run. `compared`: the comparisons of returned values already made for this outcome
    (`_forward_fails` makes them while the child runs its gradient case), filled with the ones made here."""
    spec = prep.spec
    if outcome.refused:
        return Report(spec.id, "internal", [], outcome.elapsed, seed=prep.seed,
                      message="not run: the sandbox must be confined and this machine cannot: "
                              + "; ".join(f"{k}: {v}" for k, v in outcome.unconfined.items()))
    results: list[CaseResult] = []
    run_message = ""
    if outcome.load_error:
        exc = outcome.load_error
        run_message = exception_text(exc, at_load=True)
    stopped_at = outcome.timeout_call
    for call in prep.calls:
        res = _judge_call(prep, call, outcome, limits, compared)
        if res.verdict != "pass" and not outcome.load_error and not any(a.shape for a in call.function.args):
            res.inputs = _inputs_text(call)  # no tensor in sight: the values are the case
        results.append(res)
    try:
        fake_results, report_scale, fake_notes = scale.judge(prep.fake, outcome.fake, outcome)
    except Exception as exc:  # noqa: BLE001 - whatever a forged report trips over is the solution's error
        verdict, message = endings.told(endings.Ending.CHANNEL, outcome, limits,
                                        channel=f"an ill-formed fake-tensor report: {type(exc).__name__}")
        fake_results, report_scale, fake_notes = [_run_entry(verdict, message)], None, []
    passed = {call.index for call, res in zip(prep.calls, results) if res.verdict == "pass"}
    results.extend(_gradient_results(prep, outcome, passed, limits))
    results.extend(fake_results)
    if outcome.banned:
        run_message = f"called {outcome.banned}, which this drill bans: write it by hand"
        if not any(r.verdict == "banned" for r in results):
            results.append(_run_entry("banned", run_message))
    for ending in endings.run_endings(outcome):
        verdict, message = endings.told(ending, outcome, limits)
        if not any(r.verdict == verdict and r.message.startswith(message[:40]) for r in results):
            results.append(_run_entry(verdict, message))
    if outcome.missing and not run_message:
        run_message = "missing: " + ", ".join(f"{n}()" for n in outcome.missing)
    if stopped_at == -1:
        run_message = f"the file did not finish loading within {limits.case_timeout:g} s (a loop at module level?)"
    confirm_axis_names(prep, results)
    report = Report(spec.id, decide(results), results, outcome.elapsed, seed=prep.seed,
                    message=run_message, output=outcome.output_head)
    report.alone = bool(outcome.load_error) or stopped_at == -1  # the file itself failed: one message says it
    report.notes.extend(f"not enforced on this machine: {k} ({v})" for k, v in outcome.unconfined.items())
    report.scale = report_scale
    report.notes.extend(fake_notes)
    report.not_checked = [n.to_dict() for n in fake_notes if isinstance(n, scale.NotChecked)]
    report.not_applicable = scale.not_applicable(prep.fake) + gradient_not_applicable(prep)
    if outcome.gradient_skipped:
        report.notes.append(f"gradient case: not checked — {_SKIPPED}")
        report.not_checked.append({"check": "gradient", "function": "", "why": _SKIPPED})
    if prep.gradient_unavailable:
        report.notes.append(f"gradient case: not checked — {prep.gradient_unavailable}")
        report.not_checked.append({"check": "gradient", "function": "", "why": prep.gradient_unavailable})
    if report.verdict in ("wrong", "error", "memory"):
        _name_trap(prep, outcome, results, report)
    return report


def _name_trap(prep: Prepared, outcome: sandbox.ChildOutcome, results: list[CaseResult], report: Report) -> None:
    """The trap a failure is (grader.judge.attribution), or the partial match. Forward traps are named on
    the real cases: the gradient case is told beside them, never counted against a name. A backward trap
    is named on the gradient case (grader.judge.gradient.match_trap), once every real case passed."""
    forward = [r for r in results if r.kind != CaseKind.GRADIENT]
    report.trap = match_traps(prep, outcome, forward)
    if report.trap is None and all(r.verdict == "pass" for r in forward if r.kind == CaseKind.CASE):
        report.trap = gradient_judge.match_trap(prep, outcome, _gradient_tolerance(prep))
        if report.trap is not None:
            for res in results:
                if res.kind == CaseKind.GRADIENT and res.verdict != "pass":
                    res.trap = report.trap.id
    if report.trap is None:  # a second mistake must not hide the first: said as partial, never as the cause
        report.partial_trap = partial_trap(prep, outcome, forward)


def _forward_fails(prep: Prepared, outcome: sandbox.ChildOutcome, limits: sandbox.Limits,
                   compared: dict[tuple[int, int], Verdict] | None = None) -> bool:
    """Whether a real case has failed already, read as the child starts its gradient case (sandbox.run's
    `moot`): the verdict is then the forward's, and the gradient case, told only for a forward that passes,
    is not waited for. The judge looks again at the end (in-place writes are read from the arguments'
    memory then): this only decides whether to wait. Drill code that fails here decides nothing."""
    try:
        with deadline(JUDGE_SECONDS, "the drill's own checks did not finish", cpu=True), single_threaded_autograd():
            return any(_judge_call(prep, call, outcome, limits, compared).verdict != "pass" for call in prep.calls)
    except Exception:  # noqa: BLE001 - the judge meets it again, and says so
        return False


def _gradient_results(prep: Prepared, outcome: sandbox.ChildOutcome, passed: set[int],
                      limits: sandbox.Limits) -> list[CaseResult]:
    """The gradient case of each call whose forward passed (a wrong forward is told its forward first;
    its gradient says nothing more), against the reference's (grader.judge.gradient). A run that ended
    during the gradient case (a crash, an exit, a deadline, the memory watchdog) is told on the case it
    was running, once: every real case having answered, nothing else would say it."""
    if not prep.gradient or outcome.load_error or outcome.refused or outcome.gradients is None:
        return []  # none asked for, none ran (the drill's own code judged in-process; a file that did not load),
        # or the child was stopped before it, a real case having failed (outcome.gradient_skipped)
    calls = {c.index: c for c in prep.calls}
    atol, rtol = _gradient_tolerance(prep)
    out = []
    for case in prep.gradient:
        call = calls.get(case.index)
        if call is None or case.index not in passed:
            continue
        got = outcome.gradients.get(case.index)
        if got is None and not outcome.finished:
            out.extend(_gradient_ending(call, case, outcome, limits))
            break  # the cases after it never ran: the ending is said once
        if got is not None and "fork-based multiprocessing" in str(got.get("text", "")):
            continue  # the child could not run any backward (forked after one ran here): nothing to say of the code
        out.append(gradient_judge.judge(case, call, got, (atol, rtol)))
    return out


def _gradient_ending(call: Call, case: Any, outcome: sandbox.ChildOutcome, limits: sandbox.Limits) -> list[CaseResult]:
    """How the run ended during `call`'s gradient case, told on it (grader.judge.endings); [] when it did not
    end there, or when a run-level entry already says it (a broken channel, threads, disk, tampering)."""
    if outcome.running_call != GRADIENT_CALL:
        return []
    how = endings.ending_of(GRADIENT_CALL, outcome, limits, here=True)
    if how in endings.run_endings(outcome):
        return []
    name = f"{call.case.name} (its gradient case)"
    verdict, message = endings.told(how, outcome, limits, case=name, running=f"while running case {name}")
    return [CaseResult(call.name, case.function, verdict, f"gradient case: {message}", dims=dict(call.sizes),
                       kind=CaseKind.GRADIENT)]


def _gradient_tolerance(prep: Prepared) -> tuple[float, float]:
    """(atol, rtol) of the gradient case: the spec's float32 tolerance, else grader.judge.gradient's."""
    atol, rtol = gradient_judge.FLOAT32_TOLERANCE
    tol = prep.spec.tolerance.get("float32") if isinstance(prep.spec.tolerance, dict) else None
    if tol is not None:
        atol, rtol = float(getattr(tol, "atol", atol)), float(getattr(tol, "rtol", rtol))
    return atol, rtol


def _run_entry(verdict: str, message: str) -> CaseResult:
    """A result about the run as a whole, not one case (CaseKind.RUN)."""
    return CaseResult("(run)", "-", verdict, message, kind=CaseKind.RUN)


def _judge_call(prep: Prepared, call: Call, outcome: sandbox.ChildOutcome, limits: sandbox.Limits,
                compared: dict[tuple[int, int], Verdict] | None = None) -> CaseResult:
    res = CaseResult(call.case.name, call.function.name, "pass", dims=dict(call.sizes), id=call.case.id)
    spec = prep.spec
    if outcome.load_error:
        res.verdict, res.line = "error", outcome.load_error.get("line")
        res.message = exception_text(outcome.load_error, at_load=True)
        return res
    if call.function.name in outcome.missing:
        res.verdict = "missing"
        res.message = f"{call.function.name}() is not defined at module level; write def {call.function.signature()}:"
        return res
    got = outcome.calls.get(call.index)
    if got is None:
        return _not_finished(prep, call, outcome, limits, res)
    if got.status == "banned":
        res.verdict = "banned"
        res.message = f"called {got.exc.get('message') if got.exc else outcome.banned}, which this drill bans"
        if got.exc and got.exc.get("type") == "CallCount":
            res.message = str(got.exc.get("message"))
        return res
    if got.status == "raised":
        res = _judge_raise(spec, call, got.exc or {}, res)
        if res.verdict == "memory" and "asked for" not in res.message:
            res.message += f" (more than the {bytes_text(limits.memory_bytes)} allowed on top of the starting size)"
        return res
    if got.modified:
        res.verdict = "wrong"
        res.message = f"modified its input {', '.join(got.modified)} in place; work on a copy (x = x.clone()) or out-of-place ops"
        return res
    key = (call.index, id(got.value))  # the outcome holds the value: its id is its own while `compared` lives
    v = compared.get(key) if compared is not None else None
    if v is None:
        v = _run_checker(prep, call, got.value) if call.function.checker else compare_call(call, got.value, spec.tolerance)
        if compared is not None:
            compared[key] = v
    _fill(res, v)
    if v.verdict == "pass" and call.function.checker is None:
        problem = first_problem(prep, call, got.value)
        if problem:
            res.verdict, res.message = "wrong", f"invariant: {problem}"
    return res


def _inputs_text(call: Call) -> str:
    text = ", ".join(f"{a.name}={v!r}" for a, v in zip(call.function.args, call.args))
    return text if len(text) <= 300 else text[:297] + "..."


def confirm_axis_names(prep: Prepared, results: list[CaseResult]) -> None:
    """Re-explain wrong shapes with axis names that hold on every case of the same function
    and rank (a product such as B*P is named only then: on one case it may be chance)."""
    groups: dict[tuple[str, str, int], list[tuple[Call, CaseResult]]] = {}
    for call, res in zip(prep.calls, results):
        if res.shape_names is not None and res.got_shape is not None and res.expected_shape is not None:
            groups.setdefault((call.function.name, res.shape_prefix, len(res.got_shape)), []).append((call, res))
    for members in groups.values():
        if len(members) < 2:
            continue
        labels = confirmed_labels([(tuple(r.got_shape or ()), c.sizes) for c, r in members])
        for call, res in members:
            res.message = res.shape_prefix + "shape: " + explain_shape(
                res.shape_names or (), tuple(res.expected_shape or ()), tuple(res.got_shape or ()), call.sizes, labels)


def _run_checker(prep: Prepared, call: Call, got: Any) -> Verdict:
    """A spec's own comparison (`checker: py:name`): returns a problem text or None."""
    check = helper(prep.spec, prep.reference, call.function.checker or "py:")
    try:
        problem = check(call, got)
    except Exception as exc:  # noqa: BLE001 - a checker crash on odd output means the output is wrong
        problem = f"the result could not be checked ({type(exc).__name__}: {exc})"
    return Verdict("wrong", problem) if problem else Verdict("pass")


def _fill(res: CaseResult, v: Verdict) -> None:
    res.verdict, res.message = v.verdict, v.message
    res.expected_shape, res.got_shape = v.expected_shape, v.got_shape
    res.shape_names, res.shape_prefix = v.shape_names, v.prefix
    if v.line is not None:
        res.line = v.line


def _while_running(prep: Prepared, call: Call, outcome: sandbox.ChildOutcome) -> tuple[str, bool]:
    """Where the child was when it ended ('while running case X', 'while loading the file'),
    and whether that was this call."""
    at = outcome.running_call
    if at == -1:
        return "while loading the file", False
    name = next((c.case.name for c in prep.calls if c.index == at), None) if at is not None else None
    if name is None or at == call.index:
        return f"while running case {name or call.case.name}", True
    return f"while running case {name}", False


def _not_finished(prep: Prepared, call: Call, outcome: sandbox.ChildOutcome, limits: sandbox.Limits,
                  res: CaseResult) -> CaseResult:
    """A call with no result: how the child ended, told by the one table (grader.judge.endings)."""
    running, here = _while_running(prep, call, outcome)
    how = endings.ending_of(call.index, outcome, limits, here)
    res.verdict, res.message = endings.told(how, outcome, limits, case=call.case.name, running=running,
                                            where=f" {running}" if how == endings.Ending.THREADS else "")
    return res


def _judge_raise(spec: Spec, call: Call, exc: dict, res: CaseResult) -> CaseResult:
    mro = exc.get("mro") or [exc.get("type", "Exception")]
    etype = str(exc.get("type", "Exception"))
    res.line = exc.get("line")
    if isinstance(call.expected, ExpectedRaise):
        if any(t in mro for t in call.expected.types):
            res.verdict = "pass"
            return res
        res.verdict = "error"
        res.message = f"expected {' or '.join(call.expected.types)}, but it raised {exception_text(exc)}"
        return res
    msg = str(exc.get("message", ""))
    alloc = _ALLOC.search(msg)
    if etype == "MemoryError" or alloc or "can't allocate memory" in msg or "not enough memory" in msg.lower():
        res.verdict = "memory"
        res.message = _memory_text(call, int(alloc.group(1)) if alloc else None, exc)
        return res
    if any(t in mro for t in call.function.raises):
        res.verdict = "wrong"
        res.message = f"raised {exception_text(exc)} on a case that has an answer"
        return res
    res.verdict = "error"
    res.message = exception_text(exc)
    return res


def _memory_text(call: Call, nbytes: int | None, exc: dict) -> str:
    line = exc.get("line")
    where = f" at line {line}" if line else ""
    if nbytes is None:
        return f"ran out of memory{where} on case {call.case.name}"
    text = f"asked for {bytes_text(nbytes)}{where} on case {call.case.name}"
    culprit = _broadcast_culprit(call, nbytes)
    if culprit:
        text += f": that is {culprit}, an accidental outer broadcast"
    return text


def _broadcast_culprit(call: Call, nbytes: int) -> str:
    names = [n for n, v in call.sizes.items() if v > 1]
    for itemsize in (call.dtype.itemsize if hasattr(call.dtype, "itemsize") else 4, 4, 8, 2, 1):
        if nbytes % itemsize:
            continue
        elems = nbytes // itemsize
        for a in names:
            for b in names:
                if call.sizes[a] * call.sizes[b] == elems:
                    return f"a ({a}, {b}) = ({call.sizes[a]}, {call.sizes[b]}) tensor, e.g. ({a},) against ({b}, 1)"
        for a in names:
            for b in names:
                for c in names:
                    if call.sizes[a] * call.sizes[b] * call.sizes[c] == elems:
                        return f"a ({a}, {b}, {c}) = ({call.sizes[a]}, {call.sizes[b]}, {call.sizes[c]}) intermediate"
    return ""
