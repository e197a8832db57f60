"""Attention oracles several drills share: multi-head attention through torch's own
scaled_dot_product_attention (a spec names it as `oracle: sdpa_mha`; another drill's
own oracle file imports it)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def _split(x: torch.Tensor, H: int) -> torch.Tensor:
    B, L, d = x.shape
    return x.reshape(B, L, H, d // H).transpose(1, 2)


def sdpa_mha(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, pad_mask: torch.Tensor, H: int, *,
             mask: str = "keep", layout: str = "btd") -> torch.Tensor:
    """Multi-head attention through SDPA with a (B, 1, 1, S) key mask. `mask` says what pad_mask
    holds: keep (1/True on real keys, SDPA's boolean attn_mask), pad (1/True on padding,
    nn.MultiheadAttention's key_padding_mask) or additive (0 and a large negative, added to the
    scores, as SDPA's float attn_mask takes it); `layout` btd (batch first) or tbd
    (nn.MultiheadAttention's default, batch_first=False), for Q, K, V and the result."""
    if layout == "tbd":
        Q, K, V = Q.transpose(0, 1), K.transpose(0, 1), V.transpose(0, 1)
    B, T, d = Q.shape
    if mask == "additive":
        attn_mask = pad_mask.to(Q.dtype)[:, None, None, :]
    elif mask == "pad":
        attn_mask = ~pad_mask.bool()[:, None, None, :]
    else:
        attn_mask = pad_mask.bool()[:, None, None, :]
    out = F.scaled_dot_product_attention(_split(Q, H), _split(K, H), _split(V, H), attn_mask=attn_mask)
    out = out.transpose(1, 2).reshape(B, T, d)
    return out.transpose(0, 1) if layout == "tbd" else out
