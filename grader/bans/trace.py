"""Which dispatcher kernels a drill's `banned:` functions reach, by family, on every machine.

A banned function can be reached by other routes than its name:
`torch.ops.aten.einsum`, `torch._VF.einsum`, `torch._cdist_forward`,
`torch._C._nn.im2col`, a backend's own kernel (`aten::thnn_conv2d` on one CPU,
`aten::mkldnn_convolution` on another). The sandbox child refuses those kernels
(grader.bans.dispatch). This module finds them, in the parent, once per drill,
with no table per drill kept by hand, and with the same answer on every CPU:

- a banned builtin names its operator (`torch.bincount` -> `aten::bincount`,
  `torch.Tensor.bincount` too), and so does a front end in torch.functional
  of the `_VF` operator of its name (`torch.broadcast_tensors`);
- a banned Python front end (`F.unfold`, `F.conv2d`) is run on the drill's
  prepared cases by its oracles under the profiler, marked; when a marked call
  reaches exactly one top-level operator, that operator is the function's own
  (`F.unfold` -> `aten::im2col`). Only the top-level operator is taken: what runs
  beneath it depends on the CPU (which convolution kernel oneDNN picks), so it
  is never consulted. A banned call that is a composition of several operators
  (torchvision's `box_iou`, `batched_nms`) adds nothing: its building blocks
  are what the person is asked to use;
- an operator found so that belongs to one of the operator families below
  brings in the whole family, in every namespace the dispatcher knows (and
  torch's higher-order operators, flex_attention's kernels being Python):
  every kernel that can compute the banned operation on some machine (all
  convolutions forward and backward, every fused attention kernel, ...);
- torch's private operators that carry a found operator's whole name are
  added (`aten::_convolution_mode`);
- every operator the drill's own reference runs on the same cases is taken
  out again: legitimate code needs it.

The result maps a qualified operator name (`aten::_cdist_forward`) to the
banned name reported when it is reached (`torch.cdist`).
"""
from __future__ import annotations

import contextlib
import functools
import os
import re
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any

import torch

from grader.bans import calls as bans
from grader.bans import dispatch as dispatch_bans
from grader.cases.prepare import Prepared, fresh, oracle_for, upcast, with_kwargs

MARK = "drill-banned:"
# Operator families: names (the part after `ns::`) of the kernels that compute one operation, on any backend.
# A found operator matching one brings in every operator the dispatcher knows that matches it.
FAMILIES = {
    "convolution": re.compile(r"conv(?!ert)"),  # conv1d/2d/3d, transposed, dilated, depthwise, backward, oneDNN, quantized
    "attention": re.compile(r"attention|_sdp_|multi_head|transformer_encoder"),  # SDPA, flash, efficient, cudnn, fused MHA
    "distance": re.compile(r"cdist|pdist|euclidean_dist|pairwise_distance"),
    "normalization": re.compile(r"(layer|group|batch|instance|rms)_norm"),
    "counting": re.compile(r"bincount|histc|histogram|one_hot"),
    "einsum": re.compile(r"einsum"),
    "unfold": re.compile(r"^im2col"),  # F.unfold's kernels
    "fold": re.compile(r"^col2im"),  # F.fold's kernels
    "broadcast_tensors": re.compile(r"^broadcast_tensors"),
}
_CACHE: dict[tuple, dict[str, str]] = {}
_LOCK = threading.Lock()
_CALLS_PER_FUNCTION = 6  # at most this many prepared calls traced per contract function


def kernels(prep: Prepared) -> dict[str, str]:
    """Operator (`ns::name`) -> banned name, for the drill of `prep`; cached per drill."""
    spec = prep.spec
    if not spec.banned:
        return {}
    key = (spec.id, str(spec.reference_path), spec.banned)
    with _LOCK:
        if key not in _CACHE:
            _CACHE[key] = derive(prep)
            dispatch_bans.python_routes(tuple(sorted(_CACHE[key].items())))  # found here, inherited by every child
        return _CACHE[key]


