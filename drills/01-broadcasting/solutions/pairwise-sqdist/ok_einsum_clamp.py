import torch


def pairwise_sq_dists(A, B):
    a2 = torch.einsum("nd,nd->n", A, A)[:, None]  # (N, 1)
    b2 = torch.einsum("md,md->m", B, B)[None, :]  # (1, M)
    ab = torch.einsum("nd,md->nm", A, B)  # (N, M)
    return torch.clamp(a2 + b2 - 2 * ab, min=0.0)
