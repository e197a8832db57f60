# trap: none
# Right on every case, but the broadcast product is (B, T, S, H, dh) before the sum: 258 GiB at the scale sizes
import torch


def scores_without_einsum(q, k):
    # (B, T, 1, H, dh) * (B, 1, S, H, dh) -> sum over dh -> (B, T, S, H)
    prod = (q.float()[:, :, None] * k.float()[:, None]).sum(-1)
    return prod.permute(0, 3, 1, 2).to(q.dtype)
