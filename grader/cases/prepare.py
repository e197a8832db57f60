"""Deterministic case generation: sizes, inputs and oracle outputs from a seed.

A prepared drill is a list of calls: one (case, function) pair each, with
its argument values (trusted tensors, never handed out without a copy) and
the expected result computed by the oracle in float64.
"""
from __future__ import annotations

import functools
import inspect
import random
import signal
import sys
import threading
import time
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator

import torch

from grader.cases import generators, trial
from grader.dims import assign_sizes
from grader.spec import ArgSpec, CaseSpec, FunctionSpec, Spec, eval_expr, names
from grader.spec.userfile import REFERENCE_LIMIT, UnreadableFile, read_source

DTYPES = {
    "float32": torch.float32, "float16": torch.float16, "float64": torch.float64, "bfloat16": torch.bfloat16,
    "int64": torch.int64, "int32": torch.int32, "bool": torch.bool,
}


class CaseError(Exception):
    """The spec or its reference could not produce a case (an author's fault)."""


@dataclass(frozen=True)
class ExpectedRaise:
    types: tuple[str, ...]


@dataclass
class Call:
    index: int
    case: CaseSpec
    function: FunctionSpec
    sizes: dict[str, int]
    args: list[Any]
    expected: Any
    dtype: torch.dtype
    mask_dtype: torch.dtype

    @property
    def name(self) -> str:
        return self.case.name

    def arg_dict(self) -> dict[str, Any]:
        return {a.name: v for a, v in zip(self.function.args, self.args)}


@dataclass
class Prepared:
    spec: Spec
    seed: int
    calls: list[Call]
    reference: ModuleType
    trap_results: dict[tuple[str, int], Any] = field(default_factory=dict)  # grader.judge.attribution's cache
    fake: Any = None  # grader.fake.checks.Plan: the device case and memory at scale (set by the Grader)
    gradient: list[Any] = field(default_factory=list)  # grader.cases.gradient.GradCase per call (set by the Grader)
    gradient_unavailable: str = ""  # why the gradient case could not be planned (said on every report of the drill)


REFERENCE_IMPORT_SECONDS = 10.0  # CPU seconds: a DRILL_PATH file that has not finished importing by then is broken
PREPARE_SECONDS = 120.0  # CPU seconds to build every case of a drill (built-in drills take a few)
WALL_FACTOR = 10.0  # the wall-clock cap beside a CPU-time deadline, for code that waits instead of working


class _Deadline(BaseException):
    """Raised by the alarm inside reference code that runs too long (a BaseException, so a
    bare ``except Exception`` in the reference does not swallow it)."""


