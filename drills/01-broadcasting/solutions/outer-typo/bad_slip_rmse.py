# trap: none
# The shapes are handled, but it returns the root of the mean squared error (RMSE).
import torch


def mse(pred, target):
    return torch.sqrt(((pred - target[:, 0]) ** 2).mean())
