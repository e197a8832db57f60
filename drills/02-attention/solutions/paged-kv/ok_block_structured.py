# Keeping the (M, P) structure: scores per block and slot, masked with a (B, M, P) mask.
import math

import torch


def paged_decode(q, k_pool, v_pool, block_table, seq_lens):
    B, M = block_table.shape
    P = k_pool.shape[1]
    kb = k_pool[block_table.long()]  # (B, M, P, H, dh)
    vb = v_pool[block_table.long()]
    s = torch.einsum("bhd,bmphd->bhmp", q, kb) / math.sqrt(q.shape[-1])
    pos = torch.arange(M, device=q.device)[:, None] * P + torch.arange(P, device=q.device)  # (M, P)
    s = s.masked_fill((pos >= seq_lens.reshape(B, 1, 1, 1)), float("-inf"))
    w = torch.softmax(s.reshape(B, -1, M * P), dim=-1).reshape(s.shape)
    return torch.einsum("bhmp,bmphd->bhd", w, vb)
