# No gather: every sequence attends over the whole pool, its own slots picked by a mask, the
# products broadcast to (B, N*P, H, dh). Right values; memory that grows with B times the pool.
import math

import torch


def paged_decode(q, k_pool, v_pool, block_table, seq_lens):
    B, M = block_table.shape
    N, P, H, dh = k_pool.shape
    keys = k_pool.reshape(N * P, H, dh)
    vals = v_pool.reshape(N * P, H, dh)
    # position of pool slot (n, p) in sequence b, or -1 when b does not own it
    owner = block_table.long()[:, :, None] == torch.arange(N, device=q.device)  # (B, M, N)
    col = (owner * torch.arange(M, device=q.device)[None, :, None]).sum(1)  # (B, N)
    pos = col[:, :, None] * P + torch.arange(P, device=q.device)  # (B, N, P)
    keep = (owner.any(1)[:, :, None] & (pos < seq_lens[:, None, None])).reshape(B, N * P)
    scores = (q[:, None] * keys[None]).sum(-1) / math.sqrt(dh)  # (B, N*P, H) from a (B, N*P, H, dh) product
    scores = scores.masked_fill(~keep[:, :, None], float("-inf"))
    w = torch.softmax(scores, dim=1)
    return (w[..., None] * vals[None]).sum(1)
