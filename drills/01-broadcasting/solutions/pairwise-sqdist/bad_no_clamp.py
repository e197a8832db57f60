# trap: no-clamp
import torch


def pairwise_sq_dists(A, B):
    return (A ** 2).sum(1)[:, None] + (B ** 2).sum(1)[None, :] - 2 * torch.mm(A, B.t())
