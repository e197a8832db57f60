# variant: layout=hnd
# FlashInfer's HND pools, (N, H, P, dh): heads moved behind the slots after the gather.
import math

import torch


def paged_decode(q, k_pool, v_pool, block_table, seq_lens):
    B, M = block_table.shape
    _, H, P, dh = k_pool.shape
    k = k_pool[block_table.long()].permute(0, 2, 1, 3, 4).reshape(B, H, M * P, dh)  # (B, H, L, dh)
    v = v_pool[block_table.long()].permute(0, 2, 1, 3, 4).reshape(B, H, M * P, dh)
    s = torch.einsum("bhd,bhld->bhl", q, k) / math.sqrt(dh)
    keep = torch.arange(M * P, device=q.device) < seq_lens[:, None]
    s = s.masked_fill(~keep[:, None], float("-inf"))
    return torch.einsum("bhl,bhld->bhd", s.softmax(-1), v)
