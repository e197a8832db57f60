"""What runs inside the grading child: load the solution, call it on every
prepared case, send each result back.

The banned-call guards and must_call counters are installed first; where
each argument lives is noted before any of the solution's code runs (the
bytes are compared by the parent, in shared memory); a CUDA job copies the
arguments to the device and the results back (grader.fake.cuda); the device
case and memory at scale run last, on fake tensors (grader.fake.checks). A standby
child (grader.sandbox.standby) does all of the set-up ahead of time and
waits for its source.
"""
from __future__ import annotations

import dataclasses
import os
import sys
import time
from typing import Any, Callable

from grader import transport
from grader.sandbox import quiet
from grader.sandbox import inputs
from grader.sandbox.limits import Job, Limits
from grader.sandbox.prepare import CONFINED, _child_prepare, _child_setup
from grader.report import class_name, safe_message
from grader.sandbox.intact import Intact
from grader.sandbox.solution import describe_exception, new_module, run_source
from grader.sandbox.wire import GO_FD, _gradient_wanted, _read_go, _send
from grader.fake import GRADIENT_CALL


def _child(job: Job, limits: Limits, res_w: int, out_w: int, scratch: str, layout: inputs.Layout,
           arena: Any) -> None:
    """A freshly forked grading child: isolate it, forget the references, run the job."""
    if not _child_prepare(limits, res_w, out_w, scratch):
        return
    _child_setup(job)
    _run_job(job, None, layout.arguments(arena), _byte_check(layout, arena))  # the arguments exist before the solution is loaded


def _standby_child(template: Job, limits: Limits, res_w: int, out_w: int, scratch: str, go_r: int,
                   layout: inputs.Layout, arena: Any, rehearse: bool = True) -> None:
    """Prepared and confined ahead of time (`rehearse`: with the rehearsal, for an idle gap); waits for
    the source, then runs it."""
    if not _child_prepare(limits, res_w, out_w, scratch, go_r):
        return
    if rehearse:
        from grader.sandbox import rehearse as rehearsal

        # before the guards, so no drill's ban fires on it (grader.sandbox.rehearse)
        rehearsal.rehearse(real=bool(template.calls) and template.device == "cpu", gradient=bool(template.gradient),
                           fake=template.fake is not None)
    counts = _install_guards(template)
    warm = template.warm if template.warm is not None else (lambda: _warm_fake(template.fake))
    try:
        with quiet.machinery():
            warm()  # the reference's own fake run, or (from the zygote) the plan on stand-ins: off the clock
    except BaseException:  # noqa: BLE001, S110 - only a warm-up; the timed run reports its own errors
        pass
    _child_setup(template)
    copies = layout.arguments(arena)
    _warm(template, copies)
    built = _prebuild(template)
    placed = _placed(copies)  # where each argument is: no code of the solution's can have run yet
    message = _read_go(GO_FD)
    os.close(GO_FD)
    if message is None:
        os._exit(0)  # discarded, or the parent is gone
    source, filename, _ = message
    _run_job(dataclasses.replace(template, source=source, filename=filename), counts, copies,
             _byte_check(layout, arena), built=built, placed=placed)


def _prebuild(job: Job) -> dict[str, Any]:
    """The fake runs' modes and arguments, made while the standby child waits (grader.fake.checks.prebuild):
    with the cache setting _run_fake gives a child that runs one file. {} when there is nothing to make."""
    if job.fake is None or not getattr(job.fake, "active", False):
        return {}
    from grader.fake import checks as fake

    try:
        with quiet.machinery():
            return fake.prebuild(job.fake, cache=False)
    except BaseException:  # noqa: BLE001 - only time saved: the run makes them itself
        return {}


def _warm_fake(plan: Any) -> None:
    """A child forked from the zygote holds no reference to warm its fake-tensor runs with: the plan
    is run on stand-ins that touch each tensor argument (its fake tensors, shape symbols and meter)."""
    if plan is None or not getattr(plan, "active", False):
        return
    import torch

    from grader.fake import checks as fake

    def stand_in(*args: Any) -> Any:
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        return [(t.float() * 1).sum(-1) for t in tensors] if tensors else None

    module = type(sys)("warm")
    for fp in plan.functions:
        module.__dict__[fp.name] = stand_in
    fake.run_plan(plan, module, "<warm>")


