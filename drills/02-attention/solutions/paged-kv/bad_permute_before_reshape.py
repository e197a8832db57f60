# trap: block-slot-swapped
# "Slots first, then blocks": the gathered (B, M, P, H, dh) permuted to (B, P, M, H, dh) before flattening.
import math

import torch


def paged_decode(q, k_pool, v_pool, block_table, seq_lens):
    B, M = block_table.shape
    _, P, H, dh = k_pool.shape
    k = k_pool[block_table.long()].permute(0, 2, 1, 3, 4).reshape(B, P * M, H, dh)
    v = v_pool[block_table.long()].permute(0, 2, 1, 3, 4).reshape(B, P * M, H, dh)
    s = torch.einsum("bhd,blhd->bhl", q, k) * dh ** -0.5
    keep = torch.arange(P * M, device=q.device)[None] < seq_lens[:, None]
    s = s.masked_fill(~keep[:, None], float("-inf"))
    return torch.einsum("bhl,blhd->bhd", s.softmax(-1), v)
