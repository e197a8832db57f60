"""`drill validate` over many drills: each drill proved by grader.authoring.validation,
several at once in forked worker processes (`--jobs`), since most of the time is spent
waiting on sandbox children and one core is left idle otherwise.

Per drill the answer is (problems, lines): the problems `validate_drill` finds, and the
lines it prints, what the device case and memory at scale do per function
(grader.fake) and the drill's variant axes.
"""
from __future__ import annotations

import multiprocessing
import signal
import time
from typing import TYPE_CHECKING, Any, Callable

from grader.spec import SpecError

if TYPE_CHECKING:
    from grader.catalogue import Catalogue
    from grader.engine import Grader
    from grader.spec import Spec

Answer = tuple[list[str], list[str]]
_WORKER: dict[str, Any] = {}  # in a worker process: its Grader and seed


def axes_line(spec: Spec) -> str:
    """`variants: mask (keep*, pad, additive), layout (btd*, tbd)`; * marks the default."""
    parts = [f"{a.name} ({', '.join(v + ('*' if v == a.default else '') for v in a.values)})" for a in spec.variants]
    return "variants: " + ", ".join(parts)


def prove(grader: Grader, spec: Spec, seed: int) -> Answer:
    """One drill: its problems and its lines."""
    from grader.authoring.validation import fake_checks, validate_drill

    try:
        found = validate_drill(grader, spec, seed)
    except SpecError as exc:
        return list(exc.problems), []
    if any(": (to fill in): " in p for p in found):  # a scaffold's stub: nothing else to say yet
        return found, []
    lines = list(fake_checks(grader, spec, seed))
    if spec.variants:
        lines.append(axes_line(spec))
    return found, lines


def _cost(spec: Spec) -> int:
    """A rough measure of a drill's proving time (sandbox runs), to start the longest first when no
    earlier run measured it (longest_first): the last drill to start then ends near the others.
    A reference whose sizes depend on the values (nonzero and friends) makes every fake run
    symbolic, several times slower (grader.fake.checks)."""
    from grader.authoring.samples import files

    values = 1 + sum(len(a.values) - 1 for a in spec.variants)  # each a plan; its files share one child
    cost = len(files(spec)) + 2 + 4 * values + (20 if spec.scale else 0)
    try:
        source = spec.reference_path.read_text(errors="replace")
    except OSError:
        return cost
    symbolic = any(word in source for word in ("nonzero(", "repeat_interleave(", "masked_select(", "unique("))
    return cost * (4 if symbolic and spec.scale else 1)


def prove_all(catalogue: Catalogue, specs: list[Spec], seed: int, jobs: int,
              progress: Callable[[int, int, str], None] | None = None,
              seconds: dict[str, float] | None = None) -> dict[str, Answer]:
    """Every drill's answer, by id; `jobs` worker processes when above 1 (forked from this one).
    `seconds`: how long each drill took to prove last time (a hint: the longest start first, so
    the last to end ends near the others); it is updated with this run's times."""
    from grader.engine import Grader

    out: dict[str, Answer] = {}
    took: dict[str, float] = {}
    if jobs <= 1 or len(specs) <= 1:
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # the cases are small: more threads only spin against each other (and the children)
        try:
            grader = Grader(catalogue)
            for i, spec in enumerate(specs, 1):
                if progress:
                    progress(i, len(specs), spec.id)
                t0 = time.monotonic()
                out[spec.id] = prove(grader, spec, seed)
                took[spec.id] = time.monotonic() - t0
                _forget_drill(grader, spec)
        finally:
            torch.set_num_threads(threads)
    else:
        from grader.sandbox import scratch
        from grader.sandbox.spawn import exit_on_signals

        _warm_before_fork()
        exit_on_signals()  # SIGTERM/SIGHUP unwind here as Ctrl-C does: the finally below stops the workers
        order = longest_first(specs, seconds or {})
        context = multiprocessing.get_context("fork")
        pool = context.Pool(min(jobs, len(specs)), initializer=_start_worker, initargs=(catalogue, seed))
        try:
            answers = pool.imap_unordered(_prove_one, [s.id for s in order])
            workers = {p.pid for p in multiprocessing.active_children()}
            for i in range(1, len(order) + 1):
                drill, answer, spent = _next(answers, workers)
                out[drill], took[drill] = answer, spent
                if progress:
                    progress(i, len(specs), drill)
            # all answered: the workers end on the pool's own word, not on terminate's SIGTERM
            pool.close()
            pool.join()
        finally:
            pool.terminate()  # an error, Ctrl-C or SIGTERM on the way: the workers are killed (after join: none left)
            scratch.sweep_stale()  # the sandbox folders of a killed worker (its children died with it)
    if seconds is not None:
        seconds.update(took)
    return out