def _reused_child(templates: list[Job], limits: Limits, res_w: int, out_w: int, scratch: str, go_r: int,
                  layouts: list[inputs.Layout], arenas: list[Any]) -> None:
    """A reused child (grader.sandbox.reuse): prepared and confined once, it runs one job after
    another, each naming one of `templates` (they share their guards), for as long as each run
    leaves the process as it found it (grader.sandbox.clean). Each run gets fresh views of its
    arguments (the parent keeps the arena's bytes pristine) and the random generators as they were."""
    if not _child_prepare(limits, res_w, out_w, scratch, go_r):
        return
    counts = _install_guards(templates[0])
    _child_setup(templates[0])
    from grader.sandbox.clean import State

    state = State()
    first = True
    while True:
        message = _read_go(GO_FD)
        if message is None or not 0 <= message[2] < len(templates):
            os._exit(0)  # discarded, or the parent is gone
        source, filename, index = message
        if not first:
            state.restore_generators()
            _send(dict(CONFINED))
        first = False
        layout, arena = layouts[index], arenas[index]
        job = dataclasses.replace(templates[index], source=source, filename=filename)
        if not _run_job(job, counts, layout.arguments(arena), _byte_check(layout, arena), state.same):
            return


def _byte_check(layout: inputs.Layout, arena: Any) -> Callable[[int], list[str]]:
    """The arguments of a call whose bytes changed, read right after the call returns: a change
    undone later (by the next call, a thread, a finaliser) is still seen. The parent compares
    the same bytes again at the end (grader.sandbox.supervise), where the solution cannot reach."""
    return lambda index: layout.modified(arena, index)


def _warm(job: Job, copies: dict[int, list[Any]]) -> None:
    """Touch each call's arguments once, ahead (this faults in the pages the first
    tensor work touches, off the clock)."""
    for index, _, args, _ in job.calls:
        _same(args, copies[index])


def _install_guards(job: Job) -> dict[str, int]:
    """Banned-call guards and must_call counters (they do not depend on the source)."""
    from grader.bans import calls as bans

    def on_banned(name: str) -> None:
        _send({"type": "banned", "name": name})

    bans.install(job.banned, job.ban_places, on_banned)
    if job.ban_kernels:
        from grader.bans import dispatch as dispatch_bans

        dispatch_bans.install(job.ban_kernels, on_banned)
    return bans.install_counters(job.must_call, job.count_places) if job.must_call else {}


def _run_job(job: Job, counts: dict[str, int] | None = None, copies: dict[int, list[Any]] | None = None,
             changed: Callable[[int], list[str]] | None = None, reusable: Callable[[], bool] | None = None,
             built: dict[str, Any] | None = None, placed: dict[int, list[Any]] | None = None) -> bool:
    """Run the job and send its frames, "done" last. With `reusable` (a reused child), "done" says
    whether the run left the process as it found it; returns that (False without `reusable`).
    `placed`: `_placed(copies)`, taken ahead by a standby child while it waited for its source."""
    import torch

    from grader.bans import calls as bans

    if counts is None:
        counts = _install_guards(job)
    tampered = None  # bound here, before the solution runs, so it cannot swap the check for another
    if job.ban_kernels:
        from grader.bans import dispatch as dispatch_bans

        tampered = dispatch_bans.tampered
    intact = Intact()  # before the solution runs: what the child reports with stays ours, or is reported
    module = new_module(job.source, job.filename, register=True)
    # where each argument is, taken before any of the solution's code runs: an argument
    # re-pointed at other memory while the file loads (x.set_(...)) is a change too
    if placed is None:
        placed = _placed(copies or {})
    _send({"type": "start", "call": -1})
    try:
        run_source(module, job.source, job.filename)
    except bans.BannedCall as exc:
        _send({"type": "banned", "name": exc.name})
        return _done({}, _unless_changed(reusable, intact, tampered))
    except BaseException as exc:  # noqa: BLE001 - SystemExit too
        _send({"type": "load_error", "exc": describe_exception(exc, job.filename)})
        return _done({}, _unless_changed(reusable, intact, tampered))
    intact.broken()
    _send_tampered(tampered)
    _send({"type": "loaded"})
    missing = [n for n in job.functions if not callable(module.__dict__.get(n))]
    if missing:
        _send({"type": "missing", "names": missing})
    for index, fname, args, names in job.calls:
        func = module.__dict__.get(fname)
        if callable(func):
            _call(job, index, func, args, names, counts, copies, placed, torch, bans, changed)
            intact.broken()
    if job.fake is not None:
        _run_fake(job, module, cache=reusable is not None, built=built)
        intact.broken()
    if job.gradient:  # last: the parent may stop the child here once a real case has failed (grader.sandbox.supervise)
        _run_gradient(job, module, torch, ask=reusable is not None)
        intact.broken()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001, S110 - best effort: a closed stdout must not lose the result sent next
        pass
    unbanned = _send_tampered(tampered)
    broken = intact.broken()[:16]
    return _done({"tampered": broken}, reusable if not broken and not unbanned else None)


