"""The oracle for paged-kv: each sequence gathered token by token, then SDPA with a key mask, in float64.

Kept apart from the reference so that it is an independent check (drills/README.md). Arguments come
with floating tensors upcast to float64."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def gather_then_sdpa(q: torch.Tensor, k_pool: torch.Tensor, v_pool: torch.Tensor, block_table: torch.Tensor,
                     seq_lens: torch.Tensor, *, layout: str = "nhd") -> torch.Tensor:
    """Token t of sequence b is slot t % P of pool block block_table[b, t // P]; `layout` hnd: the pools
    are (N, H, P, dh)."""
    if layout == "hnd":
        k_pool, v_pool = k_pool.transpose(1, 2), v_pool.transpose(1, 2)
    B, M = block_table.shape
    _, P, H, dh = k_pool.shape
    L = M * P
    k = torch.zeros(B, H, L, dh, dtype=torch.float64)
    v = torch.zeros(B, H, L, dh, dtype=torch.float64)
    mask = torch.zeros(B, 1, 1, L, dtype=torch.bool)
    for b in range(B):
        for t in range(int(seq_lens[b])):
            blk, slot = int(block_table[b, t // P]), t % P
            k[b, :, t] = k_pool[blk, slot]
            v[b, :, t] = v_pool[blk, slot]
            mask[b, 0, 0, t] = True
    out = F.scaled_dot_product_attention(q.double()[:, :, None], k, v, attn_mask=mask)  # (B, H, 1, dh)
    return out[:, :, 0]
