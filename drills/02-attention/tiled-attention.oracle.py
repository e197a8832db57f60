"""The oracle for tiled-attention: torch's SDPA in float64.

Kept apart from the reference so that it is an independent check (drills/README.md). Arguments come
with floating tensors upcast to float64."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def sdpa_blockless(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, block: int, *,
                   causal: str = "none") -> torch.Tensor:
    """softmax(q k^T / sqrt(dh)) v (block only says how to tile it, not what it is); `causal`
    bottom-right: flash-attn's mask, query i reads keys j <= i + S - T, a query with none gives zeros."""
    if causal != "bottom-right":
        return F.scaled_dot_product_attention(q, k, v)
    T, S = q.shape[-2], k.shape[-2]
    keep = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    return torch.where(keep.any(dim=-1)[:, None], torch.nan_to_num(out, nan=0.0), torch.zeros_like(out))