def _unless_changed(reusable: Callable[[], bool] | None, intact: Intact,
                    tampered: Callable[[], str | None] | None) -> Callable[[], bool] | None:
    """`reusable`, unless the file rebound the grader's own names or removed a banned kernel's ban
    while it loaded (what a run that ends normally reports; a file that failed to load has no verdict
    to add it to, but the next file must not meet it)."""
    if reusable is None or intact.broken() or (tampered is not None and tampered() is not None):
        return None
    return reusable


def _done(fields: dict[str, Any], reusable: Callable[[], bool] | None) -> bool:
    """The "done" frame; a reused child's says whether it can take the next run."""
    clean = False
    if reusable is not None:
        try:
            clean = bool(reusable())
        except BaseException:  # noqa: BLE001 - a check that fails is a run that changed something
            clean = False
        fields = {**fields, "reusable": clean}
    _send({"type": "done", **fields})
    return clean


def _call(job: Job, index: int, func: Callable, args: list[Any], names: list[str], counts: dict[str, int],
          copies: dict[int, list[Any]] | None, placed: dict[int, list[Any]], torch: Any, bans: Any,
          changed: Callable[[int], list[str]] | None = None) -> None:
    """Run one call and send its result frame. `torch` and `bans` are the modules
    as _run_job bound them before the solution ran (it may have replaced them since)."""
    from grader.cases.prepare import fresh

    mine = copies.pop(index) if copies and index in copies else fresh(args)
    before = placed.get(index) or [_place(a) for a in mine]
    _send({"type": "start", "call": index})
    for name in counts:
        counts[name] = 0
    t = time.perf_counter()
    try:
        if job.device != "cpu":
            value, back = _call_on_device(func, mine, job.device)
        else:
            with torch.no_grad():
                value = func(*mine)
            back = None
    except bans.BannedCall as exc:
        _send({"type": "result", "call": index, "status": "banned", "exc": {"type": "BannedCall", "message": exc.name}})
        return
    except BaseException as exc:  # noqa: BLE001
        _send({"type": "result", "call": index, "status": "raised", "exc": describe_exception(exc, job.filename)})
        return
    seconds = time.perf_counter() - t
    wrong = [(n, counts[n], k) for n, k in job.must_call.items() if counts[n] != k]
    if wrong:
        n, got, k = wrong[0]
        _send({"type": "result", "call": index, "status": "banned", "exc": {
            "type": "CallCount", "message": f"called {n} {got} time{'s' if got != 1 else ''}; "
                                            f"this drill requires exactly {k}"}})
        return
    blobs: list[bytes] = []
    desc = transport.encode_safely(value, blobs)  # an odd object is described, never "raised"
    modified = [n for n, b, a in zip(names, before, mine) if _moved(a, b)]  # the bytes: decided in the parent
    if changed is not None and copies is not None:  # and read here at once, before any more of the solution runs
        modified += [n for n in changed(index) if n not in modified]
    if back is not None:  # a CUDA run worked on copies: compare what came back from the device
        modified = [n for n, a, b in zip(names, mine, back) if not _same(a, b)]
    _send({"type": "result", "call": index, "status": "ok", "value": desc, "modified": modified,
           "seconds": seconds}, blobs)


