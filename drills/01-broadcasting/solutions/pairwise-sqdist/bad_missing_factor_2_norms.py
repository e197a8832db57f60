# trap: missing-factor-2  (|a|^2 + |b|^2 - a.b: the cross term without its factor 2, clamped at 0)
import torch


def pairwise_sq_dists(A, B):
    a2 = A.pow(2).sum(dim=-1)
    b2 = B.pow(2).sum(dim=-1)
    return torch.clamp(a2[:, None] + b2[None, :] - A @ B.T, min=0.0)