def derive(prep: Prepared) -> dict[str, str]:
    spec = prep.spec
    targets: dict[int, str] = {}
    found: dict[str, str] = {}
    for name in spec.banned:
        try:
            obj = bans.resolve(name, load=False)
        except Exception:  # noqa: BLE001, S112 - a name that does not resolve (or is not imported) is refused by name only
            continue
        if _markable(obj):
            targets[id(obj)] = name
        op = _builtin_op(obj)
        if op:
            found.setdefault(op, name)
    by_name = dict(found)
    try:
        legit = _trace(prep, targets, found)
    except Exception:  # noqa: BLE001 - a trace that fails leaves the bans by name, never grading broken
        found, legit = by_name, set()
    for op, name in list(found.items()):
        for member in family_of(op):
            found.setdefault(member, name)
    for op, name in list(found.items()):
        for variant in _private_variants(op):
            found.setdefault(variant, name)
    return {op: name for op, name in sorted(found.items()) if op not in legit and _exists(op)}


# ------------------------------------------------------------------ tracing


def _trace(prep: Prepared, targets: dict[int, str], found: dict[str, str]) -> set[str]:
    """Add to `found` what the oracles' banned calls reach; return the operators the reference needs."""
    with _quiet_stderr():
        marked = [(name, roots) for name, roots in _marked_calls(prep, targets)
                  if len({e.name for e in roots}) == 1 and _is_operator(roots[0].name)]
        for name, roots in marked:  # a call that reaches exactly one operator: the function's own
            found.setdefault(roots[0].name, name)
        return _reference_operators(prep) if found else set()


def _marked_calls(prep: Prepared, targets: dict[int, str]) -> Iterator[tuple[str, list[Any]]]:
    """(banned name, its top-level operator events) for every banned call the oracles make."""
    if not targets:
        return
    profile = _profile(lambda: _run_oracles(prep, targets))
    for event in profile:
        if event.name.startswith(MARK) and event.cpu_parent is None:
            yield event.name[len(MARK):], list(event.cpu_children)


def _run_oracles(prep: Prepared, targets: dict[int, str]) -> None:
    spec = prep.spec
    # an oracle that differentiates runs its backward on this thread (grader.cases.prepare._expected says why)
    with _Marker(targets), torch.autograd.set_multithreading_enabled(False):
        for fn in spec.functions:
            try:
                oracle = oracle_for(spec, fn, prep.reference)
            except Exception:  # noqa: BLE001, S112 - no oracle, nothing to learn from it
                continue
            _run_each(oracle, _sample(prep, fn.name))


def _reference_operators(prep: Prepared) -> set[str]:
    """Every operator the drill's reference runs on the sampled cases."""
    spec = prep.spec

    def run() -> None:
        for fn in spec.functions:
            func = getattr(prep.reference, fn.name, None)
            if callable(func):
                _run_each(with_kwargs(func, spec.call_kwargs), _sample(prep, fn.name, largest=False))

    return {e.name for e in _profile(run)}


def _run_each(func: Callable[..., Any], calls: list[Any]) -> None:
    """func on each call's arguments as a solution gets them (upcast when that fails, as oracles may need)."""
    for call in calls:
        for args in (fresh(call.args), upcast(call.args)):
            try:
                with torch.no_grad():
                    func(*args)
                break
            except Exception:  # noqa: BLE001, S112 - learn from the calls that work
                continue


def _sample(prep: Prepared, function: str, largest: bool = True) -> list[Any]:
    """A few of the function's prepared calls: the first of each dtype, and the largest one
    (torch picks a kernel by dtype and size)."""
    calls = [c for c in prep.calls if c.function.name == function and not c.case.heavy]
    picked: dict[Any, Any] = {}
    for call in calls:
        picked.setdefault((call.dtype, call.mask_dtype), call)
    if calls and largest:
        biggest = max(calls, key=lambda c: sum(a.numel() for a in c.args if isinstance(a, torch.Tensor)))
        picked.setdefault("largest", biggest)
    return list(picked.values())[:_CALLS_PER_FUNCTION]


def _profile(work: Callable[[], None]) -> list[Any]:
    from torch.autograd import profiler

    with profiler.profile(use_kineto=False) as prof:
        work()
    return list(prof.function_events)


