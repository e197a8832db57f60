# variant: points=columns
import torch


def pairwise_sq_dists(A, B):
    a2 = torch.einsum("dn,dn->n", A, A)  # (N,)
    b2 = torch.einsum("dm,dm->m", B, B)  # (M,)
    ab = torch.einsum("dn,dm->nm", A, B)  # (N, M)
    return (a2[:, None] - 2 * ab + b2).clamp(min=0)
