"""The meter under a fake run (grader.fake.checks): counts the live bytes of fake
tensors as ops make and drop them, stops a run past its op or time budget,
and names the solution's line that made a CPU tensor meeting a CUDA one.

Split out of grader.fake.checks so each file keeps to one idea: fake.py plans and
runs, this module measures. Torch is imported at the top: only the grading
path (the sandbox child, the trusted plan) imports it.
"""
from __future__ import annotations

import contextlib
import functools
import sys
import time
import weakref
from typing import TYPE_CHECKING, Any, Callable, Iterator

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

if TYPE_CHECKING:
    from types import FrameType


class TooManyOps(BaseException):
    """Raised from the meter past MAX_OPS (a BaseException: `except Exception` in a solution cannot eat it)."""


_DATA_DEPENDENT = ("DynamicOutputShapeException", "DataDependentOutputException", "GuardOnDataDependentSymNode",
                   "UnsupportedOperatorException", "DataDependentOutputException", "UnsupportedFakeTensorException")


def is_device_mix(exc_type: str, message: str) -> bool:
    low = message.lower()
    return exc_type == "FakeTensorDeviceMismatchError" or ("device" in low and "cpu" in low and "cuda" in low)


def needs_values(exc_type: str, message: str) -> bool:
    """The error says the code reads tensor values (nonzero, .item(), .numpy(), ...), which fake tensors lack."""
    return (exc_type in _DATA_DEPENDENT or "data-dependent" in message or "tensor subclasses" in message
            or "meta tensor" in message.lower() or "data_ptr" in message or "FakeTensor" in message
            or "fake tensor" in message.lower() or "numpy() is not supported" in message)


class Meter(TorchDispatchMode):
    """Adds each new storage's bytes when an op makes it and subtracts them when its
    last tensor dies: the peak of live tensor bytes. Also remembers the solution's
    line that made each CPU tensor, to name it when it meets a CUDA one."""

    def __init__(self, filename: str, max_ops: int, max_seconds: float) -> None:
        super().__init__()
        self.filename = filename
        self.max_ops = max_ops
        self.live: dict[int, list] = {}  # storage id -> [bytes, tensors alive, shape, dtype, CPU origin]
        self.now = 0
        self.peak = 0
        self.culprit: tuple[tuple[int, ...], str, int] | None = None
        self.ops = 0
        self.deadline = time.thread_time() + max_seconds  # CPU seconds: the same on a loaded machine
        self.unknown = False  # a data-dependent size with no bound: its bytes are not counted
        self.bounded = False  # a data-dependent size counted at its upper bound (nonzero: at most numel)
        self.mixed_at: tuple[int, str] | None = None
        self.refs: dict[int, Any] = {}  # weak references to every tracked tensor (their callbacks subtract)
        # tensors whose device fake tensors got wrong (`t.data = v` across devices: watch_data), and every
        # tensor an op made from one: id -> (weak reference, the solution's line of the assignment)
        self.moved: dict[int, tuple[Any, tuple[int, str] | None]] = {}
        self.moved_mix: tuple[int, str] | None = None  # that line, when such a tensor met one on another device

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
        self.ops += 1
        if self.ops > self.max_ops or time.thread_time() > self.deadline:
            raise TooManyOps()
        try:
            out = func(*args, **(kwargs or {}))
        except Exception as exc:
            if self.mixed_at is None and is_device_mix(type(exc).__name__, str(exc)):
                self.mixed_at = self._cpu_origin(tree_leaves((args, kwargs)))
                if self.moved:
                    self.moved_mix = self.moved_origin(tree_leaves((args, kwargs)))
            raise
        if isinstance(out, torch.Tensor):
            self._track(out)
        else:
            for t in tree_leaves(out):
                if isinstance(t, torch.Tensor):
                    self._track(t)
        if self.moved:  # what an op makes from a tensor fake tensors left on the wrong device is wrong there too
            origin = self.moved_origin(tree_leaves((args, kwargs)))
            if origin is not None:
                for t in [out] if isinstance(out, torch.Tensor) else tree_leaves(out):
                    if isinstance(t, torch.Tensor):
                        self.mark_moved(t, origin)
        return out

    def mark_moved(self, t: torch.Tensor, origin: tuple[int, str] | None) -> None:
        """t's device is what fake tensors make of a `.data` assignment across devices, not what a GPU would."""
        self.moved[id(t)] = (weakref.ref(t), origin)

    def moved_origin(self, leaves: list) -> tuple[int, str] | None:
        """The `.data` assignment behind one of these tensors (it, or a tensor an op made from it), or None."""
        for t in leaves:
            if isinstance(t, torch.Tensor):
                entry = self.moved.get(id(t))
                if entry is not None and entry[0]() is t:
                    return entry[1] or (0, "")
        return None

    def _cpu_origin(self, leaves: list) -> tuple[int, str] | None:
        for t in leaves:
            if isinstance(t, torch.Tensor) and t.device.type == "cpu" and t.dim() > 0:
                try:
                    entry = self.live.get(t.untyped_storage()._cdata)
                except Exception:  # noqa: BLE001, S112 - a tensor without a real storage has no origin to report
                    continue
                if entry is not None and entry[4]:
                    return entry[4]
        return None

    def _track(self, t: torch.Tensor) -> None:
        try:
            storage = t.untyped_storage()
            key = storage._cdata
        except Exception:  # noqa: BLE001 - no storage (sparse, nested): not counted
            return
        entry = self.live.get(key)
        if entry is None:
            size = storage.nbytes()
            nbytes = _bytes_or_bound(size)
            if nbytes is None:  # a data-dependent size with no upper bound
                nbytes = 0
                self.unknown = True
            elif not isinstance(size, int):
                self.bounded = True
            origin = _solution_line(self.filename) if t.device.type == "cpu" and t.dim() > 0 else None
            entry = self.live[key] = [nbytes, 0, t.shape, t.dtype, origin]
            self.now += nbytes
            if self.now > self.peak:
                self.peak = self.now
                big = max(self.live.values(), key=lambda e: e[0])
                self.culprit = (ints(big[2]), str(big[3]).replace("torch.", ""), big[0])
        entry[1] += 1
        ref = weakref.ref(t, functools.partial(self._gone, key))
        self.refs[id(ref)] = ref  # by id: weak references compare their (tensor) referents

    def _gone(self, key: int, ref: Any = None) -> None:
        self.refs.pop(id(ref), None)
        entry = self.live.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] <= 0:
            del self.live[key]
            self.now -= entry[0]


