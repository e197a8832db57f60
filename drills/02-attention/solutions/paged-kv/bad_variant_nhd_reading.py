# trap: nhd-layout
# variant: layout=hnd
# flash-attn's (N, P, H, dh) reading, applied to FlashInfer HND pools.
import math

import torch


def paged_decode(q, k_pool, v_pool, block_table, seq_lens):
    B, M = block_table.shape
    _, P, H, dh = k_pool.shape
    k = k_pool[block_table.long()].reshape(B, M * P, H, dh)
    v = v_pool[block_table.long()].reshape(B, M * P, H, dh)
    s = torch.einsum("bhd,blhd->bhl", q, k) / math.sqrt(dh)
    keep = torch.arange(M * P, device=q.device) < seq_lens[:, None]
    s = s.masked_fill(~keep[:, None, :], float("-inf"))
    return torch.einsum("bhl,blhd->bhd", torch.softmax(s, dim=-1), v)