def _marker_class() -> type:
    from torch.autograd.profiler import record_function
    from torch.overrides import TorchFunctionMode

    class Marker(TorchFunctionMode):
        """Marks every call to a banned function as a profiler range named after it."""

        def __init__(self, targets: dict[int, str]):
            super().__init__()
            self.targets = targets

        def __torch_function__(self, func: Callable[..., Any], types: Any, args: tuple[Any, ...] = (),
                               kwargs: dict[str, Any] | None = None) -> Any:
            name = self.targets.get(id(func))
            if name is None:
                return func(*args, **(kwargs or {}))
            with record_function(MARK + name):
                return func(*args, **(kwargs or {}))

    return Marker


def _Marker(targets: dict[int, str]) -> Any:  # noqa: N802 - called like the class it builds
    return _marker_class()(targets)


# ------------------------------------------------------------------ names


def _builtin_op(obj: Any) -> str | None:
    """`aten::name` for a torch builtin (`torch.bincount`, `torch.Tensor.bincount`, `torch._C._nn.one_hot`)
    and for a front end in torch.functional of the `_VF` operator of its name (`torch.einsum`,
    `torch.cdist`, `torch.broadcast_tensors`)."""
    if isinstance(obj, types.FunctionType):
        if obj.__module__ != "torch.functional" or not hasattr(torch._VF, obj.__name__):
            return None
    elif isinstance(obj, (types.BuiltinFunctionType, types.MethodDescriptorType)):
        owner = getattr(obj, "__objclass__", None) or getattr(obj, "__self__", None)
        module = getattr(obj, "__module__", None) or getattr(owner, "__module__", None) or ""
        if not (module.startswith("torch") or getattr(owner, "__name__", "").startswith("torch")):
            return None
    else:
        return None
    op = f"aten::{obj.__name__}"
    return op if _exists(op) else None


def _markable(obj: Any) -> bool:
    """Whether a call to obj reaches the marking TorchFunctionMode: torch's own functions do,
    plain Python functions of other libraries (torchvision's box_iou) do not."""
    if isinstance(obj, type):
        return False
    module = getattr(obj, "__module__", None) or getattr(getattr(obj, "__objclass__", None), "__module__", "") or ""
    return module == "torch" or module.startswith("torch.")


@functools.lru_cache(maxsize=1)
def _all_operators() -> tuple[str, ...]:
    """Every operator the dispatcher knows, in every namespace (`aten::conv2d`, `mkldnn::_convolution_pointwise`),
    and torch's higher-order operators (`higher_order::flex_attention`), which have Python kernels only."""
    names = {n.split(".")[0] for n in torch._C._dispatch_get_all_op_names()}
    names.update(f"higher_order::{n}" for n in torch._ops._higher_order_ops)
    return tuple(sorted(names))


def _private_operators() -> tuple[str, ...]:
    return tuple(n for n in _all_operators() if n.startswith("aten::_"))


def family_of(op: str) -> list[str]:
    """Every operator of the family `op` belongs to (none when it belongs to none), whatever this
    CPU dispatches to: `aten::conv2d` -> all convolution kernels, `aten::scaled_dot_product_attention`
    -> every fused attention kernel."""
    name = op.partition("::")[2]
    pattern = next((p for p in FAMILIES.values() if p.search(name)), None)
    if pattern is None:
        return []
    return [o for o in _all_operators() if pattern.search(o.partition("::")[2]) and _exists(o)]


def _private_variants(op: str) -> list[str]:
    """torch's private operators that carry a banned operator's whole name: `aten::cdist` ->
    `aten::_cdist_forward`, `aten::scaled_dot_product_attention` -> `aten::_scaled_dot_product_attention_math`,
    `aten::convolution` -> `aten::_convolution_mode`."""
    namespace, _, name = op.partition("::")
    stem = name.strip("_")
    if namespace != "aten" or len(stem) < 4:
        return []
    return [p for p in _private_operators() if stem in p[len("aten::"):] and p != op]


def _is_operator(name: str) -> bool:
    return "::" in name and not name.startswith(MARK)


def _exists(op: str) -> bool:
    namespace, _, name = op.partition("::")
    if namespace == "higher_order":
        return name in torch._ops._higher_order_ops
    try:
        return isinstance(getattr(getattr(torch.ops, namespace), name), torch._ops.OpOverloadPacket)
    except (AttributeError, RuntimeError):
        return False


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """The profiler's C++ side prints start/stop lines on fd 2; keep them off the person's terminal."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, 2)
        finally:
            os.close(devnull)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
