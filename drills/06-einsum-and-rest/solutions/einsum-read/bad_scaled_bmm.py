# trap: scaled  (the attention scale applied, which this contract leaves out; written with bmm)
import torch


def scores_without_einsum(q, k):
    B, T, H, dh = q.shape
    S = k.shape[1]
    qh = q.permute(0, 2, 1, 3).reshape(B * H, T, dh)
    kh = k.permute(0, 2, 1, 3).reshape(B * H, S, dh)
    return (torch.bmm(qh, kh.transpose(1, 2)) * dh ** -0.5).view(B, H, T, S)
