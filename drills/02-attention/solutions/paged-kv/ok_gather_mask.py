# Gather the blocks the table names, tokens in order, then a per-token length mask.
import math

import torch


def paged_decode(q, k_pool, v_pool, block_table, seq_lens):
    B, M = block_table.shape
    _, P, H, dh = k_pool.shape
    k = k_pool[block_table.long()].reshape(B, M * P, H, dh).transpose(1, 2)  # (B, H, L, dh)
    v = v_pool[block_table.long()].reshape(B, M * P, H, dh).transpose(1, 2)
    scores = (q[:, :, None, :] @ k.transpose(-2, -1))[:, :, 0] / math.sqrt(dh)  # (B, H, L)
    keep = torch.arange(M * P, device=q.device)[None, :] < seq_lens[:, None]
    scores = scores.masked_fill(~keep[:, None, :], float("-inf"))
    return (scores.softmax(-1)[:, :, None, :] @ v)[:, :, 0]
