"""Reference and traps for mha-padding.

Every function takes the variant keywords (drills/README.md, "Variants"): `mask` says what
pad_mask holds (keep: 1/True on real keys; pad: 1/True on padding; additive: 0 and
finfo.min, added to the scores) and `layout` whether Q, K, V and the result are batch first
(btd) or time first (tbd). The defaults are the contract."""
import math

import torch


def _split(x, H):
    B, L, d = x.shape
    return x.reshape(B, L, H, d // H).transpose(1, 2)  # (B, H, L, dh)


def _merge(ctx):
    B, H, T, dh = ctx.shape
    return ctx.transpose(1, 2).reshape(B, T, H * dh)  # (B, T, d)


def _batch_first(layout, *xs):
    return tuple(x.transpose(0, 1) for x in xs) if layout == "tbd" else xs


def _mask_scores(scores, pad_mask, mask, where=(slice(None), None, None, slice(None))):
    """Hide the padded keys: `where` indexes pad_mask up to the scores' rank ((B, 1, 1, S) for keys)."""
    if mask == "additive":
        return scores + pad_mask.to(scores.dtype)[where]
    keep = pad_mask.bool() if mask == "keep" else ~pad_mask.bool()
    return scores.masked_fill(~keep[where], torch.finfo(scores.dtype).min)


def multi_head_attention(Q, K, V, pad_mask, H: int, *, mask="keep", layout="btd"):
    Q, K, V = _batch_first(layout, Q, K, V)  # (B, T|S, d)
    dh = Q.shape[-1] // H
    q, k, v = _split(Q, H), _split(K, H), _split(V, H)  # (B, H, T|S, dh)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)  # (B, H, T, S)
    scores = _mask_scores(scores, pad_mask, mask)  # pad_mask as (B, 1, 1, S)
    out = _merge(torch.softmax(scores, dim=-1) @ v)  # (B, T, d)
    return _batch_first(layout, out)[0]


def _attend(Q, K, V, pad_mask, H, scale, mask, dim=-1, where=(slice(None), None, None, slice(None))):
    q, k, v = _split(Q, H), _split(K, H), _split(V, H)
    scores = q @ k.transpose(-2, -1) / scale
    if pad_mask is not None:
        scores = _mask_scores(scores, pad_mask, mask, where)
    return torch.softmax(scores, dim=dim) @ v


def trap_scale_by_d(Q, K, V, pad_mask, H: int, *, mask="keep", layout="btd"):
    Q, K, V = _batch_first(layout, Q, K, V)
    out = _merge(_attend(Q, K, V, pad_mask, H, math.sqrt(Q.shape[-1]), mask))
    return _batch_first(layout, out)[0]


def trap_softmax_dim_minus_2(Q, K, V, pad_mask, H: int, *, mask="keep", layout="btd"):
    Q, K, V = _batch_first(layout, Q, K, V)
    out = _merge(_attend(Q, K, V, pad_mask, H, math.sqrt(Q.shape[-1] // H), mask, dim=-2))
    return _batch_first(layout, out)[0]


def trap_mask_queries(Q, K, V, pad_mask, H: int, *, mask="keep", layout="btd"):
    Q, K, V = _batch_first(layout, Q, K, V)  # the mask as (B, 1, S, 1): an error unless T == S
    out = _merge(_attend(Q, K, V, pad_mask, H, math.sqrt(Q.shape[-1] // H), mask,
                         where=(slice(None), None, slice(None), None)))
    return _batch_first(layout, out)[0]


def trap_no_mask(Q, K, V, pad_mask, H: int, *, mask="keep", layout="btd"):
    Q, K, V = _batch_first(layout, Q, K, V)
    out = _merge(_attend(Q, K, V, None, H, math.sqrt(Q.shape[-1] // H), mask))
    return _batch_first(layout, out)[0]


def trap_merge_without_transpose(Q, K, V, pad_mask, H: int, *, mask="keep", layout="btd"):
    Q, K, V = _batch_first(layout, Q, K, V)
    ctx = _attend(Q, K, V, pad_mask, H, math.sqrt(Q.shape[-1] // H), mask)
    B, _, T, _ = ctx.shape
    return _batch_first(layout, ctx.reshape(B, T, -1))[0]


def trap_keep_convention(Q, K, V, pad_mask, H: int, *, layout="btd"):
    """The contract's reading (1/True = a real key, pad_mask.bool() kept) of a mask that means otherwise."""
    return multi_head_attention(Q, K, V, pad_mask, H, mask="keep", layout=layout)
