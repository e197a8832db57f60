# Per-token addresses: block id from the table at t // P, slot t % P, then advanced indexing into the pool.
import math

import torch


def paged_decode(q, k_pool, v_pool, block_table, seq_lens):
    B, M = block_table.shape
    P, dh = k_pool.shape[1], k_pool.shape[-1]
    t = torch.arange(M * P, device=q.device)
    blocks = block_table.long()[:, t // P]  # (B, L)
    slots = (t % P).expand(B, -1)  # (B, L)
    k = k_pool[blocks, slots]  # (B, L, H, dh)
    v = v_pool[blocks, slots]
    s = torch.einsum("bhd,blhd->bhl", q.float(), k.float()) / math.sqrt(dh)
    s = s.masked_fill((t[None, :] >= seq_lens[:, None].long())[:, None, :], float("-inf"))
    return torch.einsum("bhl,blhd->bhd", torch.softmax(s, -1), v.float()).to(q.dtype)
