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
from typing import TYPE_CHECKING, Any, Callable, Iterator

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
        workers = _Workers(min(jobs, len(specs)), catalogue, seed)
        try:
            for i, (drill, answer, spent) in enumerate(workers.answers(order), 1):
                out[drill], took[drill] = answer, spent
                if progress:
                    progress(i, len(specs), drill)
        finally:
            workers.stop()  # an error, Ctrl-C or SIGTERM on the way: the workers still at work are killed
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


class _Workers:
    """`jobs` worker processes, each forked here by this (the main) thread with a pipe of its own.
    No thread of this process forks or runs beside them: multiprocessing.Pool's handler thread forked a
    replacement for a killed worker while its other threads held locks, and that child could hang
    before it ever ran (the pool then waited for it forever, as it waits for a killed worker's answer)."""

    def __init__(self, jobs: int, catalogue: Catalogue, seed: int) -> None:
        context = multiprocessing.get_context("fork")
        self.procs: list[Any] = []
        self.pipes: list[Any] = []
        for _ in range(jobs):
            mine, theirs = context.Pipe()
            proc = context.Process(target=_worker, args=(theirs, catalogue, seed), daemon=True)
            proc.start()
            theirs.close()
            self.procs.append(proc)
            self.pipes.append(mine)

    def answers(self, drills: list[Spec]) -> Iterator[tuple[str, Answer, float]]:
        """(drill, answer, seconds) as each is proved, a drill handed to each worker as it comes free.
        The wait is in short steps: a signal's handler (Ctrl-C, SIGTERM) runs in this thread only, and
        only between steps when the signal landed on another thread of this process. A worker that ends
        with a drill in hand was killed (out of memory, say): its answer never comes, so that is said."""
        from multiprocessing.connection import wait

        queue = list(drills)
        busy: dict[int, Spec] = {}  # worker index -> the drill it proves

        def hand_out(i: int) -> None:
            if queue:
                busy[i] = queue.pop(0)
                self.pipes[i].send(busy[i].id)
            else:
                self.pipes[i].send(None)  # no more: the worker ends on its own

        for i in range(len(self.procs)):
            hand_out(i)
        while busy:
            wait([self.pipes[i] for i in busy] + [self.procs[i].sentinel for i in busy], timeout=0.25)
            for i in list(busy):
                try:
                    got = self.pipes[i].recv() if self.pipes[i].poll() else None
                except (EOFError, OSError):
                    got = None
                if got is None:
                    if not self.procs[i].is_alive():
                        raise _ended(self.procs[i], busy[i])
                    continue
                del busy[i]
                hand_out(i)
                yield got
        for proc in self.procs:
            proc.join()  # told there is no more: each ends once its sandbox children are finished

    def stop(self) -> None:
        """Every worker still running killed (SIGKILL: it cannot be caught, whatever a worker's main
        thread is waiting on) and reaped; its sandbox children die with it."""
        for proc in self.procs:
            if proc.exitcode is None:
                proc.kill()
        for proc in self.procs:
            proc.join()
        for pipe in self.pipes:
            pipe.close()


def _ended(proc: Any, spec: Spec) -> Exception:
    """What to say of a worker that ended with `spec` in hand: killed by a signal, or ended with a status."""
    from grader.errors import DrillError

    code = proc.exitcode if proc.exitcode is not None else 0
    if code < 0:
        how = f"was killed while proving {spec.id} (signal {-code}: out of memory, or a signal sent to it alone)"
    else:
        how = f"ended (exit status {code}) while proving {spec.id} (its error, if it printed one, is above)"
    return DrillError(f"validate: a worker process {how}; run drill validate --jobs 1 {spec.path} to see why")


def _worker(pipe: Any, catalogue: Catalogue, seed: int) -> None:
    """A worker process: drill ids in, (drill, answer, seconds) out, until it is sent None."""
    _leave_signals_to_the_kernel()  # from the start: the parent's handlers came with the fork
    import torch

    from grader.engine import Grader
    from grader.sandbox import standby
    from grader.sandbox.spawn import parent_ready

    parent_ready()  # what the first sandbox child would set up (it sets handlers of its own)
    _leave_signals_to_the_kernel()
    torch.set_num_threads(1)  # the workers share the cores: one thread each
    _WORKER["grader"], _WORKER["seed"] = Grader(catalogue), seed
    try:
        while (drill := pipe.recv()) is not None:
            pipe.send(_prove_one(drill))
    except (EOFError, OSError):
        pass  # the parent is gone: nobody to answer
    finally:
        standby.finish_all()  # its sandbox children and folders, before the process leaves


def _leave_signals_to_the_kernel() -> None:
    """Ctrl-C ignored, SIGTERM and SIGHUP left to the kernel. The parent answers Ctrl-C (it reaches the
    whole group) and SIGTERM, and kills the workers; left to the kernel, SIGTERM ends a worker whichever
    of its threads (torch has its own) takes it, where a Python handler would wait for the main thread."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


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
