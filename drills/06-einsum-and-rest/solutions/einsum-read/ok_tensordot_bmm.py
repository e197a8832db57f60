import torch


def scores_without_einsum(q, k):
    B, T, H, dh = q.shape
    S = k.shape[1]
    qs = q.transpose(1, 2).reshape(B * H, T, dh)
    ks = k.transpose(1, 2).reshape(B * H, S, dh)
    return torch.bmm(qs, ks.transpose(1, 2)).view(B, H, T, S)
