# trap: tail-not-masked
# The mask counts blocks in use, not tokens: the last block is read whole.
import math

import torch


def paged_decode(q, k_pool, v_pool, block_table, seq_lens):
    B, M = block_table.shape
    _, P, H, dh = k_pool.shape
    k = k_pool[block_table.long()]  # (B, M, P, H, dh)
    v = v_pool[block_table.long()]
    n_blocks = (seq_lens + P - 1) // P
    block_used = torch.arange(M, device=q.device)[None, :] < n_blocks[:, None]  # (B, M)
    keep = block_used[:, :, None].expand(B, M, P).reshape(B, M * P)
    s = torch.einsum("bhd,blhd->bhl", q, k.reshape(B, M * P, H, dh)) / math.sqrt(dh)
    s = s.masked_fill(~keep[:, None], float("-inf"))
    return torch.einsum("bhl,blhd->bhd", s.softmax(-1), v.reshape(B, M * P, H, dh))
