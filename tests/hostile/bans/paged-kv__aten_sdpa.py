# kernel: aten::scaled_dot_product_attention
import torch


def paged_decode(q, k_pool, v_pool, block_table, seq_lens):
    B, M = block_table.shape
    _, P, H, dh = k_pool.shape
    k = k_pool[block_table.long()].reshape(B, M * P, H, dh).transpose(1, 2)  # (B, H, L, dh)
    v = v_pool[block_table.long()].reshape(B, M * P, H, dh).transpose(1, 2)
    keep = (torch.arange(M * P)[None, :] < seq_lens[:, None])[:, None, None, :]  # (B, 1, 1, L)
    return torch.ops.aten.scaled_dot_product_attention(q[:, :, None, :], k, v, keep)[:, :, 0]
