"""A faster fake-tensor rule for `view` (and `_unsafe_view`, which `reshape` ends in) at plain sizes.

Torch's fake-tensor mode gives these two ops a Python rule (torch._subclasses.fake_impls._view_meta)
that works the new strides out through its reference implementation, written for symbolic sizes: a
third of the device case's run of an attention solution, where one op in five is a view. At plain
integer sizes the op's own meta kernel (C++, the one a real `view` uses to work out its strides)
gives the same sizes, strides and storage, and on an unviewable tensor raises the error a real run
raises (torch's rule raises a ValueError of its own wording there). `install()` puts that rule
ahead of torch's for runs without a shape environment; with one (symbolic sizes), or any argument
that is not a plain fake tensor, it steps aside and torch's rule runs as before.

Private API, checked before use: `install()` first compares the two rules on a few views and
installs nothing when they differ or either is missing (a torch that moved them): the runs are
then as fast as torch makes them, and the same.
"""
from __future__ import annotations

import functools
from typing import Any

import torch


@functools.lru_cache(maxsize=1)
def install() -> bool:
    """Put the plain-size rule first, once per process, if it agrees with torch's here. Whether it is in."""
    try:
        from torch._subclasses import fake_impls
        from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode, in_kernel_invocation_manager

        checks = fake_impls.op_implementations_checks
        views = (torch.ops.aten.view.default, torch.ops.aten._unsafe_view.default)
    except (ImportError, AttributeError):
        return False

    def is_view(func: Any) -> bool:
        return func is views[0] or func is views[1]

    def plain_view(fake_mode: Any, func: Any, a: Any, *shape: Any) -> Any:
        if fake_mode.shape_env is not None or type(a) is not FakeTensor or a.layout is not torch.strided:
            return NotImplemented
        size = shape[0] if len(shape) == 1 and isinstance(shape[0], (list, tuple)) else shape
        if not all(type(s) is int for s in size):
            return NotImplemented
        with in_kernel_invocation_manager(fake_mode):
            meta = func(a, size)  # the meta kernel on the fake tensor's own meta storage: an alias of it
        return fake_mode.fake_tensor_converter.from_meta_and_device(fake_mode, meta, a.fake_device)

    entry = (is_view, plain_view)
    checks.insert(0, entry)
    try:
        agrees = _agrees(FakeTensorMode, checks, entry)
    except Exception:  # noqa: BLE001 - a probe: any surprise means torch's own rule stays alone
        agrees = False
    if not agrees:
        if entry in checks:
            checks.remove(entry)
        return False
    return True


def _agrees(mode_class: Any, checks: list, entry: tuple) -> bool:
    """The same views made with the plain rule in place and without it: same sizes, strides, offset,
    storage, device; and a failure on a view no strides can give."""
    def made(with_rule: bool) -> list[Any]:
        if not with_rule:
            checks.remove(entry)
        try:
            with mode_class(allow_non_fake_inputs=True) as mode:
                x = torch.empty(2, 3, 4, device="cpu")
                x = mode.from_tensor(x)
                t = x.transpose(0, 1)
                views = [x.view(6, 4), x.view(-1), x[:, 1].reshape(4, 2), t.reshape(3, 8), x.view(2, 12)[1:].view(3, 4)]
                out: list[Any] = [(tuple(v.shape), tuple(v.stride()), v.storage_offset(), v.untyped_storage()._cdata
                        == x.untyped_storage()._cdata, str(v.device)) for v in views]
                try:
                    t.view(24)
                    out.append("viewed")
                except (RuntimeError, ValueError):  # torch's rule says ValueError, the kernel (as eager) RuntimeError
                    out.append("refused")
            return out
        finally:
            if not with_rule:
                checks.insert(0, entry)

    return made(True) == made(False)
