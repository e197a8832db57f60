# trap: all-blocks-read
# The table is taken as the sequence: every block it lists, every slot.
import math

import torch


def paged_decode(q, k_pool, v_pool, block_table, seq_lens):
    B, M = block_table.shape
    _, P, H, dh = k_pool.shape
    k = k_pool[block_table.long()].reshape(B, M * P, H, dh)
    v = v_pool[block_table.long()].reshape(B, M * P, H, dh)
    w = torch.softmax(torch.einsum("bhd,blhd->bhl", q.float(), k.float()) / math.sqrt(dh), dim=-1)
    return torch.einsum("bhl,blhd->bhd", w, v.float()).to(q.dtype)
