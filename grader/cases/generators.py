"""Built-in input generators, named by specs as `gen: <name>`.

Each generator is `gen(ctx, shape, dtype, **options) -> value`. Options come
from the spec's `options:` and may be overridden per case through
`params: {<arg name>: {<option>: value}}`. A drill with special needs names a
function of its own reference file as `gen: py:<name>` with the same
signature, or builds every argument at once with `inputs: py:<name>`.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

import torch

from grader.dims import eval_expr
from grader.spec import CaseSpec


@dataclass
class Context:
    gen: torch.Generator  # torch randomness for this case
    rng: random.Random  # Python randomness for this case
    sizes: dict[str, int]
    dtype: torch.dtype  # the case's floating dtype ("float")
    mask_dtype: torch.dtype  # the case's mask dtype ("mask")
    params: dict[str, Any]
    case: CaseSpec
    args: dict[str, Any]  # arguments already built for this function
    shared: dict[str, Any]  # values shared by every function of the case
    reference: ModuleType

    def size(self, expr: str | int) -> int:
        return eval_expr(expr, self.sizes)

    def randn(self, *shape: int, dtype: torch.dtype | None = None) -> torch.Tensor:
        out = torch.randn(shape, generator=self.gen, dtype=torch.float32)
        return out.to(dtype or self.dtype)

    def rand(self, *shape: int, dtype: torch.dtype | None = None) -> torch.Tensor:
        return torch.rand(shape, generator=self.gen, dtype=torch.float32).to(dtype or self.dtype)

    def randint(self, low: int, high: int, shape: tuple[int, ...]) -> torch.Tensor:
        return torch.randint(low, high, shape, generator=self.gen, dtype=torch.int64)


def randn(ctx: Context, shape: tuple[int, ...], dtype: torch.dtype, scale: float = 1.0, offset: float = 0.0) -> torch.Tensor:
    """Normal values, drawn in fp32 then cast (so fp16 cases are fp32 cases rounded)."""
    x = torch.randn(shape, generator=ctx.gen, dtype=torch.float32) * scale + offset
    return x.to(dtype)


def uniform(ctx: Context, shape: tuple[int, ...], dtype: torch.dtype, low: float = 0.0, high: float = 1.0) -> torch.Tensor:
    x = torch.rand(shape, generator=ctx.gen, dtype=torch.float32) * (high - low) + low
    return x.to(dtype)


def randint(ctx: Context, shape: tuple[int, ...], dtype: torch.dtype, low: int | str = 0, high: int | str = 2) -> torch.Tensor:
    """Integers in [low, high); bounds may name dimensions ("V")."""
    lo, hi = ctx.size(low), ctx.size(high)
    return torch.randint(lo, hi, shape, generator=ctx.gen, dtype=torch.int64).to(dtype or torch.int64)


def lengths_for(ctx: Context, batch: int, length: int, padding: str) -> list[int]:
    """Real-token counts per sample for a padding style.

    right/left: random lengths in [1, length] with at least one sample padded
    (when length > 1) and, when batch > 1, one sample at full length;
    single: as right, and sample 0 has exactly one real token;
    empty: as right, and sample 0 has no real token at all;
    none: every sample at full length.
    """
    if padding == "none" or length == 0:
        return [length] * batch
    lens = [ctx.rng.randint(1, length) for _ in range(batch)]
    if batch > 1:
        lens[ctx.rng.randrange(batch)] = length
    if length > 1 and all(n == length for n in lens):
        lens[-1] = ctx.rng.randint(1, length - 1)
    if padding == "single":
        lens[0] = 1
    elif padding == "empty":
        lens[0] = 0
    elif padding == "sorted":
        lens.sort(reverse=True)
    return lens


def padding_mask(ctx: Context, shape: tuple[int, ...], dtype: torch.dtype, padding: str = "right",
                 side: str = "right", true_means: str = "keep", additive: bool = False) -> torch.Tensor:
    """A (B, L) mask in the case's mask dtype: 1/True on real tokens (`true_means: keep`, SDPA's
    boolean attn_mask) or on padding (`true_means: pad`, nn.MultiheadAttention's key_padding_mask);
    with `additive: true`, 0 on real tokens and torch.finfo(dtype).min on padding (Hugging Face's
    extended attention mask) in a floating dtype. `side` puts the padding on the right (training)
    or the left (batched generation); `padding: left` is the same as `side: left`.

    The lengths are remembered in ctx.shared["lengths"] so other arguments
    can depend on them. `padding` may also come from the case params.
    """
    padding = str(ctx.params.get("padding", padding))
    if side not in ("right", "left") or true_means not in ("keep", "pad"):
        raise ValueError(f"padding_mask: side is right or left (got {side!r}), true_means keep or pad "
                         f"(got {true_means!r})")
    left = padding == "left" or (side == "left" and padding in ("right", "single", "empty", "sorted"))
    batch, length = shape
    lens = lengths_for(ctx, batch, length, padding if padding != "left" else "right")
    ctx.shared["lengths"] = lens
    mask = torch.zeros(batch, length, dtype=torch.bool)
    for b, n in enumerate(lens):
        if left:
            mask[b, length - n:] = True
        elif padding == "random" and n < length:
            idx = torch.randperm(length, generator=ctx.gen)[:n]
            mask[b, idx] = True
        else:
            mask[b, :n] = True
    if additive:
        if not dtype.is_floating_point:
            raise ValueError("padding_mask: an additive mask needs a floating dtype (dtype: float)")
        return torch.zeros(batch, length, dtype=dtype).masked_fill(~mask, torch.finfo(dtype).min)
    if true_means == "pad":
        mask = ~mask
    return mask.to(dtype)


def ones(ctx: Context, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    return torch.ones(shape, dtype=dtype)


def arange(ctx: Context, shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    n = 1
    for s in shape:
        n *= s
    return torch.arange(n, dtype=torch.float64).reshape(shape).to(dtype)


def literal(ctx: Context, shape: tuple[int, ...] | None, dtype: torch.dtype | None, data: Any = None) -> Any:
    """A fixed value from the spec or case params; a tensor when the argument has a shape."""
    if shape is not None:
        return torch.tensor(data, dtype=dtype)
    return data


GENERATORS: dict[str, Callable[..., Any]] = {
    "randn": randn,
    "uniform": uniform,
    "randint": randint,
    "padding_mask": padding_mask,
    "ones": ones,
    "arange": arange,
    "literal": literal,
}
