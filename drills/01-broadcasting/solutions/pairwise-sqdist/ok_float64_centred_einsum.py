import torch


def pairwise_sq_dists(A, B):
    # careful: centre on a common mean, accumulate in float64, clip rounding below zero with relu
    a, b = A.double(), B.double()
    c = torch.cat([a, b]).mean(0)
    a, b = a - c, b - c
    sa = torch.einsum("nd,nd->n", a, a)
    sb = torch.einsum("md,md->m", b, b)
    d2 = sa[:, None] + sb[None, :] - 2 * torch.einsum("nd,md->nm", a, b)
    return torch.relu(d2).to(A.dtype)
