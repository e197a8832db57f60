import torch


def pairwise_sq_dists(A, B):
    # subtract a common centre first: same distances, far less cancellation
    c = A.float().mean(0, keepdim=True)
    a, b = A.float() - c, B.float() - c
    d2 = (a * a).sum(1, keepdim=True) - 2 * a @ b.T + (b * b).sum(1)
    return d2.clamp_min(0).to(A.dtype)
