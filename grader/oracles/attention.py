"""Attention oracles several drills share: multi-head attention through torch's own
scaled_dot_product_attention (a spec names it as `oracle: sdpa_mha`; another drill's
own oracle file imports it)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def _split(x: torch.Tensor, H: int) -> torch.Tensor:
    B, L, d = x.shape
    return x.reshape(B, L, H, d // H).transpose(1, 2)


def sdpa_mha(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, pad_mask: torch.Tensor, H: int) -> torch.Tensor:
    """Multi-head attention through SDPA with a (B, 1, 1, S) boolean keep mask."""
    B, T, d = Q.shape
    keep = pad_mask.bool()[:, None, None, :]
    out = F.scaled_dot_product_attention(_split(Q, H), _split(K, H), _split(V, H), attn_mask=keep)
    return out.transpose(1, 2).reshape(B, T, d)
