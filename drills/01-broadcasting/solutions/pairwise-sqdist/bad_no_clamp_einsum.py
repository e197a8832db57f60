# trap: no-clamp
import torch


def pairwise_sq_dists(A, B):
    a2 = torch.einsum("nd,nd->n", A, A)[:, None]
    b2 = torch.einsum("md,md->m", B, B)[None, :]
    return a2 + b2 - 2 * torch.einsum("nd,md->nm", A, B)
