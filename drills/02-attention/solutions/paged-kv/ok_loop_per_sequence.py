# One sequence at a time: exactly its ceil(len / P) blocks, cut to its length.
import math

import torch


def paged_decode(q, k_pool, v_pool, block_table, seq_lens):
    P, H, dh = k_pool.shape[1:]
    outs = []
    for b in range(q.shape[0]):
        n = int(seq_lens[b])
        ids = block_table[b, : (n + P - 1) // P].long()
        k = k_pool[ids].reshape(-1, H, dh)[:n]  # (n, H, dh)
        v = v_pool[ids].reshape(-1, H, dh)[:n]
        s = torch.einsum("hd,nhd->hn", q[b].float(), k.float()) / math.sqrt(dh)
        outs.append(torch.einsum("hn,nhd->hd", s.softmax(-1), v.float()))
    return torch.stack(outs).to(q.dtype)
