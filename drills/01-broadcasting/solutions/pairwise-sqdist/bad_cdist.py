import torch


def pairwise_sq_dists(A, B):
    return torch.cdist(A, B) ** 2
