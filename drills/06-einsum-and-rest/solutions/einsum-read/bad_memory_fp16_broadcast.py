# trap: none
# Right on every case, but the broadcast product is (B, T, S, H, dh) before the sum: 258 GiB at the scale sizes
import torch


def scores_without_einsum(q, k):
    qs = q.permute(0, 2, 1, 3).unsqueeze(3)  # (B, H, T, 1, dh)
    ks = k.permute(0, 2, 1, 3).unsqueeze(2)  # (B, H, 1, S, dh)
    return (qs * ks).sum(-1)
