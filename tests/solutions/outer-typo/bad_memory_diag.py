# trap: outer-broadcast
import torch


def mse(pred, target):
    sq = (pred[:, None] - target.T) ** 2  # (N, N): the diagonal holds the right terms
    return torch.diagonal(sq).mean()
