# trap: naive-broadcast
import torch


def pairwise_sq_dists(A, B):
    diff = A[:, None, :] - B[None, :, :]  # (N, M, d): right values, N * M * d floats
    return torch.einsum("nmd,nmd->nm", diff, diff)