def _send_tampered(tampered: Callable[[], str | None] | None) -> bool:
    """A banned kernel the solution unregistered (grader.bans.dispatch) is judged `banned`. True when one was."""
    name = tampered() if tampered is not None else None
    if name is not None:
        _send({"type": "banned", "name": f"{name} (after removing the ban on it)"})
    return name is not None


def _placed(copies: dict[int, list[Any]]) -> dict[int, list[Any]]:
    """`_place` of every argument of every call, by call index."""
    return {index: [_place(a) for a in args] for index, args in copies.items()}


def _place(value: Any) -> Any:
    """Where an argument is and how it is viewed: a tensor's identity, storage,
    shape, strides and dtype; a container's items. (Its bytes are the parent's business.)"""
    import torch

    if isinstance(value, torch.Tensor):
        if value.layout != torch.strided:  # sparse: no strides or storage to compare; its identity and shape
            return ("tensor", id(value), tuple(value.shape), value.dtype, value.layout)
        return ("tensor", id(value), value.data_ptr(), tuple(value.shape), tuple(value.stride()),
                value.storage_offset(), value.dtype)
    if type(value) in (list, tuple):
        return (type(value), id(value), tuple(_place(v) for v in value))
    if type(value) is dict:
        return (dict, id(value), tuple((k, _place(v)) for k, v in value.items()))
    return ("value", id(value))


def _moved(now: Any, before: Any) -> bool:
    try:
        return _place(now) != before
    except BaseException:  # noqa: BLE001 - an argument that can no longer be read was changed
        return True


class DeviceError(RuntimeError):
    """A CUDA run returned a tensor off the inputs' device."""


def _call_on_device(func: Callable, mine: list[Any], device: str) -> tuple[Any, list[Any]]:
    """Call with the arguments copied to `device`; the result and the (possibly modified) arguments come back to the CPU."""
    import torch

    from grader.fake.cuda import device_mismatch, to_device

    on_device = to_device(mine, device)
    with torch.no_grad():
        value = func(*on_device)
    problem = device_mismatch(value, device)
    if problem:
        raise DeviceError(problem + "; make new tensors on the inputs' device (device=x.device, x.new_*, *_like, .to(x))")
    return to_device(value, "cpu"), to_device(on_device, "cpu")


def _run_gradient(job: Job, module: Any, torch: Any, ask: bool = False) -> None:
    """The gradient case (grader.cases.gradient): each planned call again on float32 copies of its
    inputs, those it names requiring grad; the upstream gradient pulled back; one frame per call
    with the input gradients, or how the forward or the backward failed. `torch` is the module as
    _run_job bound it before the solution ran. `ask` (a reused child, which is not stopped here but
    told): run it only if the parent says so, else skip it and stay whole for the next file."""
    _send({"type": "start", "call": GRADIENT_CALL})
    if ask and not _gradient_wanted():
        return
    # the backward on this thread: a multithreaded one starts autograd's device threads, and a child
    # with more than one thread is never reused (grader.sandbox.reuse)
    with torch.autograd.set_multithreading_enabled(False):
        _gradient_cases(job, module, torch)


def _gradient_cases(job: Job, module: Any, torch: Any) -> None:
    from grader.cases.gradient import as_float32, floating_outputs, pull_back
    from grader.report import exception_text

    args_of = {index: args for index, _, args, _ in job.calls}
    for case in job.gradient:
        func = module.__dict__.get(case.function)
        if not callable(func):
            _send({"type": "gradient", "call": case.index, "status": "raised",
                   "text": f"{case.function}() is not defined"})
            continue
        with torch._C.DisableTorchFunction():  # the grader's own copies: not through the ban guards' mode
            args = as_float32(args_of.get(case.index, []))  # copies: the arguments of the call itself stay as they were
            inputs = [args[i].requires_grad_(True) for i in case.wrt]
        try:
            with torch.enable_grad():
                value = func(*args)
        except BaseException as exc:  # noqa: BLE001 - SystemExit too: it is this case's failure
            _send({"type": "gradient", "call": case.index, "status": "raised",
                   "text": exception_text(describe_exception(exc, job.filename))[:600]})
            continue
        try:
            with torch._C.DisableTorchFunctionSubclass():  # the output read as the forward case reads it
                grads = pull_back(floating_outputs(value), case.upstream, inputs)
        except BaseException as exc:  # noqa: BLE001
            frame: dict[str, Any] = {"type": "gradient", "call": case.index, "status": "backward",
                                     "text": f"{class_name(type(exc))}: {safe_message(exc)}"[:600]}
            frame.update(_forward_line(job, func, args_of.get(case.index, []), case, torch))
            _send(frame)
            continue
        blobs: list[bytes] = []
        descs = [None if g is None else transport.encode_safely(g.detach(), blobs) for g in grads]
        _send({"type": "gradient", "call": case.index, "status": "ok", "grads": descs}, blobs)


