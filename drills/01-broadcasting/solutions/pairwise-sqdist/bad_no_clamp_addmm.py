# trap: no-clamp  (the expansion through addmm, never clamped: rounding leaves small negatives)
import torch


def pairwise_sq_dists(A, B):
    a2 = (A * A).sum(-1, keepdim=True)
    b2 = (B * B).sum(-1)[None, :]
    return torch.addmm(a2 + b2, A, B.t(), alpha=-2.0)
