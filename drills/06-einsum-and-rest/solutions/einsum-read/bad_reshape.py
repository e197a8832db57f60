# trap: reshape-not-transpose
import torch


def scores_without_einsum(q, k):
    B, T, H, dh = q.shape
    S = k.shape[1]
    return q.view(B, H, T, dh) @ k.view(B, H, S, dh).transpose(2, 3)