def _forward_line(job: Job, func: Callable, args: list[Any], case: Any, torch: Any) -> dict[str, Any]:
    """Where in the solution the forward made what the backward choked on: the call run again under
    torch's anomaly detection, whose warning carries the forward's traceback; the last frame in the
    solution's file is the line. {} when it cannot be found."""
    import re
    import warnings

    from grader.cases.gradient import as_float32, floating_outputs, pull_back

    args = as_float32(args)
    inputs = [args[i].requires_grad_(True) for i in case.wrt]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            with torch.autograd.detect_anomaly(check_nan=False), torch.enable_grad():
                value = func(*args)
                with torch._C.DisableTorchFunctionSubclass():
                    pull_back(floating_outputs(value), case.upstream, inputs)
        except BaseException:  # noqa: BLE001, S110 - the failure is known; only its place is looked for
            pass
    pattern = re.compile(r'File "' + re.escape(job.filename) + r'", line (\d+)')
    for w in reversed(seen):
        found = pattern.findall(str(w.message))
        if found:
            line = int(found[-1])
            try:
                text = job.source.splitlines()[line - 1].strip()[:200]
            except IndexError:
                text = ""
            return {"line": line, "source": text}
    return {}


def _run_fake(job: Job, module: Any, cache: bool = False, built: dict[str, Any] | None = None) -> None:
    """The device case and memory at scale, on fake tensors (grader.fake.checks), after the real calls.
    `cache`: with torch's fake-tensor dispatch cache, for a reused child (grader.sandbox.reuse), whose
    next files of the same drill meet the same ops at the same sizes; a child that runs one file only
    misses in it."""
    from grader.fake import checks as fake

    def started() -> None:
        _send({"type": "start", "call": fake.FAKE_CALL})

    started()
    try:
        with quiet.machinery():  # torch's fake-tensor logger is the grader's, not the solution's output
            runs = fake.run_plan(job.fake, module, job.filename, describe_exception, started, cache=cache,
                                 built=built)
    except BaseException as exc:  # noqa: BLE001 - a fake-tensor failure must not cost the real verdicts
        _send({"type": "fake", "runs": [], "failed": f"{class_name(type(exc))}: {safe_message(exc)[:300]}"})
        return
    _send({"type": "fake", "runs": runs})


def _same(original: Any, now: Any) -> bool:
    import torch

    if isinstance(original, torch.Tensor):
        if not isinstance(now, torch.Tensor) or now.shape != original.shape or now.dtype != original.dtype:
            return False
        if original.is_floating_point():
            return bool(torch.equal(torch.nan_to_num(original, nan=0.5), torch.nan_to_num(now, nan=0.5)))
        return bool(torch.equal(original, now))
    if isinstance(original, (list, tuple)):
        return type(original) is type(now) and len(original) == len(now) and all(_same(a, b) for a, b in zip(original, now))
    return original == now


def _work_child(work: Callable[[], Any], limits: Limits, res_w: int, out_w: int, scratch: str) -> None:
    """A run_json child: the trusted `work()` (it may run untrusted code, e.g. :try
    tracing) under the same isolation, its JSON-able dict sent back as one frame."""
    if not _child_prepare(limits, res_w, out_w, scratch):
        return
    try:
        result = work()
    except BaseException as exc:  # noqa: BLE001
        result = {"error": describe_exception(exc, "<work>")}
    _send({"type": "work", "result": result})
    _send({"type": "done"})
    os._exit(0)
