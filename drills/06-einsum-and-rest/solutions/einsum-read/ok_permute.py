import torch


def scores_without_einsum(q, k):
    return torch.matmul(q.permute(0, 2, 1, 3), k.permute(0, 2, 3, 1))