def make_meter(filename: str, max_ops: int, max_seconds: float) -> Meter:
    """A fresh meter for one fake run of `filename`'s code."""
    return Meter(filename, max_ops, max_seconds)


def _bytes_or_bound(n: Any) -> int | None:
    """A storage's bytes; for a data-dependent size, its upper bound from the ShapeEnv; None when unbounded."""
    if isinstance(n, int):
        return n
    known = _as_int(n)
    if known is not None:
        return known
    try:
        node = n.node
        upper = node.shape_env.bound_sympy(node.expr).upper
        if upper.is_finite:
            return int(upper)
    except Exception:  # noqa: BLE001, S110 - no bound to be had: None says unbounded
        pass
    return None


def ints(shape: Any) -> tuple[int, ...]:
    """A shape as plain ints, -1 for a data-dependent size."""
    out = []
    for s in shape:
        known = s if isinstance(s, int) else _as_int(s)
        out.append(-1 if known is None else known)
    return tuple(out)


def _as_int(n: Any) -> int | None:
    """A size's value when it has one: a plain int, or a symbol the ShapeEnv pins to one value;
    None for a data-dependent size. Asked of the symbol (int() would raise, and build an error
    message with a stack trace, on every data-dependent size: a tenth of a nonzero-heavy run)."""
    node = getattr(n, "node", None)
    if node is not None:
        try:
            known = node.maybe_as_int()
            if known is not None:
                return int(known)
            if not node.has_hint():  # data-dependent: what int() finds before it gives up, without the error
                value = node.shape_env._maybe_evaluate_static(node.expr)
                return int(value) if value is not None and value.is_number else None
        except Exception:  # noqa: BLE001, S110 - fall back to int() below
            pass
    try:
        return int(n)
    except Exception:  # noqa: BLE001 - a data-dependent size
        return None


class NeedsValues(RuntimeError):
    """Raised at once for .tolist() / .numpy() on a fake tensor (torch would take seconds to say no)."""


@contextlib.contextmanager
def fast_refusals(max_ops: int) -> Iterator[None]:
    """While a fake run lasts: .tolist() and .numpy() on a fake tensor fail at once, and iterating
    over more than max_ops rows stops the run (each would cost milliseconds per element)."""
    from torch._subclasses.fake_tensor import FakeTensor

    names = ("tolist", "numpy", "__iter__")
    own = {name: FakeTensor.__dict__[name] for name in names if name in FakeTensor.__dict__}

    def refuse(name: str) -> Callable:
        original = getattr(FakeTensor, name)

        def method(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
            if name != "__iter__":
                raise NeedsValues(f"data-dependent: .{name}() reads tensor values, which fake tensors do not have")
            if self.dim() > 0 and ints(self.shape[:1])[0] > max_ops:
                raise TooManyOps()
            return original(self, *args, **kwargs)

        return method

    for name in names:
        setattr(FakeTensor, name, refuse(name))
    try:
        yield
    finally:
        for name in names:
            if name in own:
                setattr(FakeTensor, name, own[name])
            else:
                delattr(FakeTensor, name)


@contextlib.contextmanager
def watch_data(meter: Meter) -> Iterator[None]:
    """While a fake run lasts: `t.data = v` with v on another device. On a real GPU (and in torch's
    own Module._apply) that moves t to v's device (loralib reassigns its parameters so); torch's
    fake tensor takes v's shape, dtype and storage but keeps its own device, a device error no GPU
    would raise. So t is given v's device, as a GPU would; where that does not hold, the meter
    remembers t and the line, and a device error t then meets is the fake run's, not the code's."""
    from torch._subclasses.fake_tensor import FakeTensor

    base = torch._C.TensorBase.__dict__["data"]

    def get(self: torch.Tensor) -> torch.Tensor:
        return base.__get__(self)

    def put(self: torch.Tensor, value: torch.Tensor) -> None:
        before = self.device
        base.__set__(self, value)
        if not isinstance(value, torch.Tensor) or value.device == before:
            return
        try:
            self.fake_device = value.device  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001, S110 - not followed: remembered below
            pass
        if self.device != value.device:
            meter.mark_moved(self, _solution_line(meter.filename, depth=1))

    had = "data" in FakeTensor.__dict__
    own = FakeTensor.__dict__.get("data")
    FakeTensor.data = property(get, put)  # type: ignore[assignment, method-assign]
    try:
        yield
    finally:
        if had:
            FakeTensor.data = own  # type: ignore[assignment, method-assign]
        else:
            del FakeTensor.data


def _solution_line(filename: str, depth: int = 2) -> tuple[int, str] | None:
    frame: FrameType | None = sys._getframe(depth)
    while frame is not None:
        if frame.f_code.co_filename == filename:
            import linecache

            return frame.f_lineno, linecache.getline(filename, frame.f_lineno).strip()[:200]
        frame = frame.f_back
    return None