def longest_first(specs: list[Spec], seconds: dict[str, float]) -> list[Spec]:
    """The order to start drills in: by last time's seconds where known, a drill without one first
    (new or changed, it may be long), and by the estimate `_cost` among those."""
    return sorted(specs, key=lambda s: (s.id not in seconds, seconds.get(s.id, 0.0), _cost(s)), reverse=True)


def _warm_before_fork() -> None:
    """What every worker would import on its own: import it once, before the fork."""
    from grader.fake import checks

    checks.problem()
    try:
        import torch.fx.experimental.symbolic_shapes  # noqa: F401 - data-dependent fake runs need it
    except ImportError:
        pass


def _next(answers: Any, workers: set[int | None]) -> Any:
    """The next answer, waited for in short steps: a signal's handler (Ctrl-C, SIGTERM) runs in this
    thread only, and only between steps when the signal landed on another thread of this process.
    A worker that ended before the pool closed was killed (out of memory, say): its drill's answer
    never comes, so that is said instead of waiting for it. `workers`: the pids seen so far."""
    while True:
        try:
            return answers.next(timeout=0.25)
        except multiprocessing.TimeoutError:
            alive = {p.pid for p in multiprocessing.active_children()}
            if workers - alive:
                from grader.errors import DrillError

                raise DrillError("validate: a worker process was killed while proving a drill (out of memory, or "
                                 "a signal sent to it alone); run drill validate --jobs 1 to see which drill") from None
            workers |= alive


def _start_worker(catalogue: Catalogue, seed: int) -> None:
    from multiprocessing import util

    import torch

    from grader.engine import Grader
    from grader.sandbox import standby
    from grader.sandbox.spawn import parent_ready

    # a pool worker leaves through os._exit, past the atexit hook: when it ends on the pool's word its
    # sandbox children and folders are finished by the finalizer multiprocessing runs on the way out
    util.Finalize(None, standby.finish_all, exitpriority=10)
    parent_ready()  # what the first sandbox child would set up (it sets the handlers the next lines undo)
    # The parent answers Ctrl-C (it reaches the whole group) and SIGTERM, and kills the workers with
    # SIGTERM (terminate): left to the kernel, that ends a worker whichever of its threads (torch has
    # its own) takes it, where a Python handler waits for the main thread, which may be waiting in C
    # on the pool's queue lock. Its sandbox children die with it; the parent sweeps their folders.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)

    torch.set_num_threads(1)  # the workers share the cores: one thread each
    _WORKER["grader"], _WORKER["seed"] = Grader(catalogue), seed


def _prove_one(drill: str) -> tuple[str, Answer, float]:
    grader = _WORKER["grader"]
    spec = grader.catalogue.get(drill)
    t0 = time.monotonic()
    try:
        answer = prove(grader, spec, _WORKER["seed"])
    except Exception as exc:  # noqa: BLE001 - one drill's crash is reported; the other workers carry on
        answer = ([f"{spec.path}:0: (validate): proving it failed: {type(exc).__name__}: {exc}"], [])
    finally:
        _forget_drill(grader, spec)
    return drill, answer, time.monotonic() - t0


def _forget_drill(grader: Grader, spec: Spec) -> None:
    """A proved drill's cases and plans are not needed again: dropped, so that every sandbox child
    forked for the next drills copies and forgets less (grader.engine.Grader._forget_answers)."""
    for key in [k for k in grader._prepared if k[0] == spec.id]:
        del grader._prepared[key]
    for plan in [k for k in grader._fake_plans if k[0] == spec.id]:
        del grader._fake_plans[plan]
