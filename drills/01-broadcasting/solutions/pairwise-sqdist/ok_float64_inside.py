import torch


def pairwise_sq_dists(A, B):
    # accumulate in float64, cast back to the input dtype
    a, b = A.double(), B.double()
    d2 = (a ** 2).sum(-1).unsqueeze(1) + (b ** 2).sum(-1).unsqueeze(0) - 2 * a @ b.t()
    return d2.clamp(min=0).to(A.dtype)
