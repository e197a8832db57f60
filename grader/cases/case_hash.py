"""A short fingerprint of the cases a drill is graded on (its prepared calls).

Two people graded with the same catalogue, the same grader and the same seed
get the same hash; another seed, another version of a drill (sizes, cases,
generators, reference) or another grader gives another. `drill team` writes it
with each result, so the board can tell a run graded on other cases.

What goes in: the variant the drill is under (its non-default choices, none for the
default), then, per call in order: the case's id (its name and generation
fingerprint, grader.spec.case_id), the function name, the sizes, and
every argument and expected value. Floating values are rounded to 12 bits of
mantissa (their bit patterns, rounded to nearest), so that the last-bit
differences one CPU's arithmetic may show against another's do not change the
hash, while any real change to a case does.
"""
from __future__ import annotations

import hashlib
import math
from typing import Any

import torch

from grader.cases.prepare import ExpectedRaise, Prepared

MANTISSA_BITS = 12


def case_hash(prep: Prepared) -> str:
    """16 hex digits naming the prepared calls of one drill and seed."""
    h = hashlib.sha256()
    h.update(f"{prep.spec.id}\0{len(prep.calls)}\0".encode())
    if prep.spec.variant:  # a variant's cases are other cases (the default's hash is as it was)
        h.update(f"variant\0{sorted(prep.spec.variant.items())}\0".encode())
    for call in prep.calls:
        h.update(f"{call.case.key}\0{call.function.name}\0{sorted(call.sizes.items())}\0".encode())
        for value in call.args:
            _feed(h, value)
        h.update(b"=>")
        if call.function.checker:
            # a checker judges the result (say, a random initialisation): the oracle's values
            # are an example that may change from run to run, so only their form counts
            h.update(f"checker:{call.function.checker}:".encode())
            _feed(h, call.expected, values=False)
        else:
            _feed(h, call.expected)
    return h.hexdigest()[:16]


def _feed(h: Any, value: Any, depth: int = 0, values: bool = True) -> None:
    """Feed ``value`` to the hash; with ``values`` False only its form (types, shapes, dtypes)."""
    if depth > 20:
        h.update(b"deep")
        return
    if isinstance(value, torch.Tensor):
        _tensor(h, value, values)
    elif not values and (value is None or isinstance(value, (bool, int, float, str))):
        h.update(f"{type(value).__name__};".encode())
    elif isinstance(value, ExpectedRaise):
        h.update(f"raises{sorted(value.types)}".encode())
    elif isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        h.update(f"{type(value).__name__}:{value!r};".encode())
    elif isinstance(value, float):
        h.update(f"float:{_quantize_float(value)};".encode())
    elif isinstance(value, (tuple, list, torch.Size)):
        h.update(f"{type(value).__name__}[{len(value)}".encode())
        for v in value:
            _feed(h, v, depth + 1, values)
        h.update(b"]")
    elif isinstance(value, dict):
        h.update(f"dict[{len(value)}".encode())
        for k in sorted(value, key=str):
            h.update(f"{k!s}:".encode())
            _feed(h, value[k], depth + 1, values)
        h.update(b"]")
    elif isinstance(value, torch.dtype):
        h.update(f"dtype:{value};".encode())
    else:  # an object the grader hands over as it is: its type is all that is stable
        h.update(f"object:{type(value).__module__}.{type(value).__qualname__};".encode())


def _quantize_float(x: float) -> str:
    if math.isnan(x) or math.isinf(x):
        return repr(x)
    m, e = math.frexp(x)
    return f"{round(m * (1 << MANTISSA_BITS))}e{e}"


_DROP = {torch.float32: (torch.int32, 23 - MANTISSA_BITS), torch.float64: (torch.int64, 52 - MANTISSA_BITS)}


def _tensor(h: Any, t: torch.Tensor, values: bool = True) -> None:
    t = t.detach()
    h.update(f"tensor:{t.dtype}:{tuple(t.shape)}:{t.layout}:".encode())
    if not values or t.layout != torch.strided or t.device.type == "meta":
        return
    t = t.cpu()
    if t.is_complex():
        t = torch.view_as_real(t)
    if t.is_floating_point():
        x = t if t.dtype in _DROP else t.float()  # float16 and bfloat16 widen exactly
        ints, drop = _DROP[x.dtype]
        finite = torch.isfinite(x)
        special = torch.where(torch.isnan(x), 1, torch.where(x > 0, 2, 3))
        bits = torch.where(finite, x, torch.zeros_like(x)).contiguous().view(ints)
        # round the bit pattern to MANTISSA_BITS (a carry runs into the exponent, as it should)
        bits = ((bits + (1 << (drop - 1))) >> drop).to(torch.int32)  # sign, exponent and 12 bits fit
        h.update(bits.numpy().tobytes())
        h.update(torch.where(finite, 0, special).to(torch.int8).numpy().tobytes())
    else:
        h.update(t.to(torch.int64).contiguous().numpy().tobytes())
