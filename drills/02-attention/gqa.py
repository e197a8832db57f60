"""Reference and traps for gqa.

Every function takes the variant keywords (drills/README.md, "Variants"): `layout` says how q, k, v
and the result are laid out (bhtd: (B, H, T, dh), SDPA's; bthd: (B, T, H, dh), flash-attn's) and
`causal` which mask applies (none; top-left: query i reads keys j <= i, SDPA's is_causal;
bottom-right: query i reads keys j <= i + S - T, flash-attn's, a query with no key gives zeros).
The defaults are the contract."""
import math

import torch


def _heads_first(layout, *xs):
    return tuple(x.transpose(1, 2) for x in xs) if layout == "bthd" else xs


def _keep(T, S, causal, device):
    """(T, S) bool: the keys each query may read, or None without a mask."""
    if causal == "none":
        return None
    offset = S - T if causal == "bottom-right" else 0
    return torch.ones(T, S, dtype=torch.bool, device=device).tril(diagonal=offset)


def _attend(q, k, v, scale, causal="none", dim=-1):
    T, S = q.shape[-2], k.shape[-2]
    scores = q @ k.transpose(-2, -1) / scale  # (B, H, T, S)
    keep = _keep(T, S, causal, q.device)
    if keep is not None:
        scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    w = torch.softmax(scores, dim=dim)
    if keep is not None:
        w = w * keep.any(dim=-1, keepdim=True)  # a query with no key to read gives zeros
    return w @ v


def gqa_attention(q, k, v, *, layout="bhtd", causal="none"):
    q, k, v = _heads_first(layout, q, k, v)  # (B, H, T, dh), (B, H_kv, S, dh)
    B, H, T, dh = q.shape
    H_kv, S = k.shape[1], k.shape[2]
    group = H // H_kv  # query heads per kv head
    # query heads h*group .. h*group + group - 1 share kv head h (repeat_interleave semantics)
    k = k[:, :, None].expand(B, H_kv, group, S, dh).reshape(B, H, S, dh)
    v = v[:, :, None].expand(B, H_kv, group, S, dh).reshape(B, H, S, dh)
    out = _attend(q, k, v, math.sqrt(dh), causal)  # (B, H, T, dh)
    return _heads_first(layout, out)[0]


def trap_repeat_tiles(q, k, v, *, layout="bhtd", causal="none"):
    q, k, v = _heads_first(layout, q, k, v)
    group = q.shape[1] // k.shape[1]
    k = k.repeat(1, group, 1, 1)  # heads 0, H_kv, 2*H_kv, ... share kv head 0
    v = v.repeat(1, group, 1, 1)
    return _heads_first(layout, _attend(q, k, v, math.sqrt(q.shape[-1]), causal))[0]


def trap_softmax_over_queries(q, k, v, *, layout="bhtd", causal="none"):
    q, k, v = _heads_first(layout, q, k, v)
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    return _heads_first(layout, _attend(q, k, v, math.sqrt(q.shape[-1]), causal, dim=-2))[0]


def trap_no_scale(q, k, v, *, layout="bhtd", causal="none"):
    q, k, v = _heads_first(layout, q, k, v)
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    return _heads_first(layout, _attend(q, k, v, 1.0, causal))[0]


def trap_top_left(q, k, v, *, layout="bhtd"):
    """SDPA's is_causal alignment where flash-attn's bottom-right one is asked for."""
    return gqa_attention(q, k, v, layout=layout, causal="top-left")


def trap_bottom_right(q, k, v, *, layout="bhtd"):
    """flash-attn's bottom-right alignment where SDPA's top-left one is asked for."""
    return gqa_attention(q, k, v, layout=layout, causal="bottom-right")
