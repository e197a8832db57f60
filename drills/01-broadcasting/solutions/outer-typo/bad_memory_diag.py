# trap: none  (right values through the diagonal of an (N, N) matrix: the memory mistake without the wrong mean of the outer-broadcast trap)
import torch


def mse(pred, target):
    sq = (pred[:, None] - target.T) ** 2  # (N, N): the diagonal holds the right terms
    return torch.diagonal(sq).mean()
