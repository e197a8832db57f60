# trap: reshape-not-transpose  (q and k reshaped to (B, H, ., dh) instead of transposed, then matmul)
import torch


def scores_without_einsum(q, k):
    B, T, H, dh = q.shape
    S = k.shape[1]
    qh = q.contiguous().view(B, H, T, dh)
    kh = k.contiguous().view(B, H, S, dh)
    return torch.matmul(qh, kh.transpose(2, 3))