@contextmanager
def deadline(seconds: float, message: str, cpu: bool = False) -> Iterator[None]:
    """Run the block under a deadline (a timer signal, main thread only; elsewhere no deadline);
    past it, CaseError(message). `cpu`: counted in this process's CPU time (ITIMER_PROF), which
    a loaded machine does not stretch, instead of wall-clock time (ITIMER_REAL). Nested
    deadlines of the same kind restore the outer one."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    timer, signum = (signal.ITIMER_PROF, signal.SIGPROF) if cpu else (signal.ITIMER_REAL, signal.SIGALRM)
    clock = time.process_time if cpu else time.monotonic
    token = _Deadline()
    armed = [True]

    def alarm(signum: int, frame: Any) -> None:
        if armed[0]:  # a late alarm while disarming must not escape as a bare BaseException
            raise token

    started = clock()
    previous = signal.signal(signum, alarm)
    outer_left = signal.setitimer(timer, seconds)[0]
    try:
        yield
    except _Deadline as exc:
        if exc is token:
            raise CaseError(message) from None
        raise
    finally:
        armed[0] = False
        signal.setitimer(timer, 0)
        signal.signal(signum, previous)
        if outer_left:
            signal.setitimer(timer, max(outer_left - (clock() - started), 0.001))


def load_reference(spec: Spec) -> ModuleType:
    """Import the drill's reference .py under a private name. The file is read as a
    user file (regular, capped); one from DRILL_PATH must finish importing within REFERENCE_IMPORT_SECONDS
    of CPU time (a built-in drill's file has no deadline: it is not user code)."""
    return _load_drill_file(spec, spec.reference_path, "_drill_ref_", "reference")


def load_own_oracles(spec: Spec) -> ModuleType | None:
    """The drill's own oracle file beside its spec (grader.spec.names.oracle_file), imported
    the way the reference is; None when the drill has none."""
    path = names.oracle_file(spec.path)
    if not path.exists() and not path.is_symlink():
        return None
    return _load_drill_file(spec, path, "_drill_oracle_", "oracle")


DRILL_MODULES: set[str] = set()  # the sys.modules names of the drill files imported here, for a sandbox child to drop


def _load_drill_file(spec: Spec, file: Path, prefix: str, what: str) -> ModuleType:
    name = f"{prefix}{spec.id.replace('-', '_')}_{zlib.crc32(str(file).encode()):x}"
    if name in sys.modules:
        return sys.modules[name]
    path = str(file)
    try:
        source = read_source(path, REFERENCE_LIMIT)
        code = compile(source, path, "exec")
    except UnreadableFile as exc:
        raise CaseError(f"{path}: {exc.reason}") from None
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise CaseError(f"{path}: the {what} file cannot be compiled: {type(exc).__name__}: {exc}") from None
    builtin = trial.builtin(path)
    if not builtin:  # a DRILL_PATH file: its deadline enforced from outside first (grader.cases.trial)
        why = trial.trial_import(code, path, REFERENCE_IMPORT_SECONDS, REFERENCE_IMPORT_SECONDS * WALL_FACTOR)
        if why is not None:
            raise CaseError(f"{path}: the {what} file: {why}")
    module = ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    DRILL_MODULES.add(name)
    try:
        if builtin:  # shipped with the tool, not user code: no deadline, which a loaded machine could make it miss
            exec(code, module.__dict__)  # noqa: S102 - a built-in drill's own file
        else:
            with deadline(REFERENCE_IMPORT_SECONDS, f"{path}: the {what} file did not finish importing within "
                                                    f"{REFERENCE_IMPORT_SECONDS:g} s of CPU time (a loop at module level?)",
                          cpu=True):
                exec(code, module.__dict__)  # noqa: S102 - the drill's own file, under a deadline
    except CaseError:
        del sys.modules[name]
        raise
    except SystemExit as exc:
        del sys.modules[name]
        raise CaseError(f"{path}: the {what} file called exit({exc.code!r}) while importing") from None
    except Exception as exc:
        del sys.modules[name]
        raise CaseError(f"{path}: the {what} file failed to import: {exc!r}") from exc
    return module


def case_seed(seed: int, case_name: str) -> int:
    return (seed * 1_000_003 + zlib.crc32(case_name.encode())) % (2**31 - 1)


def prepare(spec: Spec, seed: int, example: bool = False) -> Prepared:
    """Build every call of the drill for this seed (deterministic), under PREPARE_SECONDS of CPU
    time (a loaded machine does not make a correct drill miss it) and WALL_FACTOR times that on
    the wall clock: a reference, generator or oracle that never returns is the drill's fault, reported."""
    why = "(a loop in the reference, a generator or the oracle?)"
    try:
        with deadline(PREPARE_SECONDS * WALL_FACTOR, f"{spec.path}: the reference did not finish building the cases "
                                                     f"within {PREPARE_SECONDS * WALL_FACTOR:g} s {why}"), \
                deadline(PREPARE_SECONDS, f"{spec.path}: the reference did not finish building the cases within "
                                          f"{PREPARE_SECONDS:g} s of CPU time {why}", cpu=True):
            return _prepare(spec, seed, example)
    except SystemExit as exc:
        raise CaseError(f"{spec.reference_path}: the reference called exit({exc.code!r}) while building the cases") from None


def _prepare(spec: Spec, seed: int, example: bool = False) -> Prepared:
    ref = load_reference(spec)
    calls: list[Call] = []
    cases = spec.cases
    if example:
        cases = (_example_case(spec),)
    for case in cases:
        rng = random.Random(case_seed(seed, case.name))
        try:
            sizes = assign_sizes(spec.dims, case, rng)
        except ValueError as exc:
            raise CaseError(f"{spec.path}: {exc}") from exc
        if example and spec.example:
            sizes.update(spec.example)
            for rule in spec.dims.values():
                if rule.derived and rule.name not in spec.example:
                    sizes[rule.name] = eval_expr(rule.expr or "0", sizes)
        dtype = DTYPES[case.dtype]
        mask_dtype = DTYPES[case.mask]
        gen = torch.Generator().manual_seed(case_seed(seed, case.name))
        shared: dict[str, Any] = {}
        for fn in spec.functions:
            if case.only and fn.name not in case.only:
                continue
            ctx = generators.Context(gen, rng, sizes, dtype, mask_dtype, case.params, case, {}, shared, ref)
            args = _make_args(spec, fn, ctx)
            expected = _expected(spec, fn, args, ref, case)
            calls.append(Call(len(calls), case, fn, sizes, args, expected, dtype, mask_dtype))
    return Prepared(spec, seed, calls, ref)


def _example_case(spec: Spec) -> CaseSpec:
    """The small example used by :try: the first fp32 case with no size overrides."""
    for case in spec.cases:
        if case.dtype == "float32" and not case.dims and not case.heavy:
            return case
    return spec.cases[0]


def _make_args(spec: Spec, fn: FunctionSpec, ctx: generators.Context) -> list[Any]:
    if fn.inputs:
        made = helper(spec, ctx.reference, fn.inputs)(ctx)
        missing = [a.name for a in fn.args if a.name not in made]
        if missing:
            raise CaseError(f"{spec.reference_path}: {fn.inputs[3:]}() did not build {', '.join(missing)}")
        ctx.args.update(made)
        return [made[a.name] for a in fn.args]
    for arg in fn.args:
        ctx.args[arg.name] = _make_arg(spec, arg, ctx)
    return [ctx.args[a.name] for a in fn.args]


def _make_arg(spec: Spec, arg: ArgSpec, ctx: generators.Context) -> Any:
    if arg.param is not None:
        if arg.param in ctx.params:
            return ctx.params[arg.param]
        if arg.has_default:
            return arg.default
        raise CaseError(f"{spec.path}: case {ctx.case.name!r} has no params.{arg.param} for argument {arg.name}")
    if arg.gen is None:
        value = arg.value
        if isinstance(value, str):
            value = eval_expr(value, ctx.sizes)
        if arg.type == "float" and value is not None:
            value = float(value)
        return value
    options = dict(arg.options)
    override = ctx.params.get(arg.name)
    if isinstance(override, dict):
        options.update(override)
    shape = tuple(eval_expr(s if not s.isdigit() else int(s), ctx.sizes) for s in arg.shape) if arg.shape is not None else None
    dtype = resolve_dtype(arg.dtype, ctx) if arg.dtype else None
    if arg.gen.startswith("py:"):
        func = _ref_func(ctx.reference, arg.gen, spec)
        return func(ctx, shape, dtype, **options)
    gen = generators.GENERATORS.get(arg.gen)
    if gen is None:
        known = ", ".join(sorted(generators.GENERATORS))
        raise CaseError(f"{spec.path}: argument {arg.name}: unknown generator {arg.gen!r}; known: {known}")
    try:
        return gen(ctx, shape, dtype, **options)
    except TypeError as exc:
        raise CaseError(f"{spec.path}: argument {arg.name}: generator {arg.gen}: {exc}") from exc


def resolve_dtype(word: str | None, ctx: Any) -> torch.dtype | None:
    if word is None:
        return None
    if word in ("float", "loss"):
        return ctx.dtype
    if word == "mask":
        return ctx.mask_dtype
    return DTYPES[word]


def _ref_func(ref: ModuleType, name: str, spec: Spec) -> Callable:
    attr = name[3:] if name.startswith("py:") else name
    func = getattr(ref, attr, None)
    if not callable(func):
        raise CaseError(f"{spec.reference_path}: {attr}() is not defined")
    return func


def kwargs_taken(func: Callable, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The variant's keyword arguments (Spec.call_kwargs) that `func`'s signature takes."""
    if not kwargs:
        return {}
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return dict(kwargs)
    return {k: v for k, v in kwargs.items() if k in params and params[k].kind in (
        inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)}


def with_kwargs(func: Callable, kwargs: dict[str, Any]) -> Callable:
    """`func` given the variant's keyword arguments that its signature takes: a reference, oracle
    or trap that does not take one is called without it (drills/README.md, "Variants"). The
    person's solution is never called through this."""
    given = kwargs_taken(func, kwargs)
    if not given:
        return func
    return functools.wraps(func)(lambda *args: func(*args, **given))


def helper(spec: Spec, ref: ModuleType, name: str) -> Callable:
    """The reference's `py:` helper `name` that builds or judges a case (an `inputs:` builder, a
    `checker:`), given the variant's keyword arguments its signature takes, like the reference."""
    return with_kwargs(_ref_func(ref, name, spec), spec.call_kwargs)


def oracle_for(spec: Spec, fn: FunctionSpec, ref: ModuleType) -> Callable:
    """The oracle of `fn`, given the variant's keyword arguments it takes."""
    return with_kwargs(_oracle_for(spec, fn, ref), spec.call_kwargs)


def _oracle_for(spec: Spec, fn: FunctionSpec, ref: ModuleType) -> Callable:
    if fn.oracle in ("reference", "", None):
        return _ref_func(ref, fn.name, spec)
    if fn.oracle.startswith("py:"):
        return _ref_func(ref, fn.oracle, spec)
    own = load_own_oracles(spec)  # the drill's own oracle file first, then the shared ones (grader.spec.names)
    func = getattr(own, fn.oracle, None) if own is not None and not fn.oracle.startswith("_") else None
    if callable(func):
        return func
    from grader import oracles

    try:
        return oracles.get(fn.oracle)
    except KeyError:
        where = names.oracle_file(spec.path).name
        raise CaseError(f"{spec.path}: the oracle {fn.oracle}() of {fn.name} is neither in {where} "
                        "nor a shared oracle (grader/oracles/)") from None


def upcast(value: Any) -> Any:
    """A float64 copy of every floating tensor inside value (others cloned)."""
    if isinstance(value, torch.Tensor):
        v = value.detach().clone()
        return v.double() if v.is_floating_point() else v
    if isinstance(value, tuple):
        return tuple(upcast(v) for v in value)
    if isinstance(value, list):
        return [upcast(v) for v in value]
    return value


def fresh(value: Any) -> Any:
    """A deep copy of tensors inside value, so no caller can touch the originals."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, tuple):
        return tuple(fresh(v) for v in value)
    if isinstance(value, list):
        return [fresh(v) for v in value]
    if isinstance(value, dict):
        return {k: fresh(v) for k, v in value.items()}
    return value


def _expected(spec: Spec, fn: FunctionSpec, args: list[Any], ref: ModuleType, case: CaseSpec) -> Any:
    oracle = oracle_for(spec, fn, ref)
    try:
        # an oracle that differentiates (a backward drill's) runs its backward on this thread: a
        # multithreaded one would start autograd's device threads, and no child forked from this process
        # afterwards (the sandbox, the bounded builds, grader.cases.gradient) could run a backward
        with torch.no_grad(), torch.autograd.set_multithreading_enabled(False):
            out = oracle(*upcast(args))
    except Exception as exc:  # noqa: BLE001 - an expected raise is data
        if type(exc).__name__ in fn.raises:
            return ExpectedRaise(fn.raises)
        raise CaseError(f"{spec.path}: the oracle for {fn.name} failed on case {case.name!r}: {exc!r}") from exc
    return _detach(out)


def _detach(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().as_subclass(torch.Tensor).clone()
    if isinstance(value, (tuple, list)) and not isinstance(value, torch.Size):
        return tuple(_detach(v) for v in value)
    if isinstance(value, torch.Size):
        return tuple(int(v) for v in value)
    return value


def new_seed() -> int:
    return random.SystemRandom().randrange(1, 2**31 - 1)
